import { type AgentLinkClient, createAgentLinkClient } from '../client';
import { createTestApp, type TestApp } from './support/app';
import { createOrg, ORBIT_PROVIDER_ID, REQUEST_ID_PATTERN, type TestOrg } from './support/helpers';

describe('client/index.ts against a listening server', () => {
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
    await t.close();
  });

  it('runs the whole flow: providers, link token, sandbox public token, exchange, agent request, read it back', async () => {
    const providers = await client.providers.listProviders();
    expect(providers.status).toBe(200);
    if (providers.status !== 200) return;
    const orbit = providers.body.providers.find((p) => p.slug === 'orbit')!;
    expect(orbit.providerId).toBe(ORBIT_PROVIDER_ID);

    const link = await client.link.createLinkToken({ body: { clientUserId: 'client-user', providerId: orbit.providerId } });
    expect(link.status).toBe(200);
    if (link.status !== 200) return;
    expect(link.body.linkToken).toMatch(/^link-sandbox-/);
    expect(link.headers.get('x-request-id')).toMatch(REQUEST_ID_PATTERN);

    const pub = await client.sandbox.createSandboxPublicToken({ body: { providerId: orbit.providerId, clientUserId: 'client-user' } });
    expect(pub.status).toBe(200);
    if (pub.status !== 200) return;

    const exchanged = await client.connections.exchangePublicToken({ body: { publicToken: pub.body.publicToken } });
    expect(exchanged.status).toBe(200);
    if (exchanged.status !== 200) return;
    expect(exchanged.body).toMatchObject({
      providerId: orbit.providerId,
      clientUserId: 'client-user',
      status: 'ACTIVE',
      environment: 'sandbox',
    });

    const conn = await client.connections.getConnection({ params: { connectionId: exchanged.body.connectionId } });
    expect(conn.status).toBe(200);

    const accepted = await client.agentRequests.createAgentRequest({
      body: {
        accessToken: exchanged.body.access_token,
        action: 'Read my profile',
        startingUrl: new URL('/me', orbit.homeUrl).toString(),
        parameters: {},
        responseFormat: { name: 'string - Full name', followers: 'number - Follower count' },
      },
    });
    expect(accepted.status).toBe(202);
    if (accepted.status !== 202) return;
    expect(accepted.body.status).toBe('PENDING');

    const read = await client.agentRequests.getAgentRequest({ params: { requestId: accepted.body.requestId } });
    expect(read.status).toBe(200);
    if (read.status !== 200) return;
    expect(read.body).toMatchObject({
      requestId: accepted.body.requestId,
      status: 'PENDING',
      action: 'Read my profile',
      responseFormat: { name: 'string - Full name', followers: 'number - Follower count' },
    });

    const revoked = await client.connections.revokeConnection({ params: { connectionId: exchanged.body.connectionId } });
    expect(revoked.status).toBe(200);
    if (revoked.status === 200) expect(revoked.body.status).toBe('REVOKED');
  });

  it('returns errors as typed envelopes', async () => {
    const res = await client.connections.exchangePublicToken({ body: { publicToken: 'nope' } });
    expect(res.status).toBe(400);
    if (res.status !== 400) return;
    expect(res.body.error).toMatchObject({
      code: 'PUBLIC_TOKEN_MALFORMED',
      type: 'INVALID_REQUEST',
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('sends the credentials it was given', async () => {
    const wrong = createAgentLinkClient({ baseUrl, clientId: org.clientId, clientSecret: org.productionSecret });
    const prod = await wrong.providers.listProviders();
    expect(prod.status).toBe(200);
    if (prod.status === 200) expect(prod.body.providers.every((p) => p.environment === 'production')).toBe(true);

    const bad = createAgentLinkClient({ baseUrl, clientId: org.clientId, clientSecret: 'sk_sandbox_' + 'x'.repeat(43) });
    const res = await bad.providers.listProviders();
    expect(res.status).toBe(401);
    if (res.status === 401) expect(res.body.error.code).toBe('INVALID_CLIENT_CREDENTIALS');
  });
});
