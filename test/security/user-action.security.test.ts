import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';

import { z } from 'zod';

import { MASK, summarizeHeldWrite } from '../../server/agent/handoff/held-write';
import type { Playbook } from '../../server/agent/playbooks';
import type { RunState } from '../../server/agent/run-state';
import { generateToken, hashToken } from '../../server/domain/tokens';
import type { HeldWrite } from '../../server/egress/change-gate';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { createLogger } from '../../server/logger';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { api, connectOrbit, createRequest, eventually, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { LiveClient, requestWhen, runPage, upgradeStatus, widgetFor } from '../agent-handoff/handoff-support';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * Attacks on a paused run's widget (a run NEEDS_USER, its person brought in by userAction.linkToken): a real AgentLink
 * with its worker, real Chromium, the Orbit sandbox. A test playbook puts a code box (and a note field) on the run's
 * own page and asks the person; the attacks go through the widget's HTTP API and the live view's socket, as a browser
 * (or anything else) could send them:
 *   - another organization's token, another run's token or link session, a token row naming another owner's run;
 *   - a user-action token driven through the connect flow (consent, provider, credentials …, live finish, exchange);
 *   - a token whose ask is over (answered, the run working on, a later ask, expired): no answer, no input;
 *   - a foreign Origin on the run view's socket; the token at rest and in the logs;
 *   - malformed, oversized and mismatched decisions; the held write's summary (credentials, tokens, parameters).
 */
jest.setTimeout(120_000);

const CODE = '135790';
const CODE2 = '864200';

let live: LiveServer;
let victim: LiveOrg;
let victimConn: { accessToken: string; connectionId: string };
let attacker: LiveOrg;
let attackerConn: { accessToken: string; connectionId: string };
const logLines: string[] = [];
const sockets: LiveClient[] = [];
/** Runs held in their working phase (between the asks) until the test lets them go on. */
const holds = new Map<string, () => void>();

const askPlaybook: Playbook<{ hold?: boolean; twice?: boolean }> = {
  providerSlug: 'orbit',
  name: 'test.security-ask',
  description: 'test playbook: asks its user for a code, works on, and may ask again',
  writes: false,
  examples: ['test: security ask'],
  resultFields: { code: 'string', note: 'string', code2: 'string' },
  parameters: z.object({ hold: z.boolean().optional(), twice: z.boolean().optional() }),
  run: async (ctx) => {
    await ctx.page.setContent(
      '<main><h1>Confirm it is you</h1><p><label>Code <input id="code" autocomplete="off"></label></p>' +
        '<p><label>Note <input id="note" autocomplete="off"></label></p>' +
        '<p><label>Second code <input id="code2" autocomplete="off"></label></p></main>',
    );
    await ctx.needsUser({
      reason: 'CODE',
      message: 'Enter the code Orbit sent to your phone.',
      done: async () => (await ctx.page.inputValue('#code')) === CODE,
    });
    if (ctx.params.hold) {
      // Working: the run holds its page here until the test lets it go on (at most 60 s).
      await new Promise<void>((resolve) => {
        holds.set(ctx.requestId, resolve);
        setTimeout(resolve, 60_000).unref();
      });
    }
    if (ctx.params.twice) {
      await ctx.needsUser({
        reason: 'CODE',
        message: 'Enter the second code.',
        done: async () => (await ctx.page.inputValue('#code2')) === CODE2,
      });
    }
    return {
      code: await ctx.page.inputValue('#code'),
      note: await ctx.page.inputValue('#note'),
      code2: await ctx.page.inputValue('#code2'),
    };
  },
};

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  live = await startLiveServer({
    worker: true,
    logger: createLogger('debug', sink),
    env: { AGENTLINK_WORKER_CONCURRENCY: '2', AGENTLINK_MAX_WAITING_RUNS: '6', AGENTLINK_USER_ACTION_TTL_SECONDS: '120' },
  });
  live.services.playbooks.register(askPlaybook);
  victim = await liveOrg(live, 'Victim Org');
  victimConn = await connectOrbit(live, victim, 'victim-user');
  attacker = await liveOrg(live, 'Attacker Org');
  attackerConn = await connectOrbit(live, attacker, 'attacker-user');
});

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
  for (const release of holds.values()) release();
  holds.clear();
});

afterAll(async () => {
  await live?.close();
});

interface Paused {
  requestId: string;
  linkToken: string;
  url: string;
  record: Json;
}

/** Starts a run of the test playbook for `org` and waits until it pauses for its user. */
async function pausedRun(org: LiveOrg = victim, conn = victimConn, params: { hold?: boolean; twice?: boolean } = {}): Promise<Paused> {
  const requestId = await createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'test: security ask',
    playbook: 'test.security-ask',
    parameters: params,
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { code: 'string', note: 'string', code2: 'string' },
  });
  const record = await requestWhen(live, org, requestId, ['NEEDS_USER']);
  return { requestId, linkToken: record.userAction.linkToken, url: record.userAction.url, record };
}

async function cancel(org: LiveOrg, requestId: string): Promise<Json> {
  await api(live, org, 'POST', `/api/agent-requests/${requestId}/cancel`);
  return requestWhen(live, org, requestId, ['CANCELED', 'FAILED', 'COMPLETED']);
}

function socket(linkSessionId: string, origin?: string): LiveClient {
  const s = new LiveClient(live, linkSessionId, origin);
  sockets.push(s);
  return s;
}

/** The ask the run waits on now (null while it works or once it ended). */
const currentAsk = (requestId: string) => live.services.handoffs.registry.find(requestId)?.current ?? null;

/**
 * A socket refused after its hello: closed with LIVE_UNAUTHORIZED (4401), never a frame of the page. `over`: the token
 * is the run's own, its ask over: the widget is told only that the run works on (so it ends its part), nothing else.
 */
async function expectRefusedView(s: LiveClient, opts: { over?: boolean } = {}): Promise<void> {
  const closed = await Promise.race([
    s.closed,
    new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 10_000).unref()),
  ]);
  expect(closed).toEqual({ code: 4401, reason: 'LIVE_UNAUTHORIZED' });
  expect(s.frames).toBe(0);
  const states = s.messages.filter((m) => m.type === 'run');
  expect(states).toEqual(opts.over ? [{ type: 'run', state: 'working', ask: null }] : []);
  expect(s.messages.filter((m) => m.type === 'viewport')).toEqual([]);
}

describe('paused run widget: user actions', () => {
  it("refuses another organization's tokens and another run's token on this run's view and answer; nothing is decided", async () => {
    const run = await pausedRun();
    const other = await pausedRun(); // the victim's second run, paused too
    const foreign = await pausedRun(attacker, attackerConn);
    const person = widgetFor(live, run.linkToken);
    expect((await person.start()).status).toBe(200);
    // An ordinary connect-flow link token of the attacker's organization, and the attacker's own user-action token.
    const connectToken = (await api(live, attacker, 'POST', '/api/link-token', { clientUserId: 'attacker-user' })).body.linkToken;
    const attackers = [
      { name: "another organization's user-action token", token: foreign.linkToken },
      { name: "another organization's connect-flow token", token: connectToken },
      { name: "another run's user-action token (same organization)", token: other.linkToken },
    ];
    for (const a of attackers) {
      // The answer route, on the victim's link session.
      const answered = await widgetFor(live, a.token).answer('done', person.id);
      expect({ attack: a.name, status: answered.status, code: answered.body.error?.code }).toEqual({
        attack: a.name,
        status: 404,
        code: 'LINK_SESSION_NOT_FOUND',
      });
      // Leaving on the victim's behalf would end the run (USER_ACTION_EXITED): refused too.
      const left = await widgetFor(live, a.token).exit(person.id);
      expect(left.status).toBe(404);
      // The live view's socket of the victim's link session: hello with the attacker's token.
      const s = socket(person.id);
      await s.hello(a.token);
      await expectRefusedView(s);
    }
    // A session the attacker opened with its own token cannot be pointed at the victim's run either: its view is its own run's.
    const own = widgetFor(live, foreign.linkToken);
    expect((await own.start()).body.userAction).toMatchObject({ agentRequestId: foreign.requestId });
    // The victim's token on the attacker's link session: refused the same way (tokens and sessions go together).
    expect((await widgetFor(live, run.linkToken).answer('done', own.id)).status).toBe(404);

    // Nothing was decided: the run still waits on the same ask, and no view of it was opened.
    expect(currentAsk(run.requestId)?.linkToken).toBe(run.linkToken);
    expect(live.services.runLiveViews.has(person.id)).toBe(false);
    expect((await api(live, victim, 'GET', `/api/agent-requests/${run.requestId}`)).body.status).toBe('NEEDS_USER');
    expect((await api(live, attacker, 'GET', `/api/agent-requests/${foreign.requestId}`)).body.status).toBe('NEEDS_USER');
    // The attacker's own run is not the victim's business either: the victim's organization cannot read it.
    expect((await api(live, victim, 'GET', `/api/agent-requests/${foreign.requestId}`)).status).toBe(404);
    for (const [org, id] of [
      [victim, run.requestId],
      [victim, other.requestId],
      [attacker, foreign.requestId],
    ] as const)
      expect((await cancel(org, id)).status).toBe('CANCELED');
  });

  it("refuses a link token row that names another organization's run: the run's owner is checked, not the token's word", async () => {
    const run = await pausedRun();
    // A token of the attacker's organization that names the victim's run (as a bug or a forged row could make one).
    const forged = generateToken('link', 'sandbox');
    await live.services.store.repos.linkTokens.insert({
      id: `ltok_forged${Date.now()}`,
      tokenHash: hashToken(forged),
      organizationId: attacker.organizationId,
      environment: 'sandbox',
      clientUserId: 'attacker-user',
      providerId: ORBIT_PROVIDER_ID,
      connectionId: attackerConn.connectionId,
      agentRequestId: run.requestId,
      rememberCredentials: false,
      signIn: 'live',
      completionRedirectUri: null,
      expiresAt: new Date(Date.now() + 600_000),
      usedAt: null,
      createdAt: new Date(),
    });
    const w = widgetFor(live, forged);
    const started = await w.start();
    expect(started.status).toBe(200);
    // The widget learns nothing of the victim's run: not its task, not what it waits for.
    expect(started.body.userAction).toEqual({
      agentRequestId: run.requestId,
      task: '',
      state: 'over',
      reason: null,
      message: null,
      expiresAt: null,
      write: null,
    });
    const answered = await w.answer('done');
    expect(answered).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
    const s = socket(w.id);
    await s.hello(forged);
    await expectRefusedView(s);
    expect(currentAsk(run.requestId)?.linkToken).toBe(run.linkToken);
    expect((await cancel(victim, run.requestId)).status).toBe('CANCELED');
  });

  it('refuses the connect flow to a user-action link token: every sign-in step, the live finish, and no public token', async () => {
    const run = await pausedRun();
    const w = widgetFor(live, run.linkToken);
    const started = await w.start();
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ mode: 'user_action', status: 'USER_ACTION', userAction: { state: 'waiting', reason: 'CODE' } });
    const steps: [string, unknown][] = [
      ['consent', {}],
      ['provider', { providerId: ORBIT_PROVIDER_ID }],
      ['credentials', { username: 'user_good', password: 'pass_good' }],
      ['mfa', { code: '123456' }],
      ['human-check', { confirmed: true }],
      ['live/finish', {}],
    ];
    for (const [name, body] of steps) {
      const res = await w.step(name, body);
      expect({ step: name, status: res.status, code: res.body.error?.code, success: res.body.success }).toEqual({
        step: name,
        status: 409,
        code: 'LINK_STEP_NOT_ALLOWED',
        success: undefined,
      });
    }
    // The socket's hello with this token opens the run's view, never a sign-in browser.
    const s = socket(w.id);
    await s.hello(run.linkToken);
    await s.until((m) => m.type === 'run' && m.state === 'waiting');
    expect(live.services.liveSignIn.openCount).toBe(0);

    // Nothing was made: the session is still at its one step, the token unused, no connection, nothing to exchange.
    const session = (await live.services.store.repos.linkSessions.findById(w.id))!;
    expect(session).toMatchObject({ mode: 'user_action', status: 'USER_ACTION', attempts: 0, connectionId: victimConn.connectionId });
    const token = (await live.services.store.repos.linkTokens.findByHash(hashToken(run.linkToken)))!;
    expect(token.usedAt).toBeNull();
    const connections = await api(live, victim, 'GET', '/api/connections');
    expect(connections.body.data.map((c: Json) => c.connectionId)).toEqual([victimConn.connectionId]);
    for (const publicToken of [run.linkToken, w.id, run.linkToken.replace(/^link-/, 'public-')]) {
      const ex = await api(live, victim, 'POST', '/api/connections/public_token/exchange', { publicToken });
      expect(ex.status).toBe(400);
      expect(ex.body.access_token).toBeUndefined();
    }
    expect((await cancel(victim, run.requestId)).status).toBe('CANCELED');
  });

  it('refuses input while the run works and on a later ask, and answers of a token whose ask is over (USER_ACTION_OVER)', async () => {
    const run = await pausedRun(victim, victimConn, { hold: true, twice: true });
    const person = widgetFor(live, run.linkToken);
    expect((await person.start()).status).toBe(200);
    const s = socket(person.id);
    await s.hello(run.linkToken);
    await s.until((m) => m.type === 'run' && m.state === 'waiting');
    const page = runPage(live, run.requestId);

    // Control: while this token's ask is open, its input reaches the page (the run sees the code and goes on).
    await s.typeInto(page, '#code', CODE);
    await eventually(
      async () => s.runState,
      (state) => state === 'working',
    );
    expect(await page.inputValue('#code')).toBe(CODE);
    expect(currentAsk(run.requestId)).toBeNull();

    // The run works now (held by the test): the same socket's clicks, keys and text do not reach the page.
    await s.typeInto(page, '#note', 'typed while the run works', 'both');
    s.send({ t: 'keydown', key: 'Backspace' });
    s.send({ t: 'keyup', key: 'Backspace' });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await page.inputValue('#note')).toBe('');
    expect(await page.inputValue('#code')).toBe(CODE);
    // Answered (the run saw the step done): the token answers nothing any more, from its session or a new one.
    expect(await person.answer('done')).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
    const again = widgetFor(live, run.linkToken);
    expect((await again.start()).body.userAction).toMatchObject({ state: 'over', reason: null, message: null });
    expect(await again.answer('done')).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
    // … nor opens a view of the run any more (its holder may still have this one open: it only shows the run going on).
    const late = socket(again.id);
    await late.hello(run.linkToken);
    await expectRefusedView(late, { over: true });

    // The run asks again, with a token of its own: the first token's socket cannot type into this ask either.
    holds.get(run.requestId)!();
    const second = await eventually(
      async () => currentAsk(run.requestId),
      (a) => a !== null,
    );
    expect(second!.linkToken).not.toBe(run.linkToken);
    await eventually(
      async () => s.messages.filter((m) => m.type === 'run').length,
      (n) => n >= 3, // waiting, working (resumed), working (the next ask is not this token's)
    );
    expect(s.runState).toBe('working');
    await s.typeInto(page, '#code2', CODE2, 'both');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await page.inputValue('#code2')).toBe('');
    expect(await again.answer('done')).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
    expect(currentAsk(run.requestId)?.linkToken).toBe(second!.linkToken);

    // Its own token answers it; once the run ended, that token answers nothing either.
    const next = widgetFor(live, second!.linkToken);
    expect((await next.start()).body.userAction).toMatchObject({ state: 'waiting', message: 'Enter the second code.' });
    expect((await next.answer('done')).status).toBe(200);
    const done = await requestWhen(live, victim, run.requestId, ['COMPLETED', 'FAILED']);
    expect(done).toMatchObject({ status: 'COMPLETED', result: { code: CODE, note: '', code2: '' } });
    const after = widgetFor(live, second!.linkToken);
    expect((await after.start()).body.userAction).toMatchObject({ state: 'over' });
    expect(await after.answer('done')).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
  });

  it('refuses the answer, a new session and a view of a token whose ask expired; the run ended USER_ACTION_EXPIRED', async () => {
    const desk = live.services.handoffs.desk as { ttlMs: number };
    const ttl = desk.ttlMs;
    desk.ttlMs = 5000;
    let run: Paused;
    try {
      run = await pausedRun();
    } finally {
      desk.ttlMs = ttl;
    }
    const person = widgetFor(live, run.linkToken);
    expect((await person.start()).status).toBe(200);
    const ended = await requestWhen(live, victim, run.requestId, ['FAILED', 'COMPLETED', 'CANCELED'], 30_000);
    expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'USER_ACTION_EXPIRED' } });
    const answered = await person.answer('done');
    expect(answered).toMatchObject({ status: 400, body: { error: { code: 'LINK_TOKEN_EXPIRED' } } });
    expect((await widgetFor(live, run.linkToken).start()).body.error.code).toBe('LINK_TOKEN_EXPIRED');
    const s = socket(person.id);
    await s.hello(run.linkToken);
    await expectRefusedView(s);
  });

  it("refuses foreign Origins on a paused run's live socket, as on the sign-in's", async () => {
    const run = await pausedRun();
    const w = widgetFor(live, run.linkToken);
    expect((await w.start()).status).toBe(200);
    const sandboxHost = new URL(live.siteUrl('orbit')).host;
    const refused: [string | undefined, string?][] = [
      [`http://${sandboxHost}`, sandboxHost], // the run's own provider page, served by this very server
      [`http://rebind.example:${live.port}`, `rebind.example:${live.port}`], // DNS rebinding: Origin = Host
      [`http://127.0.0.1:${live.port}`, `127.0.0.1:${live.port}`],
      ['https://evil.example'],
      ['null'],
      [''],
      [undefined],
      [`${live.baseUrl}/`],
    ];
    for (const [origin, host] of refused)
      expect({ origin, status: await upgradeStatus(live, w.id, origin, host) }).toEqual({ origin, status: 403 });
    // A hello never gets as far as a socket from a foreign origin; from the widget's own, it is the run's view.
    const s = socket(w.id);
    await s.hello(run.linkToken);
    await s.until((m) => m.type === 'run' && m.state === 'waiting');
    expect(await upgradeStatus(live, w.id, live.baseUrl)).toBe(101);
    expect((await cancel(victim, run.requestId)).status).toBe('CANCELED');
  });

  it('keeps the link token out of every row and file at rest (sealed or hashed) and out of the logs', async () => {
    const hook = await api(live, victim, 'POST', '/api/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['AGENT_REQUEST.NEEDS_USER'],
    });
    expect(hook.status).toBe(201);
    const run = await pausedRun();
    const { linkToken } = run;
    const secretPart = linkToken.replace(/^link-sandbox-/, '');
    // The person opens the hosted link (the token in its URL), the widget starts and watches, then answers.
    expect((await fetch(run.url)).status).toBe(200);
    const w = widgetFor(live, linkToken);
    expect((await w.start()).status).toBe(200);
    const s = socket(w.id);
    await s.hello(linkToken);
    await s.until((m) => m.type === 'run' && m.state === 'waiting');
    await live.services.webhookEvents.idle();

    // The row: sealed, bound to its request; the token is there only once opened.
    const row = (await live.services.store.repos.agentRequests.findById(run.requestId))!;
    expect(row.sealedUserAction).toMatch(/^v1\./);
    expect(live.services.userActions.open(row)?.linkToken).toBe(linkToken);
    // The link token: its hash only.
    const tokenRow = (await live.services.store.repos.linkTokens.findByHash(hashToken(linkToken)))!;
    expect(tokenRow.agentRequestId).toBe(run.requestId);
    // The webhook event: sealed at rest; the token is in it once opened (what the organization receives).
    const events = await live.services.store.repos.webhookEvents.listOwned({
      organizationId: victim.organizationId,
      environment: 'sandbox',
    });
    const needsUser = events.filter((e) => e.type === 'AGENT_REQUEST.NEEDS_USER');
    const ours = needsUser.filter((e) => live.services.webhookPayloads.open(e).includes(run.requestId));
    expect(ours).toHaveLength(1);
    expect(ours[0].payload).toMatch(/^v1\./);
    expect(live.services.webhookPayloads.open(ours[0])).toContain(linkToken);

    // Every table of the database: not the token, not its secret part.
    const db = live.services.store.dataSource;
    const tables = (await db.query("SELECT name FROM sqlite_master WHERE type = 'table'")) as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['agent_requests', 'link_tokens', 'link_sessions', 'webhook_events']));
    for (const { name } of tables) {
      const dump = JSON.stringify(await db.query(`SELECT * FROM "${name}"`));
      expect({ table: name, holdsToken: dump.includes(secretPart) }).toEqual({ table: name, holdsToken: false });
    }
    // Every file of the data directory (the database, its WAL, the key file …), byte for byte.
    const files = (fs.readdirSync(live.dataDir, { recursive: true }) as string[])
      .map((f) => path.join(live.dataDir, f))
      .filter((f) => fs.statSync(f).isFile());
    expect(files.some((f) => f.endsWith('.sqlite'))).toBe(true);
    for (const file of files) {
      expect({ file, holdsToken: fs.readFileSync(file).includes(secretPart) }).toEqual({ file, holdsToken: false });
    }

    // The logs: the request log of the hosted link and of the widget's calls, the widget's steps, the worker.
    expect((await w.answer('done')).status).toBe(200);
    await requestWhen(live, victim, run.requestId, ['COMPLETED', 'FAILED']);
    const logged = logLines.join('\n');
    expect(logged).toContain(w.id); // the capture works: the widget's steps are logged by session id
    expect(logged).toContain('/link?token=');
    expect(logged).not.toContain(secretPart);
  });

  it('refuses decisions outside done/approve/deny, unknown fields and bodies over the limit; nothing is decided', async () => {
    const run = await pausedRun();
    const w = widgetFor(live, run.linkToken);
    expect((await w.start()).status).toBe(200);
    const send = async (body: string, type = 'application/json') => {
      const res = await fetch(`${live.baseUrl}/link/api/sessions/${w.id}/user-action`, {
        method: 'POST',
        headers: { authorization: `Bearer ${run.linkToken}`, 'content-type': type },
        body,
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    for (const decision of ['exit', 'DONE', 'yes', '', null, 1, true, ['done'], { decision: 'done' }]) {
      const res = await send(JSON.stringify({ decision }));
      expect({ decision, status: res.status, code: res.body.error?.code }).toEqual({ decision, status: 400, code: 'INVALID_FIELD' });
    }
    for (const body of ['{}', JSON.stringify({ decision: 'done', force: true }), '{"decision":"done","__proto__":{"x":1}}', '[]']) {
      const res = await send(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    expect((await send('done', 'text/plain')).status).toBe(415);
    const limit = live.services.config.bodyLimitBytes;
    const big = await send(JSON.stringify({ decision: 'done', pad: 'x'.repeat(limit) }));
    expect(big.status).toBe(413);
    // Still waiting on the same ask, and the session still at its step.
    expect(currentAsk(run.requestId)?.linkToken).toBe(run.linkToken);
    expect((await live.services.store.repos.linkSessions.findById(w.id))!.status).toBe('USER_ACTION');
    expect((await cancel(victim, run.requestId)).status).toBe('CANCELED');
  });

  it('refuses approve or deny on a CODE ask and done on an APPROVAL ask (LINK_STEP_NOT_ALLOWED); the ask stays open', async () => {
    const run = await pausedRun();
    const w = widgetFor(live, run.linkToken);
    expect((await w.start()).status).toBe(200);
    for (const decision of ['approve', 'deny']) {
      const res = await w.answer(decision);
      expect({ decision, status: res.status, code: res.body.error?.code }).toEqual({
        decision,
        status: 409,
        code: 'LINK_STEP_NOT_ALLOWED',
      });
    }
    expect(currentAsk(run.requestId)?.linkToken).toBe(run.linkToken);
    // The right answer still goes through: the run goes on (the code box is empty: the playbook returns what it reads).
    expect((await w.answer('done')).status).toBe(200);
    expect(await requestWhen(live, victim, run.requestId, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED' });

    // A write held for approval (the real orbit.create-post): "done" does not send it.
    const text = `Held ${Date.now()}`;
    const requestId = await createRequest(live, victim, {
      accessToken: victimConn.accessToken,
      action: 'Create a post',
      playbook: 'orbit.create-post',
      parameters: { text },
      approval: 'writes',
      startingUrl: live.siteUrl('orbit', '/'),
      responseFormat: { text: 'string', url: 'url?' },
    });
    const waiting = await requestWhen(live, victim, requestId, ['NEEDS_USER', 'FAILED', 'COMPLETED']);
    expect(waiting.userAction).toMatchObject({ reason: 'APPROVAL' });
    const a = widgetFor(live, waiting.userAction.linkToken);
    expect((await a.start()).status).toBe(200);
    const done = await a.answer('done');
    expect(done).toMatchObject({ status: 409, body: { error: { code: 'LINK_STEP_NOT_ALLOWED' } } });
    expect(currentAsk(requestId)?.reason).toBe('APPROVAL');
    const posts = async () =>
      (await live.services.store.repos.sandboxDocs.list(tenantFor(victim.organizationId), 'orbit', 'post')).filter((d) =>
        String(d.data.text ?? '').includes(text),
      ).length;
    expect(await posts()).toBe(0);
    expect((await a.answer('deny')).status).toBe(200);
    expect(await requestWhen(live, victim, requestId, ['COMPLETED', 'FAILED'])).toMatchObject({
      status: 'FAILED',
      error: { code: 'DENIED_BY_USER' },
    });
    expect(await posts()).toBe(0);
  });

  describe("the held write's summary (what the person and the caller are shown)", () => {
    const USERNAME = 'user_good';
    const PASSWORD = 'pass_good';
    const TEXT = 'Meet me at the harbour at noon';
    const RECIPIENT = 'Priya Nair';
    /** A session cookie's value as the sandbox makes them (32 random bytes, base64url), and a CSRF token. */
    const COOKIE = 'q3V9xT0bL7mZ2wK8rP4nJ6hD1fG5sA0cE9uY3iO7kWz';
    const CSRF = 'Zx81Qw72Er63Ty54Ui45Op36As27Df18';
    const state = {
      secrets: [USERNAME, PASSWORD],
      record: { parameters: { text: TEXT, to: RECIPIENT, count: 3 } },
    } as unknown as Pick<RunState, 'secrets' | 'record'>;
    const held = (contentType: string, body: string | Buffer, url = 'https://orbit.example/api/send'): HeldWrite => ({
      method: 'POST',
      url,
      realm: 'page',
      contentType,
      body: Buffer.from(body),
    });
    const inClear = [USERNAME, PASSWORD, TEXT, RECIPIENT, COOKIE, CSRF];
    const expectNothingInClear = (summary: unknown) => {
      const shown = JSON.stringify(summary);
      for (const secret of inClear) expect({ secret, shown: shown.includes(secret) }).toEqual({ secret, shown: false });
    };
    const field = (summary: { fields: { name: string; value: string }[] }, name: string) =>
      summary.fields.find((f) => f.name === name)?.value;

    it('masks a form body: the password, the sign-in name, CSRF and cookie values, parameters by name', () => {
      const body = new URLSearchParams({
        _csrf: CSRF,
        username: USERNAME,
        password: PASSWORD,
        text: TEXT,
        to: RECIPIENT,
        note: `my password is ${PASSWORD}, my handle ${USERNAME}`,
        authenticity_token: CSRF,
        session: COOKIE,
        echoed: COOKIE,
      }).toString();
      const summary = summarizeHeldWrite(
        held(
          'application/x-www-form-urlencoded',
          body,
          `https://orbit.example/api/send?to=${encodeURIComponent(RECIPIENT)}&sid=${COOKIE}&pw=${PASSWORD}`,
        ),
        state,
      );
      expectNothingInClear(summary);
      expect(field(summary, 'password')).toBe(MASK);
      expect(field(summary, '_csrf')).toBe(MASK);
      expect(field(summary, 'text')).toBe('{{parameters.text}}');
      expect(field(summary, 'to')).toBe('{{parameters.to}}');
      expect(field(summary, 'note')).toBe('my password is [secret], my handle [secret]');
      expect(summary.url).toBe('https://orbit.example/api/send?to={{parameters.to}}&sid=[token]&pw=[secret]');
    });

    it('masks a JSON body, whatever the path or the escaping', () => {
      const body = JSON.stringify({
        account: { user: USERNAME, secret: PASSWORD },
        message: { text: TEXT, to: [RECIPIENT] },
        meta: { hint: PASSWORD.replace('p', '\\u0070') },
        headers: { 'X-CSRF-Token': CSRF, cookie: `sid=${COOKIE}` },
        blob: COOKIE,
      }).replace('\\\\u0070', '\\u0070');
      const summary = summarizeHeldWrite(held('application/json', body), state);
      expectNothingInClear(summary);
      expect(field(summary, 'account.secret')).toBe(MASK);
      expect(field(summary, 'account.user')).toBe('[secret]');
      expect(field(summary, 'message.text')).toBe('{{parameters.text}}');
      expect(field(summary, 'message.to[0]')).toBe('{{parameters.to}}');
      expect(field(summary, 'meta.hint')).toBe('[secret]');
      expect(field(summary, 'headers.X-CSRF-Token')).toBe(MASK);
      expect(field(summary, 'blob')).toBe('[token]');
    });

    it('masks a multipart body: fields and a file named like the password (its bytes are never shown)', () => {
      const boundary = '----agentlinkBoundary7MA4YWxk';
      const part = (name: string, value: string, filename?: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n` +
        `${filename ? 'Content-Type: text/plain\r\n' : ''}\r\n${value}\r\n`;
      const body =
        part('csrf_token', CSRF) +
        part('login', USERNAME) +
        part('pass', PASSWORD) +
        part('caption', `${TEXT} (for ${RECIPIENT})`) +
        part('upload', `password=${PASSWORD}\ncookie=${COOKIE}`, `${PASSWORD}.txt`) +
        `--${boundary}--\r\n`;
      const summary = summarizeHeldWrite(held(`multipart/form-data; boundary=${boundary}`, body), state);
      expectNothingInClear(summary);
      expect(field(summary, 'csrf_token')).toBe(MASK);
      expect(field(summary, 'pass')).toBe(MASK);
      expect(field(summary, 'login')).toBe('[secret]');
      expect(field(summary, 'caption')).toBe('{{parameters.text}} (for {{parameters.to}})');
      expect(field(summary, 'upload')).toMatch(/^<file \[secret\]\.txt, \d+ bytes>$/);
    });

    it("masks the run's cookie values copied into a field with a neutral name (a lowercase session id is no token shape)", () => {
      const sid = 'a3f09c4e7b1d2e5f';
      const summary = summarizeHeldWrite(held('application/x-www-form-urlencoded', `ref=${sid}&text=hello`), state, [sid]);
      expect(JSON.stringify(summary)).not.toContain(sid);
      expect(field(summary, 'ref')).toBe('[secret]');
    });
  });
});
