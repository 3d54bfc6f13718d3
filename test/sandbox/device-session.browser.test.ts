import { chromeUserAgent, type DeviceProfile } from '../../server/browser/device-profile';
import { captureSession, restoreSessionStorage } from '../../server/browser/session-capture';
import type { ProviderSession } from '../../server/browser/session-format';
import { appDatabase } from '../../server/sandbox/kit/app-shell';
import { sessionCookieName } from '../../server/sandbox/site-sessions';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { api, connectOrbit } from '../agent/agent-support';
import { caller, connect, contexts, exit, live, org, present, run, seenOf, stored, useDeviceSession } from './device-session-support';

/**
 * A connection keeps one device, and all of its session, from its sign-in through every run. Against the simulated
 * Orbit: user_app keeps its sign-in as a token in IndexedDB (no cookie) and stays signed in across runs only because
 * IndexedDB is restored; user_bound's session is bound to the device it signed in from, so the same device works run
 * after run and any other device is signed out. The site's app page reports what it saw of the device each time.
 * The server, its test playbooks and the helpers that connect, run and present a device: device-session-support.ts.
 */
jest.setTimeout(120_000);

useDeviceSession();

describe('user_app: a sign-in kept in IndexedDB', () => {
  let conn: { connectionId: string; accessToken: string };

  beforeAll(async () => {
    conn = await connect('user_app', 'app-user');
  });

  it('is connected with a device, and its sealed session holds the IndexedDB token (no session cookie)', async () => {
    const { session, device } = await stored(conn.connectionId);
    expect(device.userAgent).toBe(chromeUserAgent(device.platform, await live.services.browsers.browserVersion()));
    expect(session.format).toBe(2);
    expect(session.cookies.map((c) => c.name)).not.toContain(sessionCookieName('orbit'));
    const origin = new URL(live.siteUrl('orbit')).origin;
    const databases = session.origins.find((o) => o.origin === origin)?.indexedDB as { name: string }[];
    expect(databases.map((d) => d.name)).toEqual([appDatabase('orbit')]);
  });

  it('stays signed in run after run, and the site sees the same device each time', async () => {
    const { device } = await stored(conn.connectionId);
    const first = await run(conn.accessToken);
    expect(first).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Ivy Appleby' } });
    expect(seenOf(first)).toEqual({ userAgent: device.userAgent, timeZone: device.timezoneId, acceptLanguage: device.acceptLanguage });
    const second = await run(conn.accessToken);
    expect(second).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Ivy Appleby' } });
    expect(seenOf(second)).toEqual(seenOf(first));
    expect((await stored(conn.connectionId)).device).toEqual(device);
  });

  it('is signed out with the same cookies and localStorage but no IndexedDB (a session as sealed before)', async () => {
    const { session, device } = await stored(conn.connectionId);
    const legacy = { cookies: session.cookies, origins: session.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage })) };
    expect(await present(device, legacy, '/app')).toBe('signed out');
    expect(await present(device, session, '/app')).toBe('signed in');
  });

  it("restores sessionStorage into the run's tab for the provider's origins only, and seals it back", async () => {
    const { row, session } = await stored(conn.connectionId);
    const orbitOrigin = new URL(live.siteUrl('orbit')).origin;
    const forgehubOrigin = new URL(live.siteUrl('forgehub')).origin;
    const withTabs: ProviderSession = {
      ...session,
      sessionStorage: [
        { origin: orbitOrigin, items: [{ name: 'tab', value: 'restored' }] },
        { origin: forgehubOrigin, items: [{ name: 'tab', value: 'not yours' }] },
      ],
    };
    expect(await live.services.connections.saveSession(row.id, withTabs)).toBe(true);
    const record = await run(conn.accessToken);
    expect(record).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, tab: 'restored' } });
    expect((await stored(conn.connectionId)).session.sessionStorage).toEqual([
      { origin: orbitOrigin, items: [{ name: 'tab', value: 'restored' }] },
    ]);
  });

  it('trims a session over the bound (the largest database), says so in the trace, and stays signed in', async () => {
    const filled = await run(conn.accessToken, 'test.big-cache');
    expect(filled.status).toBe('COMPLETED');
    expect(filled.trace).toContainEqual(
      expect.objectContaining({
        tool: 'session',
        outcome: 'ok',
        target: expect.stringMatching(/sealed without: IndexedDB cache of http:\/\/orbit\./),
      }),
    );
    const { session } = await stored(conn.connectionId);
    expect(JSON.stringify(session).length).toBeLessThan(4 * 1024 * 1024);
    expect(await run(conn.accessToken)).toMatchObject({ status: 'COMPLETED', result: { signedIn: true } });
  });
});

describe('user_bound: a session bound to its device', () => {
  it('stays signed in run after run on the device it signed in from; the site sees the same device each time', async () => {
    const conn = await connect('user_bound', 'bound-user');
    const { device } = await stored(conn.connectionId);
    const first = await run(conn.accessToken);
    expect(first).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Bo Bound' } });
    expect(seenOf(first)).toEqual({ userAgent: device.userAgent, timeZone: device.timezoneId, acceptLanguage: device.acceptLanguage });
    const second = await run(conn.accessToken);
    expect(second).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Bo Bound' } });
    expect(seenOf(second)).toEqual(seenOf(first));
  });

  it('signs out a session presented with another user agent, for good', async () => {
    const conn = await connect('user_bound', 'bound-ua');
    const { session, device } = await stored(conn.connectionId);
    const other: DeviceProfile = {
      ...device,
      platform: device.platform === 'Windows' ? 'macOS' : 'Windows',
      userAgent: chromeUserAgent(device.platform === 'Windows' ? 'macOS' : 'Windows', device.browserVersion),
    };
    expect(await present(device, session, '/')).toBe('signed in');
    expect(await present(other, session, '/')).toBe('signed out');
    // The site ended the session: its own device is signed out now too, as after a real site's "new device" sign-out.
    expect(await present(device, session, '/')).toBe('signed out');
  });

  it('signs out a session presented with another time zone (the hint its app sends)', async () => {
    const conn = await connect('user_bound', 'bound-tz');
    const { session, device } = await stored(conn.connectionId);
    const other: DeviceProfile = { ...device, timezoneId: device.timezoneId === 'Asia/Tokyo' ? 'Europe/Paris' : 'Asia/Tokyo' };
    expect(await present(device, session, '/app')).toBe('signed in');
    expect(await present(other, session, '/app')).toBe('signed out');
    expect(await present(device, session, '/app')).toBe('signed out');
  });
});

describe("health checks present the connection's device", () => {
  it('a check of a device-bound session finds it signed in, and the next run is still signed in as the same device', async () => {
    const conn = await connect('user_bound', 'bound-check');
    const { device } = await stored(conn.connectionId);
    const check = await api(live, org, 'POST', `/api/connections/${conn.connectionId}/check`);
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ outcome: 'SIGNED_IN', connection: { status: 'ACTIVE', device: { userAgent: device.userAgent } } });
    // A check from any other device would have signed this session out for good.
    const after = await run(conn.accessToken);
    expect(after).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Bo Bound' } });
    expect(seenOf(after)).toEqual({ userAgent: device.userAgent, timeZone: device.timezoneId, acceptLanguage: device.acceptLanguage });
  });

  it("a check re-logging in a dead device-bound session signs in as the connection's device (RENEWED), and runs keep working", async () => {
    const conn = await connect('user_bound', 'bound-check-relogin', { rememberCredentials: true });
    const { device } = await stored(conn.connectionId);
    // The provider forgets every session (as when it expires): only the stored credentials can bring it back.
    await live.services.connections.saveSession(conn.connectionId, { cookies: [], origins: [] });
    const check = await api(live, org, 'POST', `/api/connections/${conn.connectionId}/check`);
    expect(check.body).toMatchObject({ outcome: 'RENEWED', connection: { status: 'ACTIVE' } });
    const after = await run(conn.accessToken);
    expect(after).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Bo Bound' } });
    expect(seenOf(after).userAgent).toBe(device.userAgent);
  });
});

describe('the device of every sign-in and run of a connection', () => {
  it('draws one on the next run for a connection made before devices (none stored), and keeps it', async () => {
    const conn = await connectOrbit(live, org, 'device-less');
    expect((await live.services.store.repos.connections.findById(conn.connectionId))!.device).toBeNull();
    const first = await run(conn.accessToken);
    expect(first).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Grace Goodwin' } });
    const { device } = await stored(conn.connectionId);
    expect(seenOf(first)).toEqual({ userAgent: device.userAgent, timeZone: device.timezoneId, acceptLanguage: device.acceptLanguage });
    const second = await run(conn.accessToken);
    expect(seenOf(second)).toEqual(seenOf(first));
  });

  it('update mode signs in again as the connection’s device: its bound session keeps working in the next run', async () => {
    const conn = await connect('user_bound', 'bound-update');
    const before = await stored(conn.connectionId);
    await connect('user_bound', 'bound-update', { connectionId: conn.connectionId });
    const after = await stored(conn.connectionId);
    expect(after.device).toEqual(before.device);
    expect(after.row.sealedSession).not.toBe(before.row.sealedSession);
    const record = await run(conn.accessToken);
    expect(record).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Bo Bound', userAgent: before.device.userAgent } });
  });

  it('a silent re-login signs in as the connection’s device, and the run carries on in a context with the renewed session', async () => {
    const conn = await connect('user_bound', 'bound-relogin', { rememberCredentials: true });
    const { device } = await stored(conn.connectionId);
    await live.services.store.dataSource.query('DELETE FROM sandbox_sessions WHERE tenant = ?', [tenantFor(org.organizationId)]);
    // The starting page is a cookie page: the site sends the dead session to its sign-in page, and the worker signs in again.
    const record = await run(conn.accessToken, 'test.read-app', '/');
    expect(record.trace).toContainEqual(expect.objectContaining({ tool: 'relogin', outcome: 'ok' }));
    // Bound to the device the re-login presented: had it been another, this run's page would have been signed out.
    expect(record).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Bo Bound', userAgent: device.userAgent } });
    expect(await run(conn.accessToken)).toMatchObject({ status: 'COMPLETED', result: { signedIn: true } });
  });
});

describe('sessionStorage, per origin', () => {
  const orbitOrigin = () => new URL(live.siteUrl('orbit')).origin;
  const forgehubOrigin = () => new URL(live.siteUrl('forgehub')).origin;
  const isOrbit = (origin: string) => origin === orbitOrigin();

  it("is captured from the provider's origins only, whichever frames and tabs hold it", async () => {
    const context = await live.services.browsers.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(live.siteUrl('forgehub', '/login'));
    await page.evaluate(() => sessionStorage.setItem('tab', 'forgehub'));
    const other = await context.newPage();
    await other.goto(live.siteUrl('orbit', '/login'));
    await other.evaluate(() => sessionStorage.setItem('tab', 'orbit'));
    const captured = await captureSession(context, isOrbit);
    expect(captured.sessionStorage).toEqual([{ origin: orbitOrigin(), items: [{ name: 'tab', value: 'orbit' }] }]);
    expect(captured.origins.every((o) => isOrbit(o.origin))).toBe(true);
  });

  it("is restored into the tab for the provider's origins only: a page of another origin never has it", async () => {
    const context = await live.services.browsers.newContext();
    contexts.push(context);
    const page = await context.newPage();
    const session: ProviderSession = {
      format: 2,
      cookies: [],
      origins: [],
      sessionStorage: [
        { origin: orbitOrigin(), items: [{ name: 'tab', value: 'orbit' }] },
        { origin: forgehubOrigin(), items: [{ name: 'tab', value: 'smuggled' }] },
      ],
    };
    await restoreSessionStorage(page, session, isOrbit);
    await page.goto(live.siteUrl('forgehub', '/login'));
    expect(await page.evaluate(() => sessionStorage.getItem('tab'))).toBeNull();
    await page.goto(live.siteUrl('orbit', '/login'));
    expect(await page.evaluate(() => sessionStorage.getItem('tab'))).toBe('orbit');
    // Another tab is another session, as in a browser.
    const other = await context.newPage();
    await other.goto(live.siteUrl('orbit', '/login'));
    expect(await other.evaluate(() => sessionStorage.getItem('tab'))).toBeNull();
  });
});

describe("a connection's exit", () => {
  it('runs through the upstream proxy (CONNECT to the checked address, with its credentials), still signed in as the same device', async () => {
    const conn = await connect('user_app', 'exit-user');
    const set = await live.services.connections.setExitProxy(caller(), conn.connectionId, {
      url: `http://127.0.0.1:${exit.port}`,
      username: 'exit-user',
      password: 'exit-secret',
      label: 'Test exit',
    });
    expect(set).toMatchObject({ ok: true, value: { exitProxyLabel: 'Test exit' } });
    exit.asked.length = 0;
    const record = await run(conn.accessToken);
    expect(record).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Ivy Appleby' } });
    expect(exit.asked.length).toBeGreaterThan(0);
    expect(new Set(exit.asked.map((a) => a.target))).toEqual(new Set([`127.0.0.1:${live.port}`]));
    expect(exit.asked.every((a) => a.allowed)).toBe(true);
  });

  it('fails with UPSTREAM_PROXY_FAILED when the exit refuses, and never goes around it', async () => {
    const conn = await connect('user_app', 'exit-refused');
    await live.services.connections.setExitProxy(caller(), conn.connectionId, {
      url: `http://127.0.0.1:${exit.port}`,
      username: 'exit-user',
      password: 'wrong',
    });
    const record = await run(conn.accessToken);
    expect(record).toMatchObject({ status: 'FAILED', error: { code: 'UPSTREAM_PROXY_FAILED' } });
    expect(record.error.message).toMatch(/407/);
  });
});
