import { createHash } from 'node:crypto';

import { describeEachStore } from '../support/app';
import {
  connectSandbox,
  createOrg,
  del,
  exchange,
  expectError,
  ORBIT_PROVIDER_ID,
  productionHeaders,
  sandboxHeaders,
  sandboxPublicToken,
  type TestOrg,
} from '../support/helpers';

const THIRTY_MINUTES = 30 * 60_000;

describeEachStore('public token exchange', (t) => {
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    [org, other] = await Promise.all([createOrg(t, 'Exchange Co'), createOrg(t, 'Other Co')]);
  });

  it('exchanges a public token for an access token and an ACTIVE connection', async () => {
    const publicToken = await sandboxPublicToken(t, org, { clientUserId: 'user-7' });
    expect(publicToken).toMatch(/^public-sandbox-[A-Za-z0-9_-]{43}$/);
    const res = await exchange(t, sandboxHeaders(org), publicToken);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      access_token: expect.stringMatching(/^access-sandbox-[A-Za-z0-9_-]{43}$/),
      connectionId: expect.stringMatching(/^conn_[0-9a-f]{24}$/),
      providerId: ORBIT_PROVIDER_ID,
      clientUserId: 'user-7',
      environment: 'sandbox',
      status: 'ACTIVE',
    });
    // Stored only as a hash, bound to the org, the environment and the connection.
    const stored = await t.store.repos.accessTokens.findByHash(createHash('sha256').update(res.body.access_token).digest('hex'));
    expect(stored).toMatchObject({
      organizationId: org.organizationId,
      environment: 'sandbox',
      connectionId: res.body.connectionId,
      revokedAt: null,
    });
    const pt = await t.store.repos.publicTokens.findByHash(createHash('sha256').update(publicToken).digest('hex'));
    expect(pt?.exchangedAt?.getTime()).toBe(t.clock.now().getTime());
  });

  it('refuses a second exchange of the same public token (409 PUBLIC_TOKEN_ALREADY_USED)', async () => {
    const publicToken = await sandboxPublicToken(t, org);
    expect((await exchange(t, sandboxHeaders(org), publicToken)).status).toBe(200);
    expectError(await exchange(t, sandboxHeaders(org), publicToken), 'PUBLIC_TOKEN_ALREADY_USED');
  });

  it('lets exactly one of five concurrent exchanges win', async () => {
    const publicToken = await sandboxPublicToken(t, org);
    const results = await Promise.all(Array.from({ length: 5 }, () => exchange(t, sandboxHeaders(org), publicToken)));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 'PUBLIC_TOKEN_ALREADY_USED');
    // Only one access token exists for the connection, and it works.
    const count = await t.store.dataSource.query(
      t.dialect === 'postgres'
        ? 'SELECT COUNT(*)::int AS n FROM access_tokens WHERE connection_id = $1'
        : 'SELECT COUNT(*) AS n FROM access_tokens WHERE connection_id = ?',
      [winners[0].body.connectionId],
    );
    expect(Number(count[0].n)).toBe(1);
  });

  it('keeps a public token exchangeable until just before 30 minutes', async () => {
    const publicToken = await sandboxPublicToken(t, org);
    t.clock.advance(THIRTY_MINUTES - 1);
    expect((await exchange(t, sandboxHeaders(org), publicToken)).status).toBe(200);
  });

  it('expires a public token after 30 minutes (PUBLIC_TOKEN_EXPIRED), and it stays expired', async () => {
    const publicToken = await sandboxPublicToken(t, org);
    t.clock.advance(THIRTY_MINUTES);
    expectError(await exchange(t, sandboxHeaders(org), publicToken), 'PUBLIC_TOKEN_EXPIRED');
    t.clock.advance(60_000);
    expectError(await exchange(t, sandboxHeaders(org), publicToken), 'PUBLIC_TOKEN_EXPIRED');
  });

  it('rejects strings that are not public tokens (PUBLIC_TOKEN_MALFORMED)', async () => {
    const { accessToken } = await connectSandbox(t, org);
    for (const bad of ['nope', 'public-sandbox-short', 'public-staging-' + 'a'.repeat(43), accessToken, 'link-sandbox-' + 'a'.repeat(43)]) {
      expectError(await exchange(t, sandboxHeaders(org), bad), 'PUBLIC_TOKEN_MALFORMED');
    }
  });

  it('rejects an unknown but well-formed public token (INVALID_PUBLIC_TOKEN)', async () => {
    expectError(await exchange(t, sandboxHeaders(org), `public-sandbox-${'A'.repeat(43)}`), 'INVALID_PUBLIC_TOKEN');
  });

  it('rejects a token of the other environment (PUBLIC_TOKEN_ENVIRONMENT_MISMATCH) without consuming it', async () => {
    const publicToken = await sandboxPublicToken(t, org);
    expectError(await exchange(t, productionHeaders(org), publicToken), 'PUBLIC_TOKEN_ENVIRONMENT_MISMATCH');
    expect((await exchange(t, sandboxHeaders(org), publicToken)).status).toBe(200);
  });

  it('rejects a token of another organization (PUBLIC_TOKEN_ORGANIZATION_MISMATCH) without consuming it', async () => {
    const publicToken = await sandboxPublicToken(t, org);
    expectError(await exchange(t, sandboxHeaders(other), publicToken), 'PUBLIC_TOKEN_ORGANIZATION_MISMATCH');
    expect((await exchange(t, sandboxHeaders(org), publicToken)).status).toBe(200);
  });

  it('refuses the public token of a revoked connection (409 CONNECTION_REVOKED)', async () => {
    const created = await t.services.connections.create(
      { organizationId: org.organizationId, environment: 'sandbox' },
      { providerId: ORBIT_PROVIDER_ID, clientUserId: 'to-revoke' },
    );
    expect((await del(t, `/api/connections/${created.connection.id}`, sandboxHeaders(org))).status).toBe(200);
    expectError(await exchange(t, sandboxHeaders(org), created.publicToken), 'CONNECTION_REVOKED');
  });

  it('validates the body', async () => {
    expectError(await exchange(t, sandboxHeaders(org), ''), 'INVALID_FIELD', {
      message: /^publicToken: /,
      details: [{ path: 'publicToken', message: expect.any(String) }],
    });
    expectError(await exchange(t, sandboxHeaders(org), 'x'.repeat(201)), 'INVALID_FIELD', {
      message: /^publicToken: /,
      details: [{ path: 'publicToken', message: expect.any(String) }],
    });
  });
});
