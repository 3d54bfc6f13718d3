import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';

import { HOLD_LIMIT_BYTES } from '../../server/egress/write-hold';
import {
  exchange,
  FORM,
  formHeaders,
  holdingProxy,
  messages,
  openSocket,
  pause,
  pings,
  received,
  secure,
  tlsTunnel,
  until,
  useRecordingSite,
  viaProxy,
} from './write-hold-support';

/**
 * Writes held at the network (ChangeGate.approve): a request that may change something waits in the egress proxy,
 * unsent, until the gate approves it, and then goes out exactly once with exactly the bytes that were held; a refused
 * one, one the page gave up on, or one too large to hold never reaches the provider. Reads, and other writes, go on
 * meanwhile. The provider here is a loopback server (plain and TLS) that records everything it received; it, the
 * holding proxy and the clients that talk through it: write-hold-support.ts.
 */
jest.setTimeout(30_000);

useRecordingSite();

describe('a write held for approval (plain http)', () => {
  it('sends nothing while the approval is pending, then exactly once, with the same body and headers, when approved', async () => {
    const { proxy, nthHeld, sent, origin } = await holdingProxy();
    const { answer } = exchange(viaProxy(proxy, 'POST', `${origin}/messages?draft=1`, formHeaders), [FORM]);
    const held = await nthHeld(1);
    expect(held.write).toEqual({
      method: 'POST',
      url: `${origin}/messages?draft=1`,
      realm: 'unknown',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from(FORM),
    });
    await pause(500);
    expect(received).toEqual([]);
    expect(sent).toEqual([]);

    held.decide(null);
    expect(await answer).toEqual({ status: 201, body: 'created POST /messages?draft=1' });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: 'http /messages?draft=1', body: Buffer.from(FORM) });
    expect(received[0]!.headers).toMatchObject(formHeaders);
    expect(received[0]!.headers['transfer-encoding']).toBeUndefined();
    expect(sent).toEqual([`POST ${origin}/messages?draft=1`]);
    // Once: nothing more arrives later.
    await pause(200);
    expect(received).toHaveLength(1);
  });

  it('answers an approved write whose upstream resets the connection with a 502, never a dropped socket (no retry)', async () => {
    // A browser retries a request whose connection closed without an answer: the approved write would go out twice.
    const { proxy, nthHeld, sent, origin } = await holdingProxy();
    const { answer } = exchange(viaProxy(proxy, 'POST', `${origin}/reset/1`, formHeaders), [FORM]);
    (await nthHeld(1)).decide(null);
    expect(await answer).toMatchObject({ status: 502 });
    expect(received.map((r) => r.url)).toEqual(['http /reset/1']);
    expect(sent).toEqual([`POST ${origin}/reset/1`]);
  });

  it("answers an approved write whose connection's exit proxy cannot be reached with a 502, and sends nothing", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const { proxy, nthHeld, origin } = await holdingProxy('http', { upstreamProxy: { host: '127.0.0.1', port } });
    const { answer } = exchange(viaProxy(proxy, 'POST', `${origin}/messages`, formHeaders), [FORM]);
    (await nthHeld(1)).decide(null);
    expect(await answer).toMatchObject({ status: 502 });
    expect(received).toEqual([]);
  });

  it('never sends a refused write: the page sees a network error and the trace says why', async () => {
    const { proxy, nthHeld, blocked, sent, origin } = await holdingProxy();
    const { answer } = exchange(viaProxy(proxy, 'DELETE', `${origin}/account/42`, { 'content-length': '0' }));
    (await nthHeld(1)).decide('the person said no');
    expect(await answer).toBe('closed');
    await pause(200);
    expect(received).toEqual([]);
    expect(sent).toEqual([]);
    expect(blocked).toEqual([{ url: `DELETE ${origin}/account/42`, kind: 'write', reason: 'the person said no', realm: 'unknown' }]);
  });

  it('sends nothing when the page gave up while the write was held, whatever the approval says later', async () => {
    const { proxy, nthHeld, sent, origin } = await holdingProxy();
    const { req, answer } = exchange(viaProxy(proxy, 'POST', `${origin}/transfer`, formHeaders), [FORM]);
    const held = await nthHeld(1);
    expect(held.signal.aborted).toBe(false);
    req.destroy();
    expect(await answer).toBe('closed');
    await until(() => held.signal.aborted, 'the approval to be aborted');
    held.decide(null);
    await pause(300);
    expect(received).toEqual([]);
    expect(sent).toEqual([]);
  });

  it.each([
    ['a declared length', { 'content-length': String(HOLD_LIMIT_BYTES + 1) }, [Buffer.alloc(HOLD_LIMIT_BYTES + 1, 'a')]],
    ['a chunked body', { 'transfer-encoding': 'chunked' }, [Buffer.alloc(600_000, 'a'), Buffer.alloc(600_000, 'b')]],
  ])('refuses a write over 1 MiB (%s) without holding or sending it', async (_name, headers, parts) => {
    const { proxy, held, blocked, origin } = await holdingProxy();
    const { answer } = exchange(viaProxy(proxy, 'PUT', `${origin}/upload`, headers), parts);
    expect(await answer).toBe('closed');
    await pause(200);
    expect(held).toEqual([]);
    expect(received).toEqual([]);
    expect(blocked).toEqual([
      expect.objectContaining({ kind: 'write', reason: expect.stringContaining('too large to hold for approval') }),
    ]);
  });

  it('holds a chunked body whole and sends it once, intact, framed by its length', async () => {
    const { proxy, nthHeld, origin } = await holdingProxy();
    const parts = ['{"message":', '{"text":"hi', ' there"}}'];
    const { answer } = exchange(
      viaProxy(proxy, 'POST', `${origin}/chat`, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
      parts,
    );
    const held = await nthHeld(1);
    expect(held.write.body.toString()).toBe(parts.join(''));
    await pause(300);
    expect(received).toEqual([]);
    held.decide(null);
    expect(await answer).toMatchObject({ status: 201 });
    expect(received).toHaveLength(1);
    expect(received[0]!.body.toString()).toBe(parts.join(''));
    expect(received[0]!.headers['content-length']).toBe(String(parts.join('').length));
    expect(received[0]!.headers['transfer-encoding']).toBeUndefined();
  });

  it('lets reads and other writes through while one write is held (each write is asked about on its own)', async () => {
    const { proxy, nthHeld, origin } = await holdingProxy();
    const first = exchange(viaProxy(proxy, 'POST', `${origin}/first`, formHeaders), [FORM]);
    const firstHeld = await nthHeld(1);
    expect(await exchange(viaProxy(proxy, 'GET', `${origin}/inbox`)).answer).toEqual({ status: 201, body: 'created GET /inbox' });
    const second = exchange(viaProxy(proxy, 'POST', `${origin}/second`, formHeaders), [FORM]);
    (await nthHeld(2)).decide(null);
    expect(await second.answer).toMatchObject({ status: 201 });
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET http /inbox', 'POST http /second']);
    firstHeld.decide(null);
    expect(await first.answer).toMatchObject({ status: 201 });
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET http /inbox', 'POST http /second', 'POST http /first']);
  });

  it('never holds a write the gate refuses outright, nor a read', async () => {
    const { proxy, held, blocked, origin } = await holdingProxy();
    expect(await exchange(viaProxy(proxy, 'POST', `${origin}/forbidden`, formHeaders), [FORM]).answer).toBe('closed');
    expect(await exchange(viaProxy(proxy, 'GET', `${origin}/read`)).answer).toMatchObject({ status: 201 });
    expect(held).toEqual([]);
    expect(blocked).toEqual([expect.objectContaining({ kind: 'write', reason: 'not this path' })]);
    expect(received.map((r) => r.url)).toEqual(['http /read']);
  });
});

describe('a write held for approval inside a TLS tunnel', () => {
  it('holds it unsent, then sends it once when approved; a refused one is answered 403 and never sent', async () => {
    const { proxy, nthHeld, blocked, sent, origin } = await holdingProxy('https');
    const authority = `site.localhost:${secure.port}`;
    const inTunnel = async (path: string): Promise<http.RequestOptions> => {
      const socket = await tlsTunnel(proxy, authority);
      return { createConnection: () => socket, method: 'POST', path, headers: { host: authority, ...formHeaders } };
    };

    const approved = exchange(await inTunnel('/messages'), [FORM]);
    const held = await nthHeld(1);
    expect(held.write).toMatchObject({ method: 'POST', url: `${origin}/messages`, body: Buffer.from(FORM) });
    await pause(500);
    expect(received).toEqual([]);
    held.decide(null);
    expect(await approved.answer).toEqual({ status: 201, body: 'created POST /messages' });
    expect(received).toEqual([expect.objectContaining({ method: 'POST', url: 'https /messages', body: Buffer.from(FORM) })]);
    expect(sent).toEqual([`POST ${origin}/messages`]);

    const refused = exchange(await inTunnel('/delete-everything'), [FORM]);
    (await nthHeld(2)).decide('not approved');
    expect(await refused.answer).toEqual({ status: 403, body: '' });
    await pause(200);
    expect(received).toHaveLength(1);
    expect(blocked).toEqual([expect.objectContaining({ url: `POST ${origin}/delete-everything`, kind: 'write', reason: 'not approved' })]);
  });
});

describe('WebSocket messages held for approval', () => {
  it('holds each message until approved, then sends it once, in order with the ones after it; pings still flow', async () => {
    const { proxy, nthHeld, sent, origin } = await holdingProxy();
    const ws = await openSocket(proxy);
    ws.send('first');
    ws.send('sec', { fin: false });
    ws.send('ond', { fin: true });
    ws.send(Buffer.from('third'), { binary: true });
    const first = await nthHeld(1);
    expect(first.write).toEqual({
      method: 'WEBSOCKET',
      url: `${origin}/ws`,
      realm: 'websocket',
      contentType: null,
      body: Buffer.from('first'),
    });
    ws.ping();
    await until(() => pings() === 1, 'the ping to pass while a message is held');
    await pause(500);
    expect(messages).toEqual([]);
    expect(sent).toEqual([]);

    first.decide(null);
    const second = await nthHeld(2);
    // A fragmented message is held whole.
    expect(second.write.body.toString()).toBe('second');
    await until(() => messages.length === 1, 'the first message');
    second.decide(null);
    (await nthHeld(3)).decide(null);
    await until(() => messages.length === 3, 'all three messages');
    await pause(200);
    expect(messages).toEqual(['first', 'second', 'third']);
    expect(sent).toEqual([`WEBSOCKET ${origin}/ws`, `WEBSOCKET ${origin}/ws`, `WEBSOCKET ${origin}/ws`]);
    ws.close();
  });

  it('closes the WebSocket on a refusal: neither that message nor any after it arrives', async () => {
    const { proxy, nthHeld, blocked, origin } = await holdingProxy();
    const ws = await openSocket(proxy);
    const closed = once(ws, 'close');
    ws.send('delete everything');
    ws.send('and this too');
    (await nthHeld(1)).decide('the person said no');
    await closed;
    await pause(300);
    expect(messages).toEqual([]);
    expect(blocked).toEqual([{ url: `${origin}/ws#send`, kind: 'websocket', reason: 'the person said no', realm: 'websocket' }]);
  });

  it('refuses a message over 1 MiB without holding or sending it, and closes the WebSocket', async () => {
    const { proxy, held, blocked, origin } = await holdingProxy();
    const ws = await openSocket(proxy);
    const closed = once(ws, 'close');
    ws.send(Buffer.alloc(HOLD_LIMIT_BYTES + 1, 'x'));
    await closed;
    await pause(200);
    expect(held).toEqual([]);
    expect(messages).toEqual([]);
    expect(blocked).toEqual([
      {
        url: `${origin}/ws#send`,
        kind: 'websocket',
        reason: expect.stringContaining('too large to hold for approval'),
        realm: 'websocket',
      },
    ]);
  });

  it('sends nothing once the page closed while its message was held, and aborts the approval', async () => {
    const { proxy, nthHeld } = await holdingProxy();
    const ws = await openSocket(proxy);
    ws.send('sent too late');
    const held = await nthHeld(1);
    ws.terminate();
    await until(() => held.signal.aborted, 'the approval to be aborted');
    held.decide(null);
    await pause(300);
    expect(messages).toEqual([]);
  });
});
