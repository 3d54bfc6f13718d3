import {
  type AgentLinkClient,
  AgentLinkWaitTimeoutError,
  type AgentRequest,
  createAgentLinkClient,
  InvalidRequestError,
  NotFoundError,
} from '@agentlink/client';

import { createTestApp, type TestApp } from '../support/app';
import { createOrg, ORBIT_PROVIDER_ID, type TestOrg } from '../support/helpers';

/** The stripe-node style resources of @agentlink/client (from its sources) against the real app, and createAndWait's loop. */
type Json = Record<string, unknown>;

describe('@agentlink/client resources against a listening server', () => {
  let t: TestApp;
  let org: TestOrg;
  let agentlink: AgentLinkClient;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    org = await createOrg(t, 'Resources Co');
    agentlink = createAgentLinkClient({ baseUrl: t.baseUrl, clientId: org.clientId, clientSecret: org.sandboxSecret });
  });
  afterAll(async () => t.close());

  it('links a sandbox account, lists and reads it, runs a request and reads it back, then revokes, with the new names', async () => {
    const { providers } = await agentlink.providers.list();
    const orbit = providers.find((p) => p.providerId === ORBIT_PROVIDER_ID)!;
    const { actions } = await agentlink.providers.listActions(orbit.providerId);
    expect(actions.map((a) => a.name)).toContain('orbit.read-my-profile');

    const link = await agentlink.linkTokens.create({ clientUserId: 'res-user', providerId: orbit.providerId });
    expect(link.linkToken).toMatch(/^link-sandbox-/);
    const { publicToken } = await agentlink.sandbox.createPublicToken({ providerId: orbit.providerId, clientUserId: 'res-user' });
    const exchanged = await agentlink.connections.exchangePublicToken({ publicToken });
    expect(exchanged).toMatchObject({ clientUserId: 'res-user', status: 'ACTIVE' });

    const listed = [];
    for await (const c of agentlink.connections.list({ clientUserId: 'res-user', limit: 1 })) listed.push(c.connectionId);
    expect(listed).toEqual([exchanged.connectionId]);
    expect((await agentlink.connections.retrieve(exchanged.connectionId)).status).toBe('ACTIVE');

    const accepted = await agentlink.agentRequests.create({
      accessToken: exchanged.access_token,
      action: 'Read my profile',
      startingUrl: new URL('/me', orbit.homeUrl).toString(),
      parameters: {},
      responseFormat: { name: 'string' },
    });
    expect(accepted.status).toBe('PENDING');
    const read = await agentlink.agentRequests.retrieve(accepted.requestId, { waitMs: 0 });
    expect(read).toMatchObject({ requestId: accepted.requestId, status: 'PENDING' });
    const canceled = await agentlink.agentRequests.cancel(accepted.requestId);
    expect(canceled.status).toBe('CANCELED');
    const page = await agentlink.agentRequests.list({ limit: 5 });
    expect(page.data.map((r) => r.requestId)).toContain(accepted.requestId);

    expect((await agentlink.connections.revoke(exchanged.connectionId)).status).toBe('REVOKED');
    await expect(agentlink.connections.retrieve('conn_000000000000000000000000')).rejects.toBeInstanceOf(NotFoundError);
    await expect(agentlink.linkTokens.create({ clientUserId: '' })).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('keeps the contract names working as deprecated aliases, exchangePublicToken({ body }) included', async () => {
    const { publicToken } = await agentlink.sandbox.createSandboxPublicToken({
      body: { providerId: ORBIT_PROVIDER_ID, clientUserId: 'old-user' },
    });
    const exchanged = await agentlink.connections.exchangePublicToken({ body: { publicToken } });
    expect(exchanged.clientUserId).toBe('old-user');
    const old = await agentlink.connections.getConnection({ params: { connectionId: exchanged.connectionId } });
    const renamed = await agentlink.connections.retrieve(exchanged.connectionId);
    expect(renamed).toEqual(old);
    const { linkToken } = await agentlink.link.createLinkToken({ body: { clientUserId: 'old-user' } });
    expect(linkToken).toMatch(/^link-sandbox-/);
  });

  it('createAndWait gives up after timeoutMs with the last read (no worker runs here)', async () => {
    const { publicToken } = await agentlink.sandbox.createPublicToken({ providerId: ORBIT_PROVIDER_ID, clientUserId: 'wait-user' });
    const { access_token: accessToken } = await agentlink.connections.exchangePublicToken({ publicToken });
    const err = await agentlink.agentRequests
      .createAndWait(
        {
          accessToken,
          action: 'Read my profile',
          startingUrl: t.services.catalogue.get(ORBIT_PROVIDER_ID, 'sandbox')!.homeUrl,
          responseFormat: { name: 'string' },
        },
        { timeoutMs: 300 },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentLinkWaitTimeoutError);
    expect((err as AgentLinkWaitTimeoutError).agentRequest.status).toBe('PENDING');
  });
});

describe('agentRequests.createAndWait against a scripted server', () => {
  /** POST answers 202 (after `failFirst` 503s); each GET answers the next status. */
  function scripted(statuses: AgentRequest['status'][], failFirst = 0) {
    const calls: { method: string; url: URL; idempotencyKey: string | null }[] = [];
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      calls.push({ method: init?.method ?? 'GET', url: new URL(String(input)), idempotencyKey: headers.get('idempotency-key') });
      const json = (status: number, body: Json) =>
        new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
      if (init?.method === 'POST') {
        if (failFirst-- > 0) return json(503, { error: { type: 'API_ERROR', code: 'INTERNAL_ERROR', message: 'busy', requestId: 'r' } });
        return json(202, {
          requestId: 'areq_1',
          status: 'PENDING',
          connectionId: 'conn_1',
          providerId: 'p',
          createdAt: '2026-01-01T00:00:00Z',
        });
      }
      const status = statuses.length > 1 ? statuses.shift()! : statuses[0]!;
      return json(200, { requestId: 'areq_1', status, result: status === 'COMPLETED' ? { name: 'Grace' } : null });
    }) as typeof globalThis.fetch;
    const client = createAgentLinkClient({ baseUrl: 'https://agentlink.example.com', clientId: 'cli', clientSecret: 'sk', fetch });
    return { client, calls };
  }
  const body = {
    accessToken: 'access-sandbox-x',
    action: 'Read',
    startingUrl: 'https://orbit.example.com/',
    responseFormat: { name: 'string' },
  };

  it("reads on past the server's 30 s cap, each read with the longest waitMs, until the request ends", async () => {
    const { client, calls } = scripted(['RUNNING', 'RUNNING', 'RUNNING', 'COMPLETED']);
    const done = await client.agentRequests.createAndWait(body, { pollIntervalMs: 0 });
    expect(done).toMatchObject({ status: 'COMPLETED', result: { name: 'Grace' } });
    expect(calls.map((c) => `${c.method} ${c.url.pathname}${c.url.search}`)).toEqual([
      'POST /api/agent-requests',
      ...Array(4).fill('GET /api/agent-requests/areq_1?waitMs=30000'),
    ]);
  });

  it('sends one Idempotency-Key for every attempt of the create, the caller’s own when given', async () => {
    const { client, calls } = scripted(['COMPLETED'], 2);
    await client.agentRequests.createAndWait(body, { idempotencyKey: 'order-42-run', requestOptions: { maxRetries: 2 } });
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts.map((p) => p.idempotencyKey)).toEqual(['order-42-run', 'order-42-run', 'order-42-run']);
    const again = scripted(['COMPLETED'], 1);
    await again.client.agentRequests.createAndWait(body);
    const keys = again.calls.filter((c) => c.method === 'POST').map((p) => p.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });
});
