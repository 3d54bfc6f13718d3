import http from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  AgentLinkApiError,
  type AgentLinkClient,
  AgentLinkConnectionError,
  AgentLinkResponseError,
  AuthenticationError,
  ConflictError,
  createAgentLinkClient,
  InvalidRequestError,
  isAgentLinkApiError,
  NotFoundError,
} from '@agentlink/client';

import { createTestApp, type TestApp } from './support/app';
import { createOrg, ORBIT_PROVIDER_ID, REQUEST_ID_PATTERN, type TestOrg } from './support/helpers';

/** @agentlink/client (from its sources) against the real app listening on loopback. */
describe('@agentlink/client against a listening server', () => {
  let t: TestApp;
  let baseUrl: string;
  let org: TestOrg;
  let client: AgentLinkClient;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    baseUrl = `${t.baseUrl}/`; // the trailing slash is trimmed by the client
    org = await createOrg(t, 'Client Co');
    client = createAgentLinkClient({ baseUrl, clientId: org.clientId, clientSecret: org.sandboxSecret });
  });

  afterAll(async () => {
    await t.services.webhookDispatcher.stop();
    await t.close();
  });

  async function connect(clientUserId: string) {
    const { publicToken } = await client.sandbox.createSandboxPublicToken({ body: { providerId: ORBIT_PROVIDER_ID, clientUserId } });
    return client.connections.exchangePublicToken({ body: { publicToken } });
  }

  it('runs the whole flow: providers, link token, sandbox public token, exchange, agent request, read it back, revoke', async () => {
    const { providers } = await client.providers.listProviders();
    const orbit = providers.find((p) => p.slug === 'orbit')!;
    expect(orbit.providerId).toBe(ORBIT_PROVIDER_ID);

    const link = await client.link.createLinkToken({ body: { clientUserId: 'client-user', providerId: orbit.providerId } }).withResponse();
    expect(link.status).toBe(200);
    expect(link.data.linkToken).toMatch(/^link-sandbox-/);
    expect(link.requestId).toMatch(REQUEST_ID_PATTERN);
    expect(link.headers.get('x-request-id')).toBe(link.requestId);

    const exchanged = await connect('client-user');
    expect(exchanged).toMatchObject({
      providerId: orbit.providerId,
      clientUserId: 'client-user',
      status: 'ACTIVE',
      environment: 'sandbox',
    });
    expect((await client.connections.getConnection({ params: { connectionId: exchanged.connectionId } })).status).toBe('ACTIVE');

    const accepted = await client.agentRequests.createAgentRequest({
      body: {
        accessToken: exchanged.access_token,
        action: 'Read my profile',
        startingUrl: new URL('/me', orbit.homeUrl).toString(),
        parameters: {},
        responseFormat: { name: 'string - Full name', followers: 'number - Follower count' },
      },
    });
    expect(accepted.status).toBe('PENDING');
    const read = await client.agentRequests.getAgentRequest({ params: { requestId: accepted.requestId } });
    expect(read).toMatchObject({ requestId: accepted.requestId, status: 'PENDING', action: 'Read my profile' });

    const revoked = await client.connections.revokeConnection({ params: { connectionId: exchanged.connectionId } });
    expect(revoked.status).toBe('REVOKED');
  });

  it('throws typed errors with status, a code of the documented union, the request id and details', async () => {
    const malformed = await client.connections.exchangePublicToken({ body: { publicToken: 'nope' } }).catch((e: unknown) => e);
    expect(malformed).toBeInstanceOf(InvalidRequestError);
    expect(malformed).toBeInstanceOf(AgentLinkApiError);
    expect(malformed).toMatchObject({
      status: 400,
      code: 'PUBLIC_TOKEN_MALFORMED',
      type: 'INVALID_REQUEST',
      requestId: expect.stringMatching(REQUEST_ID_PATTERN),
    });

    const missing = await client.connections.getConnection({ params: { connectionId: 'conn_doesnotexist' } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    if (isAgentLinkApiError(missing, 'CONNECTION_NOT_FOUND')) {
      const code: 'CONNECTION_NOT_FOUND' = missing.code; // narrowed by the guard
      expect(code).toBe('CONNECTION_NOT_FOUND');
    } else throw new Error('expected CONNECTION_NOT_FOUND');

    const invalid = await client.link.createLinkToken({ body: { clientUserId: '' } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ code: 'INVALID_FIELD', details: [{ path: 'clientUserId', message: expect.any(String) }] });

    const { publicToken } = await client.sandbox.createSandboxPublicToken({
      body: { providerId: ORBIT_PROVIDER_ID, clientUserId: 'twice' },
    });
    await client.connections.exchangePublicToken({ body: { publicToken } });
    await expect(client.connections.exchangePublicToken({ body: { publicToken } })).rejects.toBeInstanceOf(ConflictError);
  });

  it('sends the credentials it was given', async () => {
    const prod = createAgentLinkClient({ baseUrl, clientId: org.clientId, clientSecret: org.productionSecret });
    expect((await prod.providers.listProviders()).providers.every((p) => p.environment === 'production')).toBe(true);
    const bad = createAgentLinkClient({ baseUrl, clientId: org.clientId, clientSecret: 'sk_sandbox_' + 'x'.repeat(43) });
    const err = await bad.providers.listProviders().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ status: 401, code: 'INVALID_CLIENT_CREDENTIALS' });
  });

  it('iterates every item of a list across pages: connections (filtered), agent requests, webhook deliveries', async () => {
    const pager = await createOrg(t, 'Pager Co');
    const c = createAgentLinkClient({ baseUrl, clientId: pager.clientId, clientSecret: pager.sandboxSecret });
    const hook = await c.webhooks.createWebhookEndpoint({ body: { url: 'http://127.0.0.1:9/hooks', events: ['CONNECTION.CREATED'] } });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { publicToken } = await c.sandbox.createSandboxPublicToken({
        body: { providerId: ORBIT_PROVIDER_ID, clientUserId: i % 2 ? 'odd' : 'even' },
      });
      made.push((await c.connections.exchangePublicToken({ body: { publicToken } })).connectionId);
      t.clock.advance(1000);
    }
    const all: string[] = [];
    for await (const connection of c.connections.listConnections({ query: { limit: 2 } })) all.push(connection.connectionId);
    expect(all).toEqual([...made].reverse());

    const even: string[] = [];
    for await (const connection of c.connections.listConnections({ query: { clientUserId: 'even', limit: 1 } }))
      even.push(connection.clientUserId);
    expect(even).toEqual(['even', 'even', 'even']);

    const pages: number[] = [];
    for await (const page of c.connections.listConnections({ query: { limit: 2 } }).pages()) pages.push(page.data.length);
    expect(pages).toEqual([2, 2, 1]);
    const first = await c.connections.listConnections({ query: { limit: 2 } });
    expect(first.data).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));

    const { access_token } = await c.connections.exchangePublicToken({
      body: {
        publicToken: (await c.sandbox.createSandboxPublicToken({ body: { providerId: ORBIT_PROVIDER_ID, clientUserId: 'r' } })).publicToken,
      },
    });
    const orbit = (await c.providers.listProviders()).providers.find((p) => p.providerId === ORBIT_PROVIDER_ID)!;
    for (let i = 0; i < 3; i++) {
      await c.agentRequests.createAgentRequest({
        body: { accessToken: access_token, action: `Read ${i}`, startingUrl: orbit.homeUrl, responseFormat: { name: 'string' } },
      });
    }
    let requests = 0;
    for await (const r of c.agentRequests.listAgentRequests({ query: { limit: 2, status: 'PENDING' } }))
      requests += r.status === 'PENDING' ? 1 : 0;
    expect(requests).toBe(3);

    let deliveries = 0;
    for await (const d of c.webhooks.listWebhookDeliveries({ params: { webhookId: hook.webhookId }, query: { limit: 2 } })) {
      expect(d.eventType).toBe('CONNECTION.CREATED');
      deliveries++;
    }
    expect(deliveries).toBe(6);

    // A bad cursor fails the iteration with the API's code.
    const iterate = async () => {
      for await (const _ of c.connections.listConnections({ query: { cursor: 'nope' } })) void _;
    };
    await expect(iterate()).rejects.toMatchObject({ code: 'INVALID_CURSOR', status: 400 });
  });

  it('wraps an answer that is not AgentLink’s (a wrong baseUrl serving HTML) in a clear error, without retrying it', async () => {
    let hits = 0;
    const site = http.createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>My app</title><h1>Welcome</h1>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const wrong = createAgentLinkClient({
        baseUrl: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
        clientId: org.clientId,
        clientSecret: org.sandboxSecret,
      });
      const err = await wrong.providers.listProviders().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AgentLinkResponseError);
      expect(err).toMatchObject({ status: 200, contentType: 'text/html', bodySnippet: expect.stringContaining('<h1>Welcome</h1>') });
      expect((err as Error).message).toMatch(/not AgentLink's JSON.*baseUrl/);
      expect(hits).toBe(1);
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
  });

  it('wraps a refused connection in AgentLinkConnectionError after its retries', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = createAgentLinkClient({ baseUrl: `http://127.0.0.1:${port}`, clientId: 'x', clientSecret: 'y', maxRetries: 1 });
    const err = await down.providers.listProviders().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentLinkConnectionError);
    expect((err as Error).message).toMatch(/Could not reach AgentLink at http:\/\/127\.0\.0\.1:\d+\/api\/providers: ECONNREFUSED/);
  });

  it('refuses a baseUrl that is not an absolute http(s) address, and missing path parameters, before any request', async () => {
    expect(() => createAgentLinkClient({ baseUrl: 'localhost:4000', clientId: 'x', clientSecret: 'y' })).toThrow(/absolute http\(s\)/);
    expect(() => createAgentLinkClient({ baseUrl: 'ftp://x', clientId: 'x', clientSecret: 'y' })).toThrow(/absolute http\(s\)/);
    await expect(client.connections.getConnection({ params: { connectionId: '' } })).rejects.toThrow(/params.connectionId is required/);
  });
});
