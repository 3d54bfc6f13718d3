import type { BrowserContext, Page } from 'playwright-core';

import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { SANDBOX_SMS_CODE } from '../../server/sandbox/test-users';
import type { Owner } from '../../server/store';
import { api, createRequest, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { requestWhen, runPage } from './handoff-support';

/**
 * The login engine pausing inside a run: a connection of user_sms (whose sign-in asks for a code sent by SMS) with its
 * credentials stored, whose provider session died. The run lands on Orbit's sign-in page; the silent re-login signs in
 * with the stored credentials, meets the code step and, inside a run, hands that very sign-in page to the person: the
 * run waits NEEDS_USER (CODE). Real AgentLink, real Chromium, the Orbit sandbox; the test plays the person through the
 * hosted widget (userAction.url), acting only on its streamed canvas.
 *   - the person types the code and submits: the run resumes, reads the profile, the renewed session is sealed
 *     (CONNECTION.SESSION_RENEWED) and the connection stays ACTIVE; the next run needs no re-login;
 *   - the person leaves ("I can't do this"), the ask expires, or the run is canceled: the run ends with that outcome
 *     and the connection is not marked LOGIN_REQUIRED (the provider refused nothing: the person declined, for now).
 */
jest.setTimeout(150_000);

let live: LiveServer;
let org: LiveOrg;
let owner: Owner;
let context: BrowserContext;

beforeAll(async () => {
  live = await startLiveServer({ worker: true, env: { AGENTLINK_USER_ACTION_TTL_SECONDS: '90' } });
  org = await liveOrg(live, 'Relogin Org');
  owner = { organizationId: org.organizationId, environment: 'sandbox' };
  const hook = await api(live, org, 'POST', '/api/webhooks', {
    url: 'http://127.0.0.1:9/hooks',
    events: ['CONNECTION.SESSION_RENEWED', 'CONNECTION.LOGIN_REQUIRED'],
  });
  expect(hook.status).toBe(201);
});

afterAll(async () => {
  await live?.services.loginEngine.close();
  await live?.close();
});

beforeEach(async () => {
  context = await live.services.browsers.newContext({ viewport: { width: 480, height: 900 } });
  context.setDefaultTimeout(30_000);
});

afterEach(async () => {
  await context?.close();
});

/**
 * A connection of user_sms made with a real site session and its credentials stored (the widget's rememberCredentials),
 * whose session the site then forgets (as when it expires): only a sign-in brings it back, and that one asks a code.
 */
async function smsConnectionWithDeadSession(clientUserId: string): Promise<{ connectionId: string; accessToken: string }> {
  const session = await live.services.siteSessions.mint(owner, 'orbit', 'user_sms');
  const created = await live.services.connections.create(owner, {
    providerId: ORBIT_PROVIDER_ID,
    clientUserId,
    session,
    credentials: { username: 'user_sms', password: 'pass_good' },
  });
  const ex = await api(live, org, 'POST', '/api/connections/public_token/exchange', { publicToken: created.publicToken });
  expect(ex.status).toBe(200);
  await live.services.store.dataSource.query('DELETE FROM sandbox_sessions WHERE tenant = ?', [tenantFor(org.organizationId)]);
  return { connectionId: created.connection.id, accessToken: ex.body.access_token };
}

const readProfile = (accessToken: string) =>
  createRequest(live, org, {
    accessToken,
    action: 'Read my profile',
    playbook: 'orbit.read-my-profile',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { name: 'string', username: 'string' },
  });

const final = (requestId: string) => requestWhen(live, org, requestId, ['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT'], 60_000);

const connectionRow = async (connectionId: string) => (await live.services.store.repos.connections.findById(connectionId))!;

async function connectionEvents(connectionId: string): Promise<string[]> {
  await live.services.webhookEvents.idle();
  const rows = await live.services.store.repos.webhookEvents.listOwned(owner);
  return rows
    .reverse()
    .map((r) => JSON.parse(live.services.webhookPayloads.open(r)) as { type: string; object: Json })
    .filter((e) => e.object.connectionId === connectionId)
    .map((e) => e.type);
}

/** The run waits for its person on the sign-in page's code step. */
async function waitingOnTheCode(requestId: string): Promise<Json> {
  const waiting = await requestWhen(live, org, requestId, ['NEEDS_USER', 'COMPLETED', 'FAILED'], 60_000);
  expect(waiting).toMatchObject({
    status: 'NEEDS_USER',
    userAction: {
      reason: 'CODE',
      message: 'Orbit asks for a verification code to sign you in again. Enter it on the page.',
      linkToken: expect.stringMatching(/^link-sandbox-/),
      url: expect.stringContaining('/link?token='),
      write: null,
    },
  });
  // The page the person is handed is Orbit's own code step of that sign-in.
  const page = runPage(live, requestId);
  expect(new URL(page.url()).pathname).toBe('/login/sms');
  return waiting;
}

async function openWidget(url: string): Promise<Page> {
  const widget = await context.newPage();
  await widget.goto(url);
  await widget.locator('#al-live-canvas').waitFor({ state: 'visible' });
  await widget.waitForFunction(() => ((window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive?.frames ?? 0) >= 1);
  return widget;
}

/** Clicks what `selector` finds on the run's (sign-in) page, through the widget's scaled canvas. */
async function clickThroughWidget(widget: Page, requestId: string, selector: string): Promise<void> {
  const page = runPage(live, requestId);
  const box = (await page.locator(selector).boundingBox())!;
  const viewport = page.viewportSize()!;
  const canvas = (await widget.locator('#al-live-canvas').boundingBox())!;
  await widget.mouse.click(
    canvas.x + ((box.x + box.width / 2) * canvas.width) / viewport.width,
    canvas.y + ((box.y + box.height / 2) * canvas.height) / viewport.height,
  );
}

it('pauses on the code step of a silent re-login; the person types the code in the widget, the run resumes and the renewed session is sealed', async () => {
  const conn = await smsConnectionWithDeadSession('sms-done');
  const before = await connectionRow(conn.connectionId);
  const requestId = await readProfile(conn.accessToken);
  const waiting = await waitingOnTheCode(requestId);

  const widget = await openWidget(waiting.userAction.url);
  await expect(widget.locator('#al-task-message').textContent()).resolves.toBe(waiting.userAction.message);
  await clickThroughWidget(widget, requestId, 'input[name="code"]');
  await widget.keyboard.type(SANDBOX_SMS_CODE, { delay: 20 });
  await widget.keyboard.press('Enter');

  const done = await final(requestId);
  expect(done).toMatchObject({ status: 'COMPLETED', userAction: null, result: { name: 'Sasha Mendes', username: 'user_sms' } });
  // One re-login, which waited for the person, who finished it; nothing ran twice.
  expect(done.trace.filter((s: Json) => s.tool === 'relogin')).toEqual([expect.objectContaining({ outcome: 'ok' })]);
  expect(done.trace.filter((s: Json) => s.tool === 'user')).toEqual([
    expect.objectContaining({ outcome: 'ok', target: expect.stringContaining('CODE') }),
  ]);
  await widget.getByRole('heading', { name: /Thanks!/ }).waitFor();

  // The connection: still ACTIVE, its renewed session sealed (the organization told), the sign-in's page closed.
  const after = await connectionRow(conn.connectionId);
  expect(after.status).toBe('ACTIVE');
  expect(after.sealedSession).not.toBe(before.sealedSession);
  expect(live.services.connections.openSession(after)!.cookies.length).toBeGreaterThan(0);
  expect(await connectionEvents(conn.connectionId)).toContain('CONNECTION.SESSION_RENEWED');
  expect(await connectionEvents(conn.connectionId)).not.toContain('CONNECTION.LOGIN_REQUIRED');

  // The next run is signed in by the renewed session: no re-login, nobody asked.
  const next = await final(await readProfile(conn.accessToken));
  expect(next).toMatchObject({ status: 'COMPLETED', result: { name: 'Sasha Mendes' } });
  expect(next.trace.some((s: Json) => s.tool === 'relogin' || s.tool === 'user')).toBe(false);
});

it('the person leaves: the run ends USER_ACTION_EXITED, and the connection is not marked LOGIN_REQUIRED for it', async () => {
  const conn = await smsConnectionWithDeadSession('sms-exit');
  const before = await connectionRow(conn.connectionId);
  const requestId = await readProfile(conn.accessToken);
  const waiting = await waitingOnTheCode(requestId);
  const widget = await openWidget(waiting.userAction.url);
  await widget.getByRole('button', { name: 'I can’t do this' }).click();

  const ended = await final(requestId);
  expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'USER_ACTION_EXITED' }, userAction: null });
  expect(ended.trace.filter((s: Json) => s.tool === 'user')).toEqual([
    expect.objectContaining({ outcome: 'error', error: 'the user left' }),
  ]);
  // The person declined the code step, for now: the stored credentials were not refused, the connection stays ACTIVE
  // (the next run asks again), and the dead session was not sealed back over the one it had.
  const after = await connectionRow(conn.connectionId);
  expect(after).toMatchObject({ status: 'ACTIVE', lastUsedAt: null });
  expect(after.sealedSession).toBe(before.sealedSession);
  expect(await connectionEvents(conn.connectionId)).not.toContain('CONNECTION.LOGIN_REQUIRED');
  expect((await api(live, org, 'GET', `/api/connections/${conn.connectionId}`)).body.status).toBe('ACTIVE');

  // It does ask again: a new run of the same connection pauses on the code step once more.
  const again = await readProfile(conn.accessToken);
  await waitingOnTheCode(again);
  await api(live, org, 'POST', `/api/agent-requests/${again}/cancel`);
  expect((await final(again)).status).toBe('CANCELED');
  // Canceled while it waited for the code: not LOGIN_REQUIRED either.
  expect((await connectionRow(conn.connectionId)).status).toBe('ACTIVE');
  expect(await connectionEvents(conn.connectionId)).not.toContain('CONNECTION.LOGIN_REQUIRED');
});

it('the code step expires unanswered: the run ends USER_ACTION_EXPIRED, and the connection is not marked LOGIN_REQUIRED', async () => {
  const conn = await smsConnectionWithDeadSession('sms-expired');
  const desk = live.services.handoffs.desk as { ttlMs: number };
  const ttl = desk.ttlMs;
  // 8 s: long enough for a loaded machine to see the pause (and start a session on it) before it expires.
  desk.ttlMs = 8000;
  let requestId: string;
  try {
    requestId = await readProfile(conn.accessToken);
    await waitingOnTheCode(requestId);
  } finally {
    desk.ttlMs = ttl;
  }
  expect(await final(requestId)).toMatchObject({ status: 'FAILED', error: { code: 'USER_ACTION_EXPIRED' } });
  expect((await connectionRow(conn.connectionId)).status).toBe('ACTIVE');
  expect(await connectionEvents(conn.connectionId)).not.toContain('CONNECTION.LOGIN_REQUIRED');
});
