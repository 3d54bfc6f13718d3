import { randomBytes } from 'node:crypto';

import { WebSocket } from 'ws';

import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { connectOrbit, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type AgentlinkProcess, startAgentlinkProcess } from '../support/agentlink-process';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * A run paused in a worker process, its person coming in through an API process: this test's process is the API
 * (no worker), `agentlink worker` runs as a child process on the same database. The run's browser lives in the
 * worker; the widget, opened on the API's address, is shown that browser (its socket is piped to the worker), and
 * its answer reaches the run there (the HTTP call is relayed). The app's decision on a held write, sent to the API
 * process, is stored on the request's row and applied by the worker on its heartbeat: at most one decision per pause.
 */
jest.setTimeout(150_000);

const KEY = randomBytes(32).toString('base64');

let api: LiveServer;
let worker: AgentlinkProcess;
let creds: Record<string, string>;

beforeAll(async () => {
  api = await startLiveServer({ env: { AGENTLINK_ENCRYPTION_KEY: KEY } });
  const org = await api.services.organizations.create('Paused Elsewhere');
  creds = { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret, 'content-type': 'application/json' };
  worker = await startAgentlinkProcess(['worker'], {
    AGENTLINK_PUBLIC_URL: api.baseUrl,
    AGENTLINK_DATA_DIR: api.dataDir,
    AGENTLINK_ENCRYPTION_KEY: KEY,
    AGENTLINK_WORKER_POLL_MS: '200',
  });
});

afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

async function call(method: string, p: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${api.baseUrl}${p}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (await res.json()) as any };
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 300)}; worker: ${worker.stderr().slice(-500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

it('the widget on the API process watches the run paused in the worker process, and its answer ends the wait there', async () => {
  const pt = await call('POST', '/api/sandbox/public_token/create', {
    headers: creds,
    body: { providerId: ORBIT_PROVIDER_ID, clientUserId: 'stepper', username: 'user_stepup' },
  });
  const ex = await call('POST', '/api/connections/public_token/exchange', { headers: creds, body: { publicToken: pt.body.publicToken } });
  const created = await call('POST', '/api/agent-requests', {
    headers: creds,
    body: {
      accessToken: ex.body.access_token,
      action: "Send a message to Marcus Webb saying 'hello from another process'",
      startingUrl: api.siteUrl('orbit', '/'),
      responseFormat: { sent: 'boolean' },
    },
  });
  expect(created.status).toBe(202);
  const id = created.body.requestId as string;
  const waiting = await until(
    async () => (await call('GET', `/api/agent-requests/${id}?waitMs=1000`, { headers: creds })).body,
    (r) => r.status !== 'PENDING' && r.status !== 'RUNNING',
    'NEEDS_USER',
  );
  expect(waiting).toMatchObject({ status: 'NEEDS_USER', userAction: { reason: 'CODE', url: expect.stringContaining(api.baseUrl) } });

  // The widget opens on the API process: it reads the pause from the database and points the session at the worker.
  const auth = { authorization: `Bearer ${waiting.userAction.linkToken}` };
  const started = await call('POST', '/link/api/sessions', { headers: auth, body: { env: 'sandbox' } });
  expect(started.body).toMatchObject({ mode: 'user_action', userAction: { state: 'waiting', reason: 'CODE' } });
  const session = started.body.linkSessionId as string;
  expect((await api.services.store.repos.linkSessions.findById(session))?.hostUrl).toBe(worker.base);

  // Its live view: the socket opened on the API is piped to the worker, which streams the run's page.
  const ws = new WebSocket(`${api.baseUrl.replace(/^http/, 'ws')}/link/api/sessions/${session}/live`, { headers: { origin: api.baseUrl } });
  const frames: Buffer[] = [];
  const texts: string[] = [];
  ws.on('message', (data, isBinary) => (isBinary ? frames.push(data as Buffer) : texts.push(String(data))));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      ws.send(JSON.stringify({ t: 'hello', linkToken: waiting.userAction.linkToken, width: 420, height: 800 }));
      resolve();
    });
    ws.once('error', reject);
  });
  await until(
    async () => frames.length,
    (n) => n > 0,
    'a frame of the paused run',
  );
  // The run's state is its own message on the socket: waited for as such (a loaded machine may deliver the frame first).
  await until(
    async () => texts.some((t) => t.includes('"type":"run"') && t.includes('"waiting"')),
    (seen) => seen,
    "the run's waiting state",
  );

  // "I can't do this", sent to the API process, reaches the run in the worker: it ends there, USER_ACTION_EXITED.
  const exited = await call('POST', `/link/api/sessions/${session}/exit`, { headers: auth, body: {} });
  expect(exited.status).toBe(200);
  const ended = await until(
    async () => (await call('GET', `/api/agent-requests/${id}?waitMs=1000`, { headers: creds })).body,
    (r) => r.status === 'FAILED' || r.status === 'COMPLETED',
    'the end of the run',
  );
  expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'USER_ACTION_EXITED' } });
  ws.close();
});

it("the app's decision on a write held in the worker process, sent to the API process, is applied there once", async () => {
  const org: LiveOrg = await liveOrg(api, 'Decides Elsewhere');
  const conn = await connectOrbit(api, org, 'decider');
  const text = `Decided elsewhere ${randomBytes(4).toString('hex')}`;
  const created = await call('POST', '/api/agent-requests', {
    headers: org.headers,
    body: {
      accessToken: conn.accessToken,
      action: 'Create a post',
      playbook: 'orbit.create-post',
      parameters: { text },
      approval: 'writes',
      startingUrl: api.siteUrl('orbit', '/'),
      responseFormat: { text: 'string', url: 'url?' },
    },
  });
  expect(created.status).toBe(202);
  const id = created.body.requestId as string;
  const get = async () => (await call('GET', `/api/agent-requests/${id}?waitMs=1000`, { headers: org.headers })).body;
  const waiting = await until(get, (r) => r.status !== 'PENDING' && r.status !== 'RUNNING', 'NEEDS_USER');
  expect(waiting).toMatchObject({ status: 'NEEDS_USER', userAction: { reason: 'APPROVAL', write: { method: 'POST' } } });
  // This process holds no run: the run and its page are in the worker process.
  expect(api.services.handoffs.registry.find(id)).toBeNull();
  const posts = async () =>
    (await api.services.store.repos.sandboxDocs.list(tenantFor(org.organizationId), 'orbit', 'post')).filter((d) =>
      String(d.data.text ?? '').includes(text),
    ).length;
  const decide = (who: Record<string, string>, decision: string, key: string, writeId?: string) =>
    call('POST', `/api/agent-requests/${id}/user-action`, {
      headers: { ...who, 'idempotency-key': key },
      body: { decision, ...(writeId ? { writeId } : {}) },
    });

  // Another organization: nothing to see. A decision on a write no longer held: 409, nothing stored for the worker.
  const other = await liveOrg(api, 'Not Theirs');
  expect((await decide(other.headers, 'approve', 'k-other')).status).toBe(404);
  const stale = await decide(org.headers, 'approve', 'k-stale', 'hw_a-write-no-longer-held');
  expect(stale).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
  expect((await api.services.store.repos.agentRequests.findById(id))?.userDecision).toBeNull();

  // Approve and Deny at once, each with its own key: one is stored and applied, the other finds the step over.
  const writeId = waiting.userAction.write.id as string;
  const [approve, deny] = await Promise.all([
    decide(org.headers, 'approve', 'k-approve', writeId),
    decide(org.headers, 'deny', 'k-deny', writeId),
  ]);
  expect([approve.status, deny.status].sort()).toEqual([200, 409]);
  const won = approve.status === 200 ? approve : deny;
  // Answered once the worker took it: the run is no longer waiting on that write.
  expect(won.body.status).not.toBe('NEEDS_USER');
  expect(await decide(org.headers, won === approve ? 'approve' : 'deny', won === approve ? 'k-approve' : 'k-deny', writeId)).toEqual(won);

  const ended = await until(get, (r) => ['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT'].includes(r.status), 'the end of the run');
  if (won === approve) {
    expect(ended).toMatchObject({ status: 'COMPLETED', result: { text } });
    expect(await posts()).toBe(1);
  } else {
    expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'DENIED_BY_USER' } });
    expect(await posts()).toBe(0);
  }
  // The worker recorded it as a decision in its own process: one step by the user.
  expect(ended.trace.filter((s: { tool: string }) => s.tool === 'user')).toHaveLength(1);
  expect((await decide(org.headers, 'approve', 'k-late')).status).toBe(409);
  // The row keeps the worker's word on the decision it applied (how the API process knew to answer 200), nothing pending.
  expect((await api.services.store.repos.agentRequests.findById(id))?.userDecision).toMatch(/^applied:\{"decision":"(approve|deny)"/);
});
