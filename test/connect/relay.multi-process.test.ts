import { randomBytes } from 'node:crypto';

import { WebSocket } from 'ws';

import { sessionFinishedEventId } from '../../server/domain/link-completion';
import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { SANDBOX_SMS_CODE } from '../../server/sandbox/test-users';
import { type AgentlinkProcess, startAgentlinkProcess } from '../support/agentlink-process';
import { freePort } from '../support/free-port';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * Two API processes on one database, as behind a load balancer: this test's process (A) and `agentlink serve --role
 * api` as a child process (B). A link session's in-memory part lives in the process that took it on; a widget call
 * reaching the other one is relayed there: a sign-in paused at a code step is finished through the other process,
 * the live view's socket opened on one process streams the browser the other holds, and a holder that is gone is
 * forgotten (the process that got the call answers from what the database knows, never hangs or fails with a 500).
 */
jest.setTimeout(120_000);

const KEY = randomBytes(32).toString('base64');

let a: LiveServer;
let b: AgentlinkProcess;
let creds: Record<string, string>;

beforeAll(async () => {
  a = await startLiveServer({ env: { AGENTLINK_ENCRYPTION_KEY: KEY } });
  const org = await a.services.organizations.create('Relay Org');
  creds = { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret, 'content-type': 'application/json' };
  // The same service as A: one public address, one database, one key.
  b = await startAgentlinkProcess(['serve', '--role', 'api'], {
    AGENTLINK_PUBLIC_URL: a.baseUrl,
    AGENTLINK_DATA_DIR: a.dataDir,
    AGENTLINK_ENCRYPTION_KEY: KEY,
  });
});

afterAll(async () => {
  await b?.stop();
  await a?.services.liveSignIn.closeAll();
  await a?.services.loginEngine.close();
  await a?.services.browsers.close();
  await a?.close();
});

async function call(base: string, method: string, p: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (await res.json()) as any };
}

/** A widget session: each step sent to the process given (as a load balancer would pick one). */
async function widgetSession(providerId: string) {
  const token = (await call(a.baseUrl, 'POST', '/api/link-token', { headers: creds, body: { clientUserId: 'relay-user' } })).body
    .linkToken as string;
  const headers = { authorization: `Bearer ${token}` };
  const started = await call(a.baseUrl, 'POST', '/link/api/sessions', { headers, body: { env: 'sandbox' } });
  const id = started.body.linkSessionId as string;
  const step = (base: string, name: string, body: unknown = {}) =>
    call(base, 'POST', `/link/api/sessions/${id}/${name}`, { headers, body });
  expect((await step(a.baseUrl, 'consent')).status).toBe(200);
  expect((await step(b.base, 'provider', { providerId })).status).toBe(200);
  return { id, token, step };
}

const hostOf = async (id: string) => (await a.services.store.repos.linkSessions.findById(id))?.hostUrl ?? null;

it('a sign-in paused at its code step in one process is finished through the other', async () => {
  const w = await widgetSession(ORBIT_PROVIDER_ID);
  const paused = await w.step(a.baseUrl, 'credentials', { username: 'user_sms', password: 'pass_good' });
  expect(paused).toMatchObject({ status: 200, body: { view: { status: 'MFA_SMS' } } });
  expect(await hostOf(w.id)).toBe(`http://127.0.0.1:${a.port}`);
  expect(a.services.loginEngine.pendingCount).toBe(1);

  const done = await w.step(b.base, 'mfa', { code: SANDBOX_SMS_CODE });
  expect(done).toMatchObject({ status: 200, body: { success: { publicToken: expect.any(String) } } });
  expect(a.services.loginEngine.pendingCount).toBe(0);
  const exchanged = await call(b.base, 'POST', '/api/connections/public_token/exchange', {
    headers: creds,
    body: { publicToken: done.body.success.publicToken },
  });
  expect(exchanged).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
});

it('a holder that is gone is forgotten: the process that got the call answers from the database', async () => {
  const w = await widgetSession(ORBIT_PROVIDER_ID);
  expect((await w.step(a.baseUrl, 'credentials', { username: 'user_sms', password: 'pass_good' })).body.view.status).toBe('MFA_SMS');
  // As if the holder's process had ended: its recorded address answers nothing.
  const gone = `http://127.0.0.1:${await freePort()}`;
  await a.services.store.repos.linkSessions.setHost(w.id, gone);
  const res = await w.step(b.base, 'mfa', { code: SANDBOX_SMS_CODE });
  expect(res.status).toBeLessThan(500);
  expect(res.body.error?.code).toEqual(expect.any(String)); // the paused step is not in this process: a clear error
  expect(await hostOf(w.id)).toBeNull();
  await w.step(a.baseUrl, 'exit');
});

it('a link session ended through both processes at once is reported once (LINK.SESSION_FINISHED)', async () => {
  // Only the stored events are counted here (no dispatcher runs): the endpoint just subscribes the organization.
  const hook = await call(a.baseUrl, 'POST', '/api/webhooks', {
    headers: creds,
    body: { url: 'http://127.0.0.1:9/hooks', events: ['LINK.SESSION_FINISHED'] },
  });
  expect(hook.status).toBe(201);
  const finishedEvents = async (id: string) => {
    const session = (await a.services.store.repos.linkSessions.findById(id))!;
    const rows = await a.services.store.repos.webhookEvents.listOwned(session, 1000);
    return rows
      .filter((r) => r.type === 'LINK.SESSION_FINISHED')
      .map((r) => JSON.parse(a.services.webhookPayloads.open(r)) as { eventId: string; object: Record<string, unknown> })
      .filter((e) => e.object.linkSessionId === id);
  };

  // Success: paused in A, finished through B (relayed to A), then the widget's exit reaches both processes at once.
  const won = await widgetSession(ORBIT_PROVIDER_ID);
  expect((await won.step(a.baseUrl, 'credentials', { username: 'user_sms', password: 'pass_good' })).body.view.status).toBe('MFA_SMS');
  const done = await won.step(b.base, 'mfa', { code: SANDBOX_SMS_CODE });
  expect(done.status).toBe(200);
  const exits = await Promise.all([won.step(a.baseUrl, 'exit'), won.step(b.base, 'exit')]);
  expect(exits.map((e) => [e.status, e.body.status])).toEqual([
    [200, 'SUCCEEDED'],
    [200, 'SUCCEEDED'],
  ]);
  const succeeded = await finishedEvents(won.id);
  expect(succeeded).toHaveLength(1);
  expect(succeeded[0]).toMatchObject({
    eventId: sessionFinishedEventId(won.id),
    object: { status: 'SUCCESS', publicToken: done.body.success.publicToken },
  });

  // Exit: paused in A, left through A and B at the same moment: one end, one event.
  const left = await widgetSession(ORBIT_PROVIDER_ID);
  expect((await left.step(a.baseUrl, 'credentials', { username: 'user_sms', password: 'pass_good' })).body.view.status).toBe('MFA_SMS');
  const both = await Promise.all([left.step(b.base, 'exit'), left.step(a.baseUrl, 'exit'), left.step(b.base, 'exit')]);
  expect(both.map((e) => [e.status, e.body.status])).toEqual([
    [200, 'EXITED'],
    [200, 'EXITED'],
    [200, 'EXITED'],
  ]);
  const exited = await finishedEvents(left.id);
  expect(exited).toHaveLength(1);
  expect(exited[0].object).toMatchObject({ status: 'EXITED', publicToken: null, error: { code: 'USER_CLOSED' } });
});

it("the live view's socket opened on one process streams the browser the other holds", async () => {
  const w = await widgetSession(LUMEN_PROVIDER_ID);
  const origin = new URL(a.baseUrl).origin;
  const open = (base: string) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/link/api/sessions/${w.id}/live`, { headers: { origin } });
    const frames: Buffer[] = [];
    const texts: string[] = [];
    ws.on('message', (data, isBinary) => (isBinary ? frames.push(data as Buffer) : texts.push(String(data))));
    const ready = new Promise<void>((resolve, reject) => {
      ws.once('open', () => {
        ws.send(JSON.stringify({ t: 'hello', linkToken: w.token, width: 400, height: 640 }));
        resolve();
      });
      ws.once('error', reject);
    });
    return { ws, frames, texts, ready };
  };
  const waitFor = async (check: () => boolean, what: string) => {
    const until = Date.now() + 30_000;
    while (!check()) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}; B: ${b.stderr().slice(-500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  // The browser opens in B, where the socket arrived first.
  const first = open(b.base);
  await first.ready;
  await waitFor(() => first.frames.length > 0, 'a frame from B');
  expect(await hostOf(w.id)).toBe(b.base);
  expect(a.services.liveSignIn.openCount).toBe(0);

  // The widget comes back through A: A opens no browser, and the frames are B's, relayed.
  first.ws.close();
  const second = open(a.baseUrl);
  await second.ready;
  await waitFor(() => second.frames.length > 0, 'a frame relayed through A');
  expect(second.frames[0]!.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff])); // a JPEG
  expect(a.services.liveSignIn.openCount).toBe(0);
  // Input goes back the same way: a ping through A is answered by B.
  second.ws.send(JSON.stringify({ t: 'ping' }));
  await waitFor(() => second.texts.some((t) => t.includes('"pong"')), 'the pong from B');

  // Leaving the widget through A ends the live browser in B (the exit is relayed too); the socket closes.
  const closed = new Promise<number>((resolve) => second.ws.once('close', (code) => resolve(code)));
  expect((await w.step(a.baseUrl, 'exit')).status).toBe(200);
  expect(await closed).toBeGreaterThanOrEqual(1000);
});
