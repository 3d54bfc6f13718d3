import { LIMITS } from '../../contract/schemas';
import { describeEachStore } from '../support/app';
import {
  agentRequestBody,
  type Connected,
  connectProduction,
  connectSandbox,
  createOrg,
  expectError,
  expectNoInternals,
  get,
  GITHUB_PROVIDER_ID,
  ORBIT_PROVIDER_ID,
  orbitUrl,
  post,
  productionAgentRequestBody,
  productionHeaders,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

describeEachStore('agent requests', (t) => {
  let org: TestOrg;
  let conn: Connected;
  beforeAll(async () => {
    org = await createOrg(t, 'Agent Co');
    conn = await connectSandbox(t, org, { clientUserId: 'agent-user' });
  });

  it('accepts a request: 202 PENDING, with everything a worker needs persisted', async () => {
    const body = agentRequestBody(t, conn.accessToken, { timeoutMs: 60_000 });
    const res = await post(t, '/api/agent-requests', sandboxHeaders(org), body);
    expect(res.status).toBe(202);
    expect(res.body).toStrictEqual({
      requestId: expect.stringMatching(/^areq_[0-9a-f]{24}$/),
      status: 'PENDING',
      connectionId: conn.connectionId,
      providerId: ORBIT_PROVIDER_ID,
      createdAt: t.clock.now().toISOString(),
    });

    const record = await t.store.repos.agentRequests.findOwned(res.body.requestId, {
      organizationId: org.organizationId,
      environment: 'sandbox',
    });
    // Every field a worker reads to run it (the record may carry more, e.g. the run's trace).
    expect(record).toMatchObject({
      id: res.body.requestId,
      organizationId: org.organizationId,
      environment: 'sandbox',
      connectionId: conn.connectionId,
      providerId: ORBIT_PROVIDER_ID,
      action: body.action,
      startingUrl: body.startingUrl,
      parameters: body.parameters,
      responseFormat: body.responseFormat,
      timeoutMs: 60_000,
      status: 'PENDING',
      result: null,
      error: null,
      createdAt: t.clock.now(),
      startedAt: null,
      completedAt: null,
      executionTimeMs: null,
      attempts: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    // The worker finds the connection's sealed session through the record's connectionId.
    const connection = await t.store.repos.connections.findById(record!.connectionId);
    expect(connection?.sealedSession).toMatch(/^v1\./);
  });

  it('serves repeat requests on a token without a separate lookup, yet refuses the very next one after revocation or logout', async () => {
    const c = await connectSandbox(t, org, { clientUserId: 'repeat-user' });
    const findGrant = jest.spyOn(t.store.repos.accessTokens, 'findGrant');
    try {
      for (let i = 0; i < 3; i++)
        expect((await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, c.accessToken))).status).toBe(202);
      expect(findGrant).toHaveBeenCalledTimes(1);
      // Another organization presenting the token never rides on this process's memory of it.
      const other = await createOrg(t, 'Repeat Other Co');
      expectError(await post(t, '/api/agent-requests', sandboxHeaders(other), agentRequestBody(t, c.accessToken)), 'INVALID_ACCESS_TOKEN');

      await t.store.repos.connections.setStatus(c.connectionId, 'LOGIN_REQUIRED', t.clock.now());
      expectError(
        await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, c.accessToken)),
        'CONNECTION_LOGIN_REQUIRED',
      );
      await t.store.repos.connections.setStatus(c.connectionId, 'ACTIVE', t.clock.now());
      expect((await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, c.accessToken))).status).toBe(202);

      // Revoked by another process (straight in the database): the next request is refused all the same.
      await t.store.repos.accessTokens.revokeAllForConnection(c.connectionId, t.clock.now());
      expectError(await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, c.accessToken)), 'INVALID_ACCESS_TOKEN');
    } finally {
      findGrant.mockRestore();
    }
  });

  it('GET returns the stored record, with defaults applied', async () => {
    const body = agentRequestBody(t, conn.accessToken);
    delete (body as Partial<typeof body>).parameters;
    const created = await post(t, '/api/agent-requests', sandboxHeaders(org), body);
    expect(created.status).toBe(202);
    const res = await get(t, `/api/agent-requests/${created.body.requestId}`, sandboxHeaders(org));
    expect(res.status).toBe(200);
    expectNoInternals(res.body);
    expect(res.body).toMatchObject({
      requestId: created.body.requestId,
      status: 'PENDING',
      connectionId: conn.connectionId,
      providerId: ORBIT_PROVIDER_ID,
      environment: 'sandbox',
      action: body.action,
      startingUrl: body.startingUrl,
      parameters: {},
      responseFormat: body.responseFormat,
      timeoutMs: LIMITS.timeoutMsDefault,
      result: null,
      error: null,
      createdAt: created.body.createdAt,
      startedAt: null,
      completedAt: null,
      executionTimeMs: null,
      // Not claimed yet: no attempt, and no attempt step in the trace.
      attempts: 0,
      trace: [],
    });
  });

  it('keeps parameters and responseFormat exactly (unicode, nesting, nulls, numbers)', async () => {
    const parameters = { text: 'héllo ✓ 日本', n: 1.5, big: 12345678901, flag: false, none: null, nested: { list: [1, { a: 'b' }] } };
    const responseFormat = { a: { b: { c: ['integer? - maybe'] } }, d: 'email', e: 'url - home page' };
    const created = await post(
      t,
      '/api/agent-requests',
      sandboxHeaders(org),
      agentRequestBody(t, conn.accessToken, { parameters, responseFormat }),
    );
    expect(created.status).toBe(202);
    const res = await get(t, `/api/agent-requests/${created.body.requestId}`, sandboxHeaders(org));
    expect(res.body.parameters).toStrictEqual(parameters);
    expect(res.body.responseFormat).toStrictEqual(responseFormat);
  });

  it('normalizes the startingUrl it stores', async () => {
    const created = await post(
      t,
      '/api/agent-requests',
      sandboxHeaders(org),
      agentRequestBody(t, conn.accessToken, { startingUrl: 'HTTP://Orbit.Sandbox.Localhost:4000/me?tab=posts' }),
    );
    expect(created.status).toBe(202);
    const res = await get(t, `/api/agent-requests/${created.body.requestId}`, sandboxHeaders(org));
    expect(res.body.startingUrl).toBe('http://orbit.sandbox.localhost:4000/me?tab=posts');
  });

  it("accepts subpaths of the provider's exact origin only (not its default port or another scheme)", async () => {
    const accepted = await post(
      t,
      '/api/agent-requests',
      sandboxHeaders(org),
      agentRequestBody(t, conn.accessToken, { startingUrl: orbitUrl(t, '/u/someone?x=1#top') }),
    );
    expect(accepted.status).toBe(202);
    // Exact origins: the default port may be another program on this machine, https another site.
    for (const startingUrl of ['http://orbit.sandbox.localhost/feed', 'https://orbit.sandbox.localhost/']) {
      const res = await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { startingUrl }));
      expect({ startingUrl, status: res.status, code: res.body.error?.code }).toEqual({
        startingUrl,
        status: 400,
        code: 'STARTING_URL_NOT_ALLOWED',
      });
    }
  });

  it('accepts production requests on production connections', async () => {
    const prod = await connectProduction(t, org);
    const res = await post(t, '/api/agent-requests', productionHeaders(org), productionAgentRequestBody(prod.accessToken));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'PENDING', connectionId: prod.connectionId, providerId: GITHUB_PROVIDER_ID });
    const read = await get(t, `/api/agent-requests/${res.body.requestId}`, productionHeaders(org));
    expect(read.body).toMatchObject({ environment: 'production', startingUrl: 'https://github.com/settings/profile' });
  });

  describe('startingUrl policy (STARTING_URL_NOT_ALLOWED)', () => {
    const cases: [string, string, RegExp][] = [
      ['a non-http scheme', 'javascript:alert(1)', /http or https/],
      ['a file URL', 'file:///etc/passwd', /http or https/],
      ['an ftp URL on the provider host', 'ftp://orbit.sandbox.localhost/', /http or https/],
      ['a foreign domain', 'https://evil.example.com/me', /not one of/],
      ['a look-alike suffix', 'http://orbit.sandbox.localhost.evil.com:4000/', /not one of/],
      ['the other sandbox provider', 'http://forgehub.sandbox.localhost:4000/', /not one of/],
      ['credentials in the URL', 'http://user:pass@orbit.sandbox.localhost:4000/me', /credentials/],
      ['a username alone', 'http://user@orbit.sandbox.localhost:4000/me', /credentials/],
      ['the wrong port', 'http://orbit.sandbox.localhost:5432/', /port 5432/],
      ['a relative URL', '/me', /absolute/],
    ];
    it.each(cases)('refuses %s', async (_label, startingUrl, reason) => {
      const res = await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { startingUrl }));
      expectError(res, 'STARTING_URL_NOT_ALLOWED', { message: reason, details: { field: 'startingUrl' } });
    });

    it('refuses local and private hosts in production', async () => {
      const prod = await connectProduction(t, org, { clientUserId: 'prod-url' });
      for (const startingUrl of [
        'https://127.0.0.1/',
        'https://[::1]/',
        'https://10.0.0.1/',
        'https://169.254.169.254/latest/meta-data',
        'https://localhost/',
        'https://github.com.internal/',
      ]) {
        const res = await post(
          t,
          '/api/agent-requests',
          productionHeaders(org),
          productionAgentRequestBody(prod.accessToken, { startingUrl }),
        );
        expectError(res, 'STARTING_URL_NOT_ALLOWED', { details: { field: 'startingUrl' } });
      }
    });

    it('stores nothing for a refused request', async () => {
      const before = await t.store.dataSource.query('SELECT COUNT(*) AS n FROM agent_requests');
      await post(
        t,
        '/api/agent-requests',
        sandboxHeaders(org),
        agentRequestBody(t, conn.accessToken, { startingUrl: 'https://evil.example.com/' }),
      );
      const after = await t.store.dataSource.query('SELECT COUNT(*) AS n FROM agent_requests');
      expect(Number(after[0].n)).toBe(Number(before[0].n));
    });
  });

  describe('access tokens', () => {
    it('rejects an unknown or malformed access token (INVALID_ACCESS_TOKEN)', async () => {
      for (const accessToken of [`access-sandbox-${'B'.repeat(43)}`, 'garbage', conn.publicToken]) {
        expectError(await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, accessToken)), 'INVALID_ACCESS_TOKEN');
      }
    });

    it('rejects a token of the other environment (ACCESS_TOKEN_ENVIRONMENT_MISMATCH)', async () => {
      expectError(
        await post(t, '/api/agent-requests', productionHeaders(org), productionAgentRequestBody(conn.accessToken)),
        'ACCESS_TOKEN_ENVIRONMENT_MISMATCH',
      );
    });
  });

  describe('body validation (INVALID_FIELD)', () => {
    it('names each missing field', async () => {
      const res = await post(t, '/api/agent-requests', sandboxHeaders(org), {});
      const err = expectError(res, 'INVALID_FIELD', { message: /^accessToken: Required$/, details: expect.any(Array) });
      expect((err.details as { path: string }[]).map((d) => d.path).sort()).toEqual([
        'accessToken',
        'action',
        'responseFormat',
        'startingUrl',
      ]);
    });

    it('refuses a blank action and bad timeouts', async () => {
      expectError(
        await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { action: '   ' })),
        'INVALID_FIELD',
        {
          message: /^action: /,
          details: [{ path: 'action', message: expect.any(String) }],
        },
      );
      for (const timeoutMs of [1000, LIMITS.timeoutMsMax + 1, 6000.5, '60000']) {
        expectError(
          await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { timeoutMs })),
          'INVALID_FIELD',
          {
            message: /^timeoutMs: /,
            details: [{ path: 'timeoutMs', message: expect.any(String) }],
          },
        );
      }
    });
  });
});
