import net from 'node:net';

import { changeGate, fromProxy } from '../../server/agent/network-guard';
import { RunIntegrity } from '../../server/agent/run-integrity';
import type { EgressBlock } from '../../server/egress/change-gate';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { type EgressProxy, startEgressProxy } from '../../server/egress/egress-proxy';
import { maskedFrame } from '../../server/egress/websocket-frames';
import { type SocketSite, startSocketSite } from '../support/socket-site';

/**
 * A WebSocket message cut off by its socket closing, in read mode, attacked below the browser (as
 * egress-proxy-streams.security.test.ts does: a page's socket speaking raw frames through the real egress proxy to a
 * real WebSocket server). Read mode holds every message and reports each with what it carried, for the run to judge
 * (block-cause.ts); a message the page begins and never finishes — its parameter-carrying tail never sent, the socket
 * closed by the page or by the provider mid-frame — must be reported as unreadable, which taints the run like a
 * message over 64 KiB, rather than going unreported and leaving the run clean and recordable. Chromium's WebSocket API
 * writes whole frames, so a page cannot cut one at will today; a browser bug, a tab torn down mid-send or a server
 * closing at the right moment can, and the proxy must not depend on which.
 */
jest.setTimeout(20_000);

const SECRET = 'SECRET-NOTE-4471';
const received: string[] = [];
let site: SocketSite;
let port = 0;
/** Whether the site drops each socket 300 ms after the upgrade (the provider closing mid-message). */
let dropAfterUpgrade = false;
const proxies: EgressProxy[] = [];

beforeAll(async () => {
  site = await startSocketSite({
    received,
    handler: (_req, res) => res.writeHead(404).end(),
    onClient: (client) => {
      if (dropAfterUpgrade) setTimeout(() => client.terminate(), 300);
    },
  });
  port = site.port;
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await site?.close();
});

beforeEach(() => {
  received.length = 0;
  dropAfterUpgrade = false;
});

/** A read-mode proxy whose every report is judged by a run that typed SECRET, as the worker's run does. */
async function readModeRun() {
  const policy = EgressPolicy.forProvider(
    { name: 'Notes', homeUrl: `http://notes.localhost:${port}/`, allowedOrigins: ['notes.localhost'] },
    'sandbox',
  );
  const integrity = new RunIntegrity({ note: SECRET });
  const reports: EgressBlock[] = [];
  const proxy = await startEgressProxy({
    policy,
    onBlocked: (b) => {
      reports.push(b);
      integrity.blockedRequest(fromProxy(b));
    },
    gate: changeGate('read'),
    onChangeSent: () => undefined,
  });
  proxies.push(proxy);
  return { integrity, reports, proxyPort: Number(new URL(proxy.server).port) };
}

/** Opens a WebSocket through the proxy as Chromium does (a CONNECT tunnel, then the upgrade); resolves after the 101. */
async function openSocket(proxyPort: number): Promise<net.Socket> {
  const socket = net.connect(proxyPort, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const answer = (request: string) =>
    new Promise<string>((resolve, reject) => {
      let text = '';
      const onData = (d: Buffer) => {
        text += d.toString('latin1');
        if (!text.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        resolve(text);
      };
      socket.on('data', onData);
      socket.once('error', reject);
      socket.write(request);
    });
  const tunnel = await answer(`CONNECT notes.localhost:${port} HTTP/1.1\r\nHost: notes.localhost:${port}\r\n\r\n`);
  if (!/^HTTP\/1\.1 200/.test(tunnel)) throw new Error(`no tunnel: ${tunnel.slice(0, 200)}`);
  const upgrade = await answer(
    `GET /comms HTTP/1.1\r\nHost: notes.localhost:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  );
  if (!/^HTTP\/1\.1 101/.test(upgrade)) throw new Error(`no upgrade: ${upgrade.slice(0, 200)}`);
  return socket;
}

const closed = (socket: net.Socket) => new Promise((r) => (socket.destroyed ? r(undefined) : socket.once('close', r)));
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A message whose parameter sits in its tail: the part a cut-off frame never sends. */
const leak = maskedFrame(1, Buffer.from(`{"event":"autosave","pad":"${'x'.repeat(200)}","note":"${SECRET}"}`));
const headOfLeak = leak.subarray(0, 60);

describe('read mode: a WebSocket message cut off by its socket closing', () => {
  it('control: a whole message carrying nothing of the run is held and listed as noise; the run stays clean', async () => {
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    socket.write(maskedFrame(1, Buffer.from('{"subscribe":"notes"}')));
    await settle(300);
    socket.destroy();
    await settle(300);

    expect(received).toEqual([]);
    expect(run.reports.map((r) => [r.kind, r.message])).toEqual([['websocket', { text: '{"subscribe":"notes"}', cut: false }]]);
    expect(run.integrity.clean).toBe(true);
  });

  it('the page closes its socket mid-frame: the message is reported unreadable and taints the run', async () => {
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    socket.write(maskedFrame(1, Buffer.from('{"subscribe":"notes"}')));
    socket.write(headOfLeak);
    await settle(200);
    socket.destroy();
    await settle(300);

    expect(received).toEqual([]);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([false, true]);
    expect(run.reports[1]!.message!.text).not.toContain(SECRET);
    expect(run.integrity.clean).toBe(false);
    expect(run.integrity.summary()).toMatch(
      /#send: read mode: WebSocket messages are not sent \(its message could not be read whole .*cut off/,
    );
  });

  it('the page half-closes (FIN) between the fragments of a message: reported unreadable, taints', async () => {
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    const first = maskedFrame(1, Buffer.from('{"event":"autosave",'));
    first[0] = 0x01; // FIN clear: the message goes on in a continuation that never comes.
    socket.end(first);
    // The page's side ended: nothing more can come, whether or not the socket is torn down yet.
    await settle(500);

    expect(received).toEqual([]);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([true]);
    expect(run.integrity.clean).toBe(false);
    socket.destroy();
  });

  it('the provider drops the connection while the page is mid-frame: reported unreadable, taints', async () => {
    dropAfterUpgrade = true;
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    socket.write(headOfLeak);
    await closed(socket);
    await settle(300);

    expect(received).toEqual([]);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([true]);
    expect(run.integrity.clean).toBe(false);
  });
});
