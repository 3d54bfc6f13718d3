import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { createHealthScheduler, type HealthScheduler } from '../../server/agent/health';
import { ManualClock } from '../../server/domain/clock';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { createLogger } from '../../server/logger';
import type { Owner } from '../../server/store';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { reauthenticateThroughWidget } from '../support/widget-api';
import { api, connectOrbit, eventually, type Json, type LiveOrg, liveOrg } from './agent-support';

/**
 * A provider site whose signed-in home page writes as soon as it loads (a fetch POST and a beacon): the writes that
 * reach it are counted. Without its session cookie it sends the browser to /login.
 */
function startWritingSite(): Promise<{ server: http.Server; origin: string; writes: string[] }> {
  const writes: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET') {
      writes.push(`${req.method} ${req.url}`);
      return void res.writeHead(204).end();
    }
    if (req.url === '/login') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Sign in</h1>');
    if (!(req.headers.cookie ?? '').includes('w_session=ok')) return void res.writeHead(302, { location: '/login' }).end();
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<!doctype html><html><head><script>fetch("/track", { method: "POST", body: "seen" }); navigator.sendBeacon("/beacon", "seen");</script></head>' +
          '<body><nav id="account">Ada</nav></body></html>',
      );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, writes })),
  );
}

/**
 * Health checks end to end: a live AgentLink, real Chromium, the Orbit sandbox site, and the sandbox's user_expiring
 * (whose sessions last 60 s by the service's clock). The clock is moved, not waited for; the scheduler's passes are
 * run one at a time so each test sees exactly the checks it caused.
 *   - a live session: SIGNED_IN, lastCheckedAt and lastCheckOutcome on the connection, the session sealed back, the status unchanged;
 *   - an expired one without stored credentials: LOGIN_REQUIRED and CONNECTION.LOGIN_REQUIRED, then update mode
 *     through the widget's API brings it back: CONNECTION.RECOVERED;
 *   - an expired one with stored credentials: renewed by a silent re-login, CONNECTION.SESSION_RENEWED;
 *   - POST …/check on a LOGIN_REQUIRED connection that can be renewed: RENEWED, then RECOVERED;
 *   - a provider whose home page writes on load: the check loads its document (an element is its signed-in signal)
 *     and not one write reaches the site (the read-mode gate at the egress proxy).
 */
jest.setTimeout(60_000);

const INTERVAL_SECONDS = 3600;
/** Past any jittered due time of a check planned now (interval × 1.1). */
const PAST_DUE_MS = INTERVAL_SECONDS * 1.2 * 1000;

let live: LiveServer;
let clock: ManualClock;
let org: LiveOrg;
let owner: Owner;
let scheduler: HealthScheduler;
let site: Awaited<ReturnType<typeof startWritingSite>>;

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  site = await startWritingSite();
  live = await startLiveServer({ clock, env: { AGENTLINK_HEALTH_CHECK_INTERVAL_SECONDS: String(INTERVAL_SECONDS) } });
  scheduler = createHealthScheduler(live.services, createLogger('silent'))!;
  org = await liveOrg(live, 'Health Org');
  owner = { organizationId: org.organizationId, environment: 'sandbox' };
  // Every event type is stored for this organization (the dispatcher is not running: the rows are what is checked).
  const hook = await api(live, org, 'POST', '/api/webhooks', {
    url: 'http://127.0.0.1:9/hooks',
    events: ['CONNECTION.LOGIN_REQUIRED', 'CONNECTION.SESSION_RENEWED', 'CONNECTION.RECOVERED'],
  });
  expect(hook.status).toBe(201);
});

afterAll(async () => {
  await scheduler?.stop();
  await live?.services.loginEngine.close();
  await live?.services.browsers.close();
  await live?.close();
  await new Promise((resolve) => site?.server.close(resolve));
});

/** Runs passes until nothing is due (each pass claims only up to the free slots), each check to its end. */
async function runDueChecks(): Promise<number> {
  let started = 0;
  for (let n = await scheduler.pass(); n > 0; n = await scheduler.pass()) {
    started += n;
    await scheduler.idle();
  }
  return started;
}

/** Plans the new connections, moves past their due time, runs the due checks. */
async function checkDueConnections(): Promise<number> {
  await scheduler.pass();
  clock.advance(PAST_DUE_MS);
  return runDueChecks();
}

async function eventsOf(connectionId: string): Promise<{ type: string; object: Json }[]> {
  await live.services.webhookEvents.idle();
  const rows = await live.services.store.repos.webhookEvents.listOwned(owner);
  return rows
    .reverse()
    .map((r) => JSON.parse(r.payload) as { type: string; object: Json })
    .filter((e) => e.object.connectionId === connectionId);
}

async function connectionOf(connectionId: string): Promise<Json> {
  const res = await api(live, org, 'GET', `/api/connections/${connectionId}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** A connection of user_expiring with its real site session, and its credentials stored (the widget's rememberCredentials). */
async function expiringWithCredentials(clientUserId: string): Promise<string> {
  const session = await live.services.siteSessions.mint(owner, 'orbit', 'user_expiring');
  const created = await live.services.connections.create(owner, {
    providerId: ORBIT_PROVIDER_ID,
    clientUserId,
    session,
    credentials: { username: 'user_expiring', password: 'pass_good' },
  });
  return created.connection.id;
}

it('a live session: SIGNED_IN on the connection, its session sealed back, nothing else changed', async () => {
  const { connectionId } = await connectOrbit(live, org, 'healthy-user');
  const before = (await live.services.store.repos.connections.findById(connectionId))!;
  expect(await checkDueConnections()).toBeGreaterThanOrEqual(1);
  const after = (await live.services.store.repos.connections.findById(connectionId))!;
  expect(after).toMatchObject({
    status: 'ACTIVE',
    lastCheckOutcome: 'SIGNED_IN',
    lastUsedAt: null,
    checkOwner: null,
    checkLeaseUntil: null,
  });
  expect(after.sealedSession).not.toBe(before.sealedSession);
  // The next check is one jittered interval on.
  const nextIn = after.nextCheckAt!.getTime() - after.lastCheckedAt!.getTime();
  expect(nextIn).toBeGreaterThanOrEqual(INTERVAL_SECONDS * 900);
  expect(nextIn).toBeLessThanOrEqual(INTERVAL_SECONDS * 1100);
  const body = await connectionOf(connectionId);
  expect(body).toMatchObject({ status: 'ACTIVE', lastCheckedAt: after.lastCheckedAt!.toISOString(), lastCheckOutcome: 'SIGNED_IN' });
  expect(await eventsOf(connectionId)).toEqual([]);
});

it('user_expiring without credentials: LOGIN_REQUIRED and its event; update mode through the widget: RECOVERED', async () => {
  // The sandbox shortcut signs user_expiring in: its site session ends 60 s later by the service's clock.
  const pt = await api(live, org, 'POST', '/api/sandbox/public_token/create', {
    providerId: ORBIT_PROVIDER_ID,
    clientUserId: 'expiring-only',
    username: 'user_expiring',
  });
  const ex = await api(live, org, 'POST', '/api/connections/public_token/exchange', { publicToken: pt.body.publicToken });
  const expiring = ex.body.connectionId as string;

  await checkDueConnections();
  const marked = await connectionOf(expiring);
  expect(marked).toMatchObject({ status: 'LOGIN_REQUIRED', lastCheckOutcome: 'LOGIN_REQUIRED' });
  expect((await eventsOf(expiring)).map((e) => e.type)).toEqual(['CONNECTION.LOGIN_REQUIRED']);
  expect((await eventsOf(expiring))[0]!.object).toMatchObject({ status: 'LOGIN_REQUIRED', lastCheckOutcome: 'LOGIN_REQUIRED' });
  // An agent request is refused until the user comes back.
  const refused = await api(live, org, 'POST', '/api/agent-requests', {
    accessToken: ex.body.access_token,
    action: 'Read my profile',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { name: 'string' },
  });
  expect(refused.body.error?.code).toBe('CONNECTION_LOGIN_REQUIRED');
  // The scheduler leaves a LOGIN_REQUIRED connection alone.
  clock.advance(PAST_DUE_MS);
  await runDueChecks();
  expect((await connectionOf(expiring)).lastCheckedAt).toEqual(marked.lastCheckedAt);

  await reauthenticateThroughWidget(live.baseUrl, org.headers, {
    connectionId: expiring,
    clientUserId: 'expiring-only',
    username: 'user_expiring',
  });
  const recovered = await connectionOf(expiring);
  expect(recovered.status).toBe('ACTIVE');
  expect((await eventsOf(expiring)).map((e) => e.type)).toEqual(['CONNECTION.LOGIN_REQUIRED', 'CONNECTION.RECOVERED']);
  expect((await eventsOf(expiring))[1]!.object).toMatchObject({ connectionId: expiring, status: 'ACTIVE' });
  // Planned afresh: checked again one interval after the recovery.
  expect((await live.services.store.repos.connections.findById(expiring))!.nextCheckAt).toBeNull();
});

it('user_expiring with stored credentials: renewed by a silent re-login, SESSION_RENEWED, still ACTIVE', async () => {
  const connectionId = await expiringWithCredentials('renewable-user');
  const before = (await live.services.store.repos.connections.findById(connectionId))!;
  await checkDueConnections();
  const after = (await live.services.store.repos.connections.findById(connectionId))!;
  expect(after).toMatchObject({ status: 'ACTIVE', lastCheckOutcome: 'RENEWED' });
  expect(after.sealedSession).not.toBe(before.sealedSession);
  const events = await eventsOf(connectionId);
  expect(events.map((e) => e.type)).toEqual(['CONNECTION.SESSION_RENEWED']);
  expect(events[0]!.object).toMatchObject({ status: 'ACTIVE', lastCheckOutcome: 'RENEWED' });
  // No secret in what the organization is told.
  expect(JSON.stringify(events)).not.toMatch(/pass_good|sealed|orbit_sid/);
  // The renewed session is a live one: a check asked for now finds it signed in.
  clock.advance(20_000);
  const now = await api(live, org, 'POST', `/api/connections/${connectionId}/check`);
  expect(now.status).toBe(200);
  expect(now.body).toMatchObject({
    outcome: 'SIGNED_IN',
    connection: { connectionId, status: 'ACTIVE', lastCheckOutcome: 'SIGNED_IN' },
  });
});

it('POST …/check on a LOGIN_REQUIRED connection that can be renewed: RENEWED, then RECOVERED', async () => {
  const connectionId = await expiringWithCredentials('comeback-user');
  await live.services.connections.markLoginRequired(connectionId);
  clock.advance(61_000);
  const res = await api(live, org, 'POST', `/api/connections/${connectionId}/check`);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ outcome: 'RENEWED', connection: { status: 'ACTIVE', lastCheckOutcome: 'RENEWED' } });
  expect(res.body.durationMs).toBeGreaterThan(0);
  // (The renewal's two events share one instant of the test clock: compared as a set.)
  expect((await eventsOf(connectionId)).map((e) => e.type).sort()).toEqual([
    'CONNECTION.LOGIN_REQUIRED',
    'CONNECTION.RECOVERED',
    'CONNECTION.SESSION_RENEWED',
  ]);
  // Asked again at once: refused, with when to come back.
  const again = await fetch(`${live.baseUrl}/api/connections/${connectionId}/check`, { method: 'POST', headers: org.headers });
  expect(again.status).toBe(429);
  expect(again.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(((await again.json()) as Json).error.code).toBe('CONNECTION_CHECK_RATE_LIMITED');
});

it('a provider whose home page writes on load: SIGNED_IN from its document, and no write reaches the site', async () => {
  const declared = await api(live, org, 'POST', '/api/providers', {
    name: 'Writer',
    slug: 'writer',
    category: 'developer',
    homeUrl: `${site.origin}/`,
    loginUrl: `${site.origin}/login`,
    allowedOrigins: ['127.0.0.1'],
    logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><circle cx="4" cy="4" r="4"/></svg>',
    signedIn: { cookies: ['w_session'], element: '#account' },
  });
  expect(declared.status).toBe(201);
  const cookie = { name: 'w_session', value: 'ok', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false };
  const session = { cookies: [{ ...cookie, sameSite: 'Lax' as const }], origins: [] };
  const created = await live.services.connections.create(owner, {
    providerId: declared.body.providerId,
    clientUserId: 'writer-user',
    session,
  });

  // The page does write when nothing stops it (so the assertion below is not vacuous).
  const control = await live.services.browsers.newContext({ storageState: session });
  const page = await control.newPage();
  await page.goto(`${site.origin}/`);
  // Both of its writes (the fetch and the beacon) arrived: none can come later and count against the check below.
  await eventually(
    async () => site.writes.length,
    (n) => n >= 2,
  );
  await control.close();
  expect(site.writes.length).toBeGreaterThan(0);
  site.writes.length = 0;

  clock.advance(20_000);
  const res = await api(live, org, 'POST', `/api/connections/${created.connection.id}/check`);
  expect(res.body).toMatchObject({ outcome: 'SIGNED_IN', connection: { status: 'ACTIVE' } });
  await new Promise((r) => setTimeout(r, 300));
  expect(site.writes).toEqual([]);
});
