import { describeEachStore } from '../support/app';
import {
  agentRequestBody,
  connectSandbox,
  createOrg,
  del,
  expectError,
  expectNoInternals,
  get,
  ORBIT_PROVIDER_ID,
  post,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

describeEachStore('connections', (t) => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t, 'Connections Co');
  });

  it('GET returns the connection record, and nothing secret', async () => {
    const created = t.clock.now().toISOString();
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'c-1' });
    const res = await get(t, `/api/connections/${connectionId}`, sandboxHeaders(org));
    expect(res.status).toBe(200);
    expectNoInternals(res.body);
    expect(res.body).toMatchObject({
      connectionId,
      providerId: ORBIT_PROVIDER_ID,
      clientUserId: 'c-1',
      environment: 'sandbox',
      status: 'ACTIVE',
      createdAt: created,
      updatedAt: created,
      lastUsedAt: null,
      revokedAt: null,
    });
  });

  it('DELETE revokes: status REVOKED, session forgotten, access token dead; idempotent', async () => {
    const { connectionId, accessToken } = await connectSandbox(t, org, { clientUserId: 'c-2' });
    expect((await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, accessToken))).status).toBe(202);

    t.clock.advance(5_000);
    const revokedAt = t.clock.now().toISOString();
    const res = await del(t, `/api/connections/${connectionId}`, sandboxHeaders(org));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ connectionId, status: 'REVOKED', revokedAt, updatedAt: revokedAt });

    const row = await t.store.repos.connections.findById(connectionId);
    expect(row).toMatchObject({ status: 'REVOKED', sealedSession: null, sealedCredentials: null });

    expectError(await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, accessToken)), 'INVALID_ACCESS_TOKEN');

    // Revoking again is not an error and changes nothing.
    t.clock.advance(5_000);
    const again = await del(t, `/api/connections/${connectionId}`, sandboxHeaders(org));
    expect(again.status).toBe(200);
    expect(again.body).toStrictEqual(res.body);
    expect((await get(t, `/api/connections/${connectionId}`, sandboxHeaders(org))).body.status).toBe('REVOKED');
  });

  it('revoking one connection leaves the others working', async () => {
    const a = await connectSandbox(t, org, { clientUserId: 'c-3' });
    const b = await connectSandbox(t, org, { clientUserId: 'c-3' });
    expect((await del(t, `/api/connections/${a.connectionId}`, sandboxHeaders(org))).status).toBe(200);
    expect((await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, b.accessToken))).status).toBe(202);
    expect((await get(t, `/api/connections/${b.connectionId}`, sandboxHeaders(org))).body.status).toBe('ACTIVE');
  });

  it('answers 404 CONNECTION_NOT_FOUND for an unknown id on GET and DELETE', async () => {
    expectError(await get(t, '/api/connections/conn_000000000000000000000000', sandboxHeaders(org)), 'CONNECTION_NOT_FOUND');
    expectError(await del(t, '/api/connections/conn_000000000000000000000000', sandboxHeaders(org)), 'CONNECTION_NOT_FOUND');
  });

  it('rejects an over-long id as INVALID_FIELD on params', async () => {
    expectError(await get(t, `/api/connections/${'x'.repeat(65)}`, sandboxHeaders(org)), 'INVALID_FIELD', {
      message: /^params\.connectionId: /,
      details: [{ path: 'params.connectionId', message: expect.any(String) }],
    });
  });

  it('reports CONNECTION_LOGIN_REQUIRED (409) for agent requests when the session ended', async () => {
    const { connectionId, accessToken } = await connectSandbox(t, org, { clientUserId: 'c-4' });
    await t.store.repos.connections.setStatus(connectionId, 'LOGIN_REQUIRED', t.clock.now());
    expect((await get(t, `/api/connections/${connectionId}`, sandboxHeaders(org))).body.status).toBe('LOGIN_REQUIRED');
    expectError(await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, accessToken)), 'CONNECTION_LOGIN_REQUIRED');
  });
});
