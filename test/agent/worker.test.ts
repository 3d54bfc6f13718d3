import type { Playbook } from '../../server/agent/playbooks';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { type LiveServer, startLiveServer } from '../support/live-server';
import {
  api,
  awaitRequest,
  connectOrbit,
  createRequest,
  eventually,
  type LiveOrg,
  liveOrg,
  testPlaybook as orbitTestPlaybook,
} from './agent-support';

/**
 * The worker end to end on SQLite: a live AgentLink with its embedded worker, real Chromium, the Orbit
 * sandbox site on loopback. Test-only playbooks (registered below) stand in for slow, hanging or wrong
 * routines; the real Orbit profile playbook proves the happy path.
 */
jest.setTimeout(60_000);

const PROFILE_FORMAT = { name: 'string - Full name', username: 'string', headline: 'string', followers: 'integer', following: 'number' };

let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };
const started = new Set<string>();
/** When the worker began to close each test.teardown run's context (ms since the epoch). */
const contextClosedAt = new Map<string, number>();

/** A test playbook that notes the runs it started. */
const testPlaybook = (name: string, example: string, run: Playbook<unknown>['run']): Playbook<unknown> =>
  orbitTestPlaybook(name, example, async (ctx) => {
    started.add(ctx.requestId);
    return run(ctx);
  });

beforeAll(async () => {
  live = await startLiveServer({ worker: true });
  const pb = live.services.playbooks;
  pb.register(testPlaybook('test.hang', 'test: hang forever', () => new Promise(() => undefined)));
  pb.register(
    testPlaybook('test.leave', 'test: leave the site', async (ctx) => {
      await ctx.step('navigate', 'another site', () => ctx.page.goto('http://evil.example.com/steal', { waitUntil: 'domcontentloaded' }));
      return { ok: true };
    }),
  );
  pb.register(
    testPlaybook('test.subresource', 'test: load a foreign image', async (ctx) => {
      await ctx.page.evaluate(() => fetch('http://tracker.example.net/pixel.gif').catch(() => null));
      return { ok: true };
    }),
  );
  pb.register(
    testPlaybook('test.remember', 'test: remember a setting', async (ctx) => {
      await ctx.page.evaluate(() => localStorage.setItem('orbit-theme', 'dark'));
      return { ok: true };
    }),
  );
  pb.register(
    testPlaybook('test.teardown', 'test: note when my browser closes', async (ctx) => {
      // When the worker starts closing it (not when the close ends: a close started early could still end late).
      const context = ctx.page.context();
      const close = context.close.bind(context);
      context.close = (options) => {
        contextClosedAt.set(ctx.requestId, Date.now());
        return close(options);
      };
      return { ok: true };
    }),
  );
  pb.register(testPlaybook('test.wrong', 'test: wrong shape', async () => ({ name: 42, followers: 'many' })));
  pb.register(
    testPlaybook('test.broken', 'test: missing button', async (ctx) => {
      await ctx.step('click', "button 'Does not exist'", () =>
        ctx.page.getByRole('button', { name: 'Does not exist' }).click({ timeout: 500 }),
      );
      return { ok: true };
    }),
  );
  org = await liveOrg(live);
  conn = await connectOrbit(live, org);
});

afterAll(async () => {
  await live?.close();
});

const body = (overrides: Record<string, unknown>) => ({
  accessToken: conn.accessToken,
  action: 'Read my profile',
  startingUrl: live.siteUrl('orbit', '/'),
  responseFormat: PROFILE_FORMAT,
  ...overrides,
});

it('runs the Orbit profile playbook end to end: COMPLETED, result shaped like responseFormat, trace and method', async () => {
  const before = await live.services.store.repos.connections.findById(conn.connectionId);
  const requestId = await createRequest(live, org, body({}));
  const record = await awaitRequest(live, org, requestId);
  expect(record).toMatchObject({
    requestId,
    status: 'COMPLETED',
    method: 'PLAYBOOK',
    error: null,
    modelUsage: null,
    result: {
      name: 'Grace Goodwin',
      username: 'user_good',
      headline: expect.stringMatching(/\S/),
      followers: expect.any(Number),
      following: expect.any(Number),
    },
  });
  expect(Number.isInteger(record.result.followers)).toBe(true);
  expect(record.startedAt).toEqual(expect.any(String));
  expect(new Date(record.completedAt).getTime()).toBeGreaterThanOrEqual(new Date(record.startedAt).getTime());
  expect(record.executionTimeMs).toBeGreaterThan(0);
  expect(record.attempts).toBe(1);
  expect(record.trace.map((s: { tool: string; outcome: string }) => `${s.tool}:${s.outcome}`)).toEqual([
    'attempt:ok',
    'navigate:ok',
    'navigate:ok',
    'extract:ok',
    'done:ok',
  ]);
  for (const step of record.trace)
    expect(step).toEqual(
      expect.objectContaining({ url: expect.stringContaining('orbit.sandbox.localhost'), durationMs: expect.any(Number) }),
    );
  // The connection was marked used and still holds a session (sealed again only when the run changed it: see below).
  const after = await live.services.store.repos.connections.findById(conn.connectionId);
  expect(before?.sealedSession).toEqual(expect.any(String));
  expect(after?.sealedSession).toEqual(expect.any(String));
  expect(after?.lastUsedAt).not.toBeNull();
  expect(after?.status).toBe('ACTIVE');
});

it("closes the run's context only after the outcome is written: the waiting caller's answer goes out before the teardown", async () => {
  const requestId = await createRequest(
    live,
    org,
    body({ action: 'test: note when my browser closes', responseFormat: { ok: 'boolean' } }),
  );
  const record = await awaitRequest(live, org, requestId);
  expect(record.status).toBe('COMPLETED');
  const closedAt = await eventually(
    async () => contextClosedAt.get(requestId),
    (t) => t !== undefined,
  );
  // completedAt is taken just before the outcome's write; the close starts 25 ms after the write (worker.ts), where it
  // used to start before the write.
  expect(closedAt! - new Date(record.completedAt).getTime()).toBeGreaterThanOrEqual(25);
});

it('seals the session back when the run changed it, and only marks the connection used when it came back as it was', async () => {
  const repos = live.services.store.repos;
  const run = async (action: string, responseFormat: Record<string, string>) => {
    const created = await api(live, org, 'POST', '/api/agent-requests', body({ action, responseFormat }));
    expect(created.status).toBe(202);
    const record = await awaitRequest(live, org, created.body.requestId);
    expect(record.status).toBe('COMPLETED');
    return repos.connections.findById(conn.connectionId);
  };
  // The page writes to the provider's storage: the new state is sealed (a fresh ciphertext) and holds the change.
  const before = await repos.connections.findById(conn.connectionId);
  const changed = await run('test: remember a setting', { ok: 'boolean' });
  expect(changed?.sealedSession).not.toBe(before?.sealedSession);
  const stored = live.services.connections.openSession(changed!)!;
  expect(JSON.stringify(stored.origins)).toContain('orbit-theme');
  // A read that changes nothing leaves the sealed session byte for byte as it was, and still marks the connection used.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const read = await run('Read my profile', PROFILE_FORMAT);
  expect(read?.sealedSession).toBe(changed?.sealedSession);
  expect(read!.lastUsedAt!.getTime()).toBeGreaterThan(changed!.lastUsedAt!.getTime());
  expect(read?.status).toBe('ACTIVE');
});

it('fits the result to other key names (aliases) and nested objects', async () => {
  const responseFormat = { profile: { fullName: 'string', handle: 'string' }, followerCount: 'string' };
  const record = await awaitRequest(
    live,
    org,
    await createRequest(live, org, body({ action: 'Please get my own Orbit profile', responseFormat })),
  );
  expect(record.status).toBe('COMPLETED');
  expect(record.result).toEqual({
    profile: { fullName: 'Grace Goodwin', handle: 'user_good' },
    followerCount: expect.stringMatching(/^\d+$/),
  });
});

it('fails at once with MODEL_NOT_CONFIGURED when no playbook (and no replay) covers the action', async () => {
  const record = await awaitRequest(
    live,
    org,
    await createRequest(live, org, body({ action: 'Archive every conversation older than a year' })),
  );
  expect(record.status).toBe('FAILED');
  expect(record.error.code).toBe('MODEL_NOT_CONFIGURED');
  expect(record.error.message).toMatch(/AGENTLINK_MODEL_BASE_URL/);
});

it('falls through when the playbook cannot fill the responseFormat (asks for posts)', async () => {
  const responseFormat = { name: 'string', posts: [{ text: 'string' }] };
  const record = await awaitRequest(
    live,
    org,
    await createRequest(live, org, body({ action: 'Read my profile and my latest posts', responseFormat })),
  );
  expect(record.error.code).toBe('MODEL_NOT_CONFIGURED');
  expect(record.method).toBeNull();
});

it('times out: a hanging run ends TIMED_OUT after its timeoutMs, and the worker moves on', async () => {
  const requestId = await createRequest(live, org, body({ action: 'test: hang forever', timeoutMs: 5000 }));
  const record = await awaitRequest(live, org, requestId, 15_000);
  expect(record.status).toBe('TIMED_OUT');
  expect(record.error).toEqual({ code: 'TIMED_OUT', message: expect.stringMatching(/5000 ms/) });
  // Not before its time; how soon after it is the machine's speed (awaitRequest's bound is the wait, not a claim).
  expect(record.executionTimeMs).toBeGreaterThanOrEqual(5000);
  expect(record.trace.some((s: { screenshot?: string }) => typeof s.screenshot === 'string')).toBe(true);
  // The worker is free again.
  const next = await awaitRequest(live, org, await createRequest(live, org, body({})));
  expect(next.status).toBe('COMPLETED');
});

it('cancels a running request: the worker stops it and writes CANCELED', async () => {
  const requestId = await createRequest(live, org, body({ action: 'test: hang forever' }));
  await eventually(
    async () => started.has(requestId),
    (v) => v,
  );
  const res = await api(live, org, 'POST', `/api/agent-requests/${requestId}/cancel`);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ requestId, status: expect.stringMatching(/^(RUNNING|CANCELED)$/) });
  const record = await awaitRequest(live, org, requestId, 10_000);
  expect(record.status).toBe('CANCELED');
  expect(record.error.code).toBe('CANCELED');
  const again = await api(live, org, 'POST', `/api/agent-requests/${requestId}/cancel`);
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('AGENT_REQUEST_ALREADY_FINISHED');
});

it('blocks and records navigation outside the allowed domains (NAVIGATION_BLOCKED)', async () => {
  const record = await awaitRequest(
    live,
    org,
    await createRequest(live, org, body({ action: 'test: leave the site', responseFormat: { ok: 'boolean' } })),
  );
  expect(record.status).toBe('FAILED');
  expect(record.error).toMatchObject({ code: 'NAVIGATION_BLOCKED', details: { url: 'http://evil.example.com/steal' } });
  expect(record.trace).toContainEqual(
    expect.objectContaining({ tool: 'navigate', outcome: 'blocked', target: expect.stringContaining('http://evil.example.com/steal') }),
  );
});

it('blocks foreign sub-resources and records them, without failing the run', async () => {
  const record = await awaitRequest(
    live,
    org,
    await createRequest(live, org, body({ action: 'test: load a foreign image', responseFormat: { ok: 'boolean' } })),
  );
  expect(record.status).toBe('COMPLETED');
  expect(record.trace).toContainEqual(
    expect.objectContaining({
      tool: 'request',
      outcome: 'blocked',
      target: expect.stringContaining('tracker.example.net'),
      error: expect.stringMatching(/not an allowed domain/),
    }),
  );
});

it('fails a playbook result that does not match responseFormat with RESULT_SCHEMA_MISMATCH and every mismatch', async () => {
  const record = await awaitRequest(
    live,
    org,
    await createRequest(live, org, body({ action: 'test: wrong shape', responseFormat: { name: 'string', followers: 'integer' } })),
  );
  expect(record.status).toBe('FAILED');
  expect(record.method).toBe('PLAYBOOK');
  expect(record.error).toMatchObject({
    code: 'RESULT_SCHEMA_MISMATCH',
    details: {
      playbook: 'test.wrong',
      errors: expect.arrayContaining([
        { path: '/name', message: 'must be string' },
        { path: '/followers', message: 'must be integer' },
      ]),
    },
  });
});

it('reports a failing playbook step as PLAYBOOK_FAILED with the step and a screenshot', async () => {
  const record = await awaitRequest(
    live,
    org,
    await createRequest(live, org, body({ action: 'test: missing button', responseFormat: { ok: 'boolean' } })),
  );
  expect(record.error).toMatchObject({
    code: 'PLAYBOOK_FAILED',
    details: { playbook: 'test.broken', step: { tool: 'click', target: "button 'Does not exist'" } },
  });
  const failed = record.trace.find((s: { outcome: string }) => s.outcome === 'error');
  expect(failed).toMatchObject({ tool: 'click', screenshot: expect.stringMatching(/^\/9j\//) });
});

describe('a revoke that races the end of a run', () => {
  /**
   * The revoke lands after the worker last read the connection (it saw ACTIVE) and before it writes the
   * session back. The playbook revokes through the API mid-run; from then on every read of the connection
   * returns what it was just before the revoke, so a worker that checks the status and then writes
   * unconditionally sees ACTIVE. Only a write that is itself conditional keeps the session off the row.
   */
  it('leaves the revoked connection without a session (REVOKED, sealedSession null)', async () => {
    const target = await connectOrbit(live, org, 'revoked-mid-run');
    const connections = live.services.store.repos.connections;
    const readRow = connections.findById.bind(connections);
    const staleReads = jest.spyOn(connections, 'findById');
    live.services.playbooks.register(
      testPlaybook('test.revoke', 'test: revoke mid-run', async () => {
        const beforeRevoke = await readRow(target.connectionId);
        const revoked = await api(live, org, 'DELETE', `/api/connections/${target.connectionId}`);
        if (revoked.status !== 200 || revoked.body.status !== 'REVOKED')
          throw new Error(`revoke: ${revoked.status} ${JSON.stringify(revoked.body)}`);
        staleReads.mockImplementation(async (id: string) => (id === target.connectionId ? beforeRevoke : readRow(id)));
        return { ok: true };
      }),
    );
    try {
      const record = await awaitRequest(
        live,
        org,
        await createRequest(
          live,
          org,
          body({ accessToken: target.accessToken, action: 'test: revoke mid-run', responseFormat: { ok: 'boolean' } }),
        ),
      );
      expect(record.status).toBe('COMPLETED');
    } finally {
      staleReads.mockRestore();
    }
    const row = await connections.findById(target.connectionId);
    expect(row).toMatchObject({ status: 'REVOKED', sealedSession: null, sealedCredentials: null });
  });
});

describe('dead provider session', () => {
  const killSiteSessions = async () => {
    await live.services.store.dataSource.query('DELETE FROM sandbox_sessions WHERE tenant = ?', [tenantFor(org.organizationId)]);
  };

  it('without stored credentials: FAILED CONNECTION_LOGIN_REQUIRED and the connection becomes LOGIN_REQUIRED', async () => {
    const dead = await connectOrbit(live, org, 'dead-user');
    await killSiteSessions();
    const record = await awaitRequest(live, org, await createRequest(live, org, body({ accessToken: dead.accessToken })));
    expect(record.status).toBe('FAILED');
    expect(record.error.code).toBe('CONNECTION_LOGIN_REQUIRED');
    expect(record.error.message).toMatch(/connect flow/);
    const connection = await api(live, org, 'GET', `/api/connections/${dead.connectionId}`);
    expect(connection.body.status).toBe('LOGIN_REQUIRED');
    const refused = await api(live, org, 'POST', '/api/agent-requests', body({ accessToken: dead.accessToken }));
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONNECTION_LOGIN_REQUIRED');
  });

  it('with stored credentials: re-logs in silently, completes, and keeps the connection ACTIVE', async () => {
    const caller = { organizationId: org.organizationId, environment: 'sandbox' as const };
    const session = await live.services.siteSessions.mint(caller, 'orbit', 'user_good');
    const created = await live.services.connections.create(caller, {
      providerId: ORBIT_PROVIDER_ID,
      clientUserId: 'remembered-user',
      session,
      credentials: { username: 'user_good', password: 'pass_good' },
    });
    const ex = await api(live, org, 'POST', '/api/connections/public_token/exchange', { publicToken: created.publicToken });
    await killSiteSessions();
    const record = await awaitRequest(live, org, await createRequest(live, org, body({ accessToken: ex.body.access_token })));
    expect(record.status).toBe('COMPLETED');
    expect(record.result.username).toBe('user_good');
    expect(record.trace).toContainEqual(expect.objectContaining({ tool: 'relogin', outcome: 'ok' }));
    const connection = await api(live, org, 'GET', `/api/connections/${created.connection.id}`);
    expect(connection.body.status).toBe('ACTIVE');
  });
});
