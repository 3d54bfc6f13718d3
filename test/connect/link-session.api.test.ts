import { MAX_LOGIN_ATTEMPTS, MAX_SESSIONS_PER_LINK_TOKEN } from '../../server/connect/link-session.service';
import { LoginEngine } from '../../server/connect/login-engine';
import { ManualClock } from '../../server/domain/clock';
import { hashToken } from '../../server/domain/tokens';
import { FORGEHUB_PROVIDER_ID } from '../../server/integrations/forgehub/forgehub.provider';
import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { QUILL_PROVIDER_ID } from '../../server/integrations/quill/quill.provider';
import type { ProviderDefinition } from '../../server/providers/catalogue';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * The widget's API (/link/api/…) and the link-token rules behind it, over HTTP against a live server whose
 * login engine signs in to the simulated sites: update mode, single use under concurrency, environment and
 * step checks, expiry in the middle of the flow, attempt limits, and the error envelope.
 */
jest.setTimeout(60_000);

let server: LiveServer;
let clock: ManualClock;
let creds: Record<string, string>;
let prodCreds: Record<string, string>;

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  server = await startLiveServer({ clock });
  const org = await server.services.organizations.create('Flow Test Org');
  creds = { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret };
  prodCreds = { 'x-client-id': org.clientId, 'x-client-secret': org.productionSecret };
});

afterAll(async () => {
  await server?.services.loginEngine.close();
  await server?.services.browsers.close();
  await server?.close();
});

interface Res {
  status: number;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

async function call(method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown } = {}): Promise<Res> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

function expectError(res: Res, status: number, code: string, details?: Record<string, unknown>) {
  if (res.status !== status || res.body?.error?.code !== code)
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body.error.requestId).toBe(res.headers.get('x-request-id'));
  if (details) expect(res.body.error.details).toMatchObject(details);
}

async function linkToken(body: Record<string, unknown> = {}, headers = creds): Promise<string> {
  const res = await call('POST', '/api/link-token', { headers, body: { clientUserId: 'flow-user', ...body } });
  if (res.status !== 200) throw new Error(`link token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.linkToken as string;
}

/** A widget session for a link token: helpers for each step. */
function widget(token: string) {
  const headers = { authorization: `Bearer ${token}` };
  let id = '';
  const step = (name: string, body?: unknown) => call('POST', `/link/api/sessions/${id}/${name}`, { headers, body: body ?? {} });
  return {
    get id() {
      return id;
    },
    async start(env?: string) {
      const res = await call('POST', '/link/api/sessions', { headers, body: env ? { env } : {} });
      if (res.status === 200) id = res.body.linkSessionId as string;
      return res;
    },
    consent: () => step('consent'),
    provider: (providerId: string) => step('provider', { providerId }),
    credentials: (username: string, password = 'pass_good') => step('credentials', { username, password }),
    mfa: (code: string) => step('mfa', { code }),
    exit: (errorCode?: string) => step('exit', errorCode ? { errorCode } : {}),
  };
}

async function connectThroughWidget(token: string, providerId = ORBIT_PROVIDER_ID) {
  const w = widget(token);
  expect((await w.start('sandbox')).status).toBe(200);
  expect((await w.consent()).status).toBe(200);
  expect((await w.provider(providerId)).status).toBe(200);
  const res = await w.credentials('user_good');
  if (res.status !== 200) throw new Error(`credentials: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.success as { publicToken: string; metadata: Record<string, unknown> };
}

async function exchange(publicToken: string) {
  return call('POST', '/api/connections/public_token/exchange', { headers: creds, body: { publicToken } });
}

describe('update mode: a link token for an existing connection re-authenticates it', () => {
  it('new sealed session, ACTIVE again, same connection and access token, no duplicate', async () => {
    const first = await connectThroughWidget(await linkToken({ clientUserId: 'update-user' }));
    const exchanged = await exchange(first.publicToken);
    const { connectionId, access_token: accessToken } = exchanged.body as { connectionId: string; access_token: string };
    const repos = server.services.store.repos;
    const before = (await repos.connections.findById(connectionId))!;
    await repos.connections.setStatus(connectionId, 'LOGIN_REQUIRED', clock.now());

    const token = await linkToken({ clientUserId: 'update-user', connectionId });
    const record = (await repos.linkTokens.findByHash(hashToken(token)))!;
    expect(record).toMatchObject({ connectionId, providerId: ORBIT_PROVIDER_ID, rememberCredentials: false });

    const w = widget(token);
    const started = await w.start('sandbox');
    expect(started.body).toMatchObject({
      mode: 'update',
      status: 'CONSENT',
      providerFixed: true,
      providers: [],
      provider: { providerId: ORBIT_PROVIDER_ID },
    });
    expect((await w.consent()).body).toMatchObject({ status: 'CREDENTIALS' });
    const done = await w.credentials('user_good');
    expect(done.status).toBe(200);
    expect(done.body.success.metadata).toMatchObject({ connectionStatus: 'ACTIVE', clientUserId: 'update-user', linkSessionId: w.id });

    const after = (await repos.connections.findById(connectionId))!;
    expect(after.status).toBe('ACTIVE');
    expect(after.sealedSession).not.toBe(before.sealedSession);
    expect(await server.services.store.dataSource.getRepository('Connection').countBy({ clientUserId: 'update-user' })).toBe(1);
    // The new public token names the same connection; the old access token works again.
    expect((await exchange(done.body.success.publicToken)).body.connectionId).toBe(connectionId);
    expect(
      (await server.services.connections.resolveAccessToken({ organizationId: record.organizationId, environment: 'sandbox' }, accessToken))
        .ok,
    ).toBe(true);
    expect(await repos.linkSessions.findById(w.id)).toMatchObject({ status: 'SUCCEEDED', mode: 'update', connectionId });
  });

  it('POST /api/link-token checks the connection of update mode', async () => {
    const first = await connectThroughWidget(await linkToken({ clientUserId: 'check-user' }));
    const { connectionId } = (await exchange(first.publicToken)).body as { connectionId: string };
    const post = (body: Record<string, unknown>, headers = creds) => call('POST', '/api/link-token', { headers, body });

    expectError(await post({ clientUserId: 'check-user', connectionId: 'conn_nope' }), 404, 'CONNECTION_NOT_FOUND');
    expectError(await post({ clientUserId: 'check-user', connectionId }, prodCreds), 404, 'CONNECTION_NOT_FOUND');
    expectError(await post({ clientUserId: 'someone-else', connectionId }), 400, 'INVALID_FIELD', [
      { path: 'clientUserId', message: 'must be the clientUserId of the connection' },
    ] as never);
    expectError(await post({ clientUserId: 'check-user', connectionId, providerId: FORGEHUB_PROVIDER_ID }), 400, 'INVALID_FIELD');
    expectError(await post({ clientUserId: 'check-user', rememberCredentials: 'yes' }), 400, 'INVALID_FIELD');
    await call('DELETE', `/api/connections/${connectionId}`, { headers: creds });
    expectError(await post({ clientUserId: 'check-user', connectionId }), 409, 'CONNECTION_REVOKED');
  });
});

describe('the widget API', () => {
  it('a link token is single use even when two sessions sign in at once', async () => {
    const token = await linkToken({ clientUserId: 'race-user' });
    const a = widget(token);
    const b = widget(token);
    for (const w of [a, b]) {
      await w.start();
      await w.consent();
      await w.provider(ORBIT_PROVIDER_ID);
    }
    const results = await Promise.all([a.credentials('user_good'), b.credentials('user_good')]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    expectError(
      results.find((r) => r.status === 409)!,
      409,
      'LINK_TOKEN_ALREADY_USED',
      { status: 'FAILED', retryable: false },
    );
    expect(await server.services.store.dataSource.getRepository('Connection').countBy({ clientUserId: 'race-user' })).toBe(1);
  });

  it('refuses a token of the other environment, a missing token, and another token’s session', async () => {
    const sandboxToken = await linkToken();
    expectError(await widget(sandboxToken).start('production'), 400, 'LINK_TOKEN_ENVIRONMENT_MISMATCH');
    const prodToken = await linkToken({}, prodCreds);
    expectError(await widget(prodToken).start('sandbox'), 400, 'LINK_TOKEN_ENVIRONMENT_MISMATCH');
    expectError(await call('POST', '/link/api/sessions', { body: {} }), 400, 'INVALID_LINK_TOKEN');
    expectError(
      await call('POST', '/link/api/sessions', {
        headers: { authorization: 'Bearer link-sandbox-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
        body: {},
      }),
      400,
      'INVALID_LINK_TOKEN',
    );

    const mine = widget(sandboxToken);
    await mine.start();
    const other = await linkToken();
    const res = await call('POST', `/link/api/sessions/${mine.id}/consent`, { headers: { authorization: `Bearer ${other}` } });
    expectError(res, 404, 'LINK_SESSION_NOT_FOUND');
  });

  it('steps only in order; bodies are checked without echoing a password', async () => {
    const token = await linkToken();
    const w = widget(token);
    const started = await w.start();
    expect(started.body).toMatchObject({
      status: 'CONSENT',
      organization: { name: 'Flow Test Org' },
      providerFixed: false,
      environment: 'sandbox',
    });
    expect(started.body.providers.map((p: { providerId: string }) => p.providerId)).toEqual([
      ORBIT_PROVIDER_ID,
      FORGEHUB_PROVIDER_ID,
      LUMEN_PROVIDER_ID,
      QUILL_PROVIDER_ID,
    ]);
    expectError(await w.credentials('user_good'), 409, 'LINK_STEP_NOT_ALLOWED', { status: 'CONSENT' });
    expectError(await w.mfa('123456'), 409, 'LINK_STEP_NOT_ALLOWED');
    expect((await w.consent()).body).toMatchObject({ status: 'PROVIDER' });
    expectError(await w.provider('9b2e7a40-3c6d-4f7e-8b1a-2e5c9d4f6aff'), 400, 'UNKNOWN_PROVIDER');
    const bad = await call('POST', `/link/api/sessions/${w.id}/credentials`, {
      headers: { authorization: `Bearer ${token}` },
      body: { username: 'u', password: 'Sup3r-S3cret!', extra: 1 },
    });
    expectError(bad, 400, 'INVALID_FIELD');
    expect(JSON.stringify(bad.body)).not.toContain('Sup3r-S3cret!');
    expect((await w.exit()).body).toEqual({ linkSessionId: w.id, status: 'EXITED' });
    expectError(await w.consent(), 409, 'LINK_STEP_NOT_ALLOWED', { status: 'EXITED' });
    expect(await server.services.store.repos.linkSessions.findById(w.id)).toMatchObject({ status: 'EXITED', errorCode: 'USER_CLOSED' });
  });

  it('leaving while the provider is still signing in creates nothing', async () => {
    const token = await linkToken({ clientUserId: 'left-early' });
    const w = widget(token);
    await w.start();
    await w.consent();
    await w.provider(ORBIT_PROVIDER_ID);
    const signingIn = w.credentials('user_good');
    await new Promise((r) => setTimeout(r, 50));
    expect((await w.exit()).body).toMatchObject({ status: 'EXITED' });
    expectError(await signingIn, 409, 'LINK_STEP_NOT_ALLOWED', { status: 'EXITED' });
    expect(await server.services.store.dataSource.getRepository('Connection').countBy({ clientUserId: 'left-early' })).toBe(0);
    expect((await server.services.store.repos.linkTokens.findByHash(hashToken(token)))!.usedAt).toBeNull();
  });

  it('a link token that expires in the middle of the flow ends it', async () => {
    const w = widget(await linkToken());
    await w.start();
    await w.consent();
    clock.advance(31 * 60_000);
    expectError(await w.provider(ORBIT_PROVIDER_ID), 400, 'LINK_TOKEN_EXPIRED', {
      linkSessionId: w.id,
      status: 'FAILED',
      retryable: false,
    });
    expect(await server.services.store.repos.linkSessions.findById(w.id)).toMatchObject({
      status: 'FAILED',
      errorCode: 'LINK_TOKEN_EXPIRED',
    });
  });

  it(`after ${MAX_LOGIN_ATTEMPTS} sign-in attempts the session is closed`, async () => {
    const w = widget(await linkToken());
    await w.start();
    await w.consent();
    await w.provider(ORBIT_PROVIDER_ID);
    for (let i = 0; i < MAX_LOGIN_ATTEMPTS; i++)
      expectError(await w.credentials('user_locked', 'x'), 400, 'ACCOUNT_LOCKED', { status: 'CREDENTIALS', retryable: true });
    expectError(await w.credentials('user_good'), 429, 'TOO_MANY_LOGIN_ATTEMPTS', { status: 'FAILED' });
  });

  it(`a link token opens at most ${MAX_SESSIONS_PER_LINK_TOKEN} sessions`, async () => {
    const token = await linkToken();
    for (let i = 0; i < MAX_SESSIONS_PER_LINK_TOKEN; i++) expect((await widget(token).start()).status).toBe(200);
    expectError(await widget(token).start(), 429, 'TOO_MANY_LINK_SESSIONS');
  });

  it('sign-in attempts count per link token, over all of its sessions', async () => {
    const token = await linkToken();
    const first = widget(token);
    const second = widget(token);
    for (const w of [first, second]) {
      await w.start();
      await w.consent();
      await w.provider(ORBIT_PROVIDER_ID);
    }
    const half = MAX_LOGIN_ATTEMPTS / 2;
    for (let i = 0; i < half; i++) expectError(await first.credentials('user_locked', 'x'), 400, 'ACCOUNT_LOCKED');
    for (let i = 0; i < MAX_LOGIN_ATTEMPTS - half; i++) expectError(await second.credentials('user_locked', 'x'), 400, 'ACCOUNT_LOCKED');
    expectError(await first.credentials('user_good'), 429, 'TOO_MANY_LOGIN_ATTEMPTS', { status: 'FAILED' });
    const third = widget(token);
    await third.start();
    await third.consent();
    await third.provider(ORBIT_PROVIDER_ID);
    expectError(await third.credentials('user_good'), 429, 'TOO_MANY_LOGIN_ATTEMPTS', { status: 'FAILED' });
  });
});

describe('the login engine', () => {
  it('bounds the sign-ins running at once; one that waits too long for a slot reports the provider unavailable', async () => {
    let release!: () => void;
    const opened = new Promise<void>((r) => (release = r));
    const engine = new LoginEngine(
      { newContext: () => opened.then(() => Promise.reject(new Error('no browser in this test'))) },
      { maxConcurrentStarts: 1, startQueueTimeoutMs: 50 },
    );
    const input = {
      // The fields the engine's egress fence reads (it is built before the browser is asked for a context).
      provider: {
        name: 'P',
        environment: 'sandbox',
        homeUrl: 'http://p.localhost:1/',
        allowedOrigins: ['p.localhost'],
        // A recipe (never reached: the browser refuses first); without one the engine hands over to the live view.
        login: {},
      } as ProviderDefinition,
      organizationId: 'org',
      environment: 'sandbox' as const,
      username: 'u',
      password: 'p',
    };
    const first = engine.start('a', input);
    expect(await engine.start('b', input)).toEqual({ kind: 'unavailable', reason: 'too many sign-ins are running at once' });
    release();
    expect(await first).toEqual({ kind: 'unavailable', reason: 'the browser could not start' });
    expect(engine.runningCount).toBe(0);
  });
});
