import fs from 'node:fs';
import path from 'node:path';

import { generateToken, hashToken } from '../../server/domain/tokens';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { api, type Json } from '../agent/agent-support';
import { requestWhen, upgradeStatus, widgetFor } from '../agent-handoff/handoff-support';
import {
  attacker,
  attackerConn,
  cancel,
  currentAsk,
  expectRefusedView,
  live,
  logLines,
  pausedRun,
  socket,
  useUserActionServer,
  victim,
  victimConn,
} from './user-action-support';

/**
 * Attacks on a paused run's widget (a run NEEDS_USER, its person brought in by userAction.linkToken): a real AgentLink
 * with its worker, real Chromium, the Orbit sandbox. A test playbook puts a code box (and a note field) on the run's
 * own page and asks the person; the attacks go through the widget's HTTP API and the live view's socket, as a browser
 * (or anything else) could send them. This file: who may use a token and where it goes:
 *   - another organization's token, another run's token or link session, a token row naming another owner's run;
 *   - a user-action token driven through the connect flow (consent, provider, credentials …, live finish, exchange);
 *   - a foreign Origin on the run view's socket; the token at rest and in the logs.
 * The asks' lifecycle and the decisions: user-action-asks.security.test.ts (same category).
 */
jest.setTimeout(120_000);

useUserActionServer();

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
});
