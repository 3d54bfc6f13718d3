import fs from 'node:fs';

import { OrganizationService } from '../../server/domain/organizations.service';
import { describeEachStore, pgQuery, type TestApp } from '../support/app';
import { connectSandbox, createOrg, expectError, get, post, productionHeaders, sandboxHeaders, type TestOrg } from '../support/helpers';

/** Everything the database holds, as text: the SQLite file and its WAL, or every row of every table on PostgreSQL. */
async function databaseText(t: TestApp): Promise<string> {
  if (t.dialect === 'sqlite') {
    // Checkpoint so the main file has the rows too; read the WAL as well in case it does not.
    await t.store.dataSource.query('PRAGMA wal_checkpoint(FULL)');
    return [t.sqliteFile!, `${t.sqliteFile}-wal`]
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f).toString('latin1'))
      .join('\n');
  }
  const tables = await pgQuery<{ tablename: string }>(t, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
  const parts: string[] = [];
  for (const { tablename } of tables) {
    const rows = await pgQuery<{ r: string }>(t, `SELECT t::text AS r FROM "${tablename}" t`);
    parts.push(...rows.map((x) => x.r));
  }
  return parts.join('\n');
}

describeEachStore('authentication and secrets', (t) => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t, 'Auth Co');
  });

  it('issues a client id and one secret per environment', () => {
    expect(org.clientId).toMatch(/^cli_[0-9a-f]{24}$/);
    expect(org.sandboxSecret).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);
    expect(org.productionSecret).toMatch(/^sk_production_[A-Za-z0-9_-]{43}$/);
  });

  it('stores secrets only as scrypt hashes', async () => {
    const row = await t.store.repos.organizations.findByClientId(org.clientId);
    expect(row!.sandboxSecretHash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(row!.productionSecretHash).toMatch(/^scrypt\$/);
    expect(row!.sandboxSecretHash).not.toBe(row!.productionSecretHash);

    const text = await databaseText(t);
    expect(text).toContain(org.clientId); // proves we are looking at the right data
    expect(text).toContain(row!.sandboxSecretHash);
    for (const secret of [org.sandboxSecret, org.productionSecret]) {
      expect(text).not.toContain(secret);
      // Not even the random part alone.
      expect(text).not.toContain(secret.replace(/^sk_(sandbox|production)_/, ''));
    }
    if (t.dialect === 'postgres') {
      const rows = await pgQuery(t, 'SELECT * FROM organizations WHERE client_id = $1', [org.clientId]);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(org.sandboxSecret);
      expect(JSON.stringify(rows)).not.toContain(org.productionSecret);
    }
  });

  it('stores link, public and access tokens only as hashes', async () => {
    const link = (await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'hash-me' })).body.linkToken as string;
    const { publicToken, accessToken } = await connectSandbox(t, org, { clientUserId: 'hash-me' });
    const text = await databaseText(t);
    expect(text).toContain('hash-me');
    for (const token of [link, publicToken, accessToken]) {
      expect(token.length).toBeGreaterThan(40);
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.slice(-43));
    }
  });

  it('authenticates each secret into its own environment', async () => {
    const s = await get(t, '/api/providers', sandboxHeaders(org));
    const p = await get(t, '/api/providers', productionHeaders(org));
    expect(s.status).toBe(200);
    expect(p.status).toBe(200);
    expect(new Set(s.body.providers.map((x: { environment: string }) => x.environment))).toEqual(new Set(['sandbox']));
    expect(new Set(p.body.providers.map((x: { environment: string }) => x.environment))).toEqual(new Set(['production']));
  });

  it('accepts the same credentials as HTTP Basic (Client ID as username, secret as password), judged the same way', async () => {
    const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });
    const s = await get(t, '/api/providers', basic(org.clientId, org.sandboxSecret));
    expect(s.status).toBe(200);
    expect(new Set(s.body.providers.map((x: { environment: string }) => x.environment))).toEqual(new Set(['sandbox']));
    const p = await get(t, '/api/providers', basic(org.clientId, org.productionSecret));
    expect(new Set(p.body.providers.map((x: { environment: string }) => x.environment))).toEqual(new Set(['production']));
    expectError(await get(t, '/api/providers', basic(org.clientId, `${org.sandboxSecret}x`)), 'INVALID_CLIENT_CREDENTIALS');
    expectError(await get(t, '/api/providers', basic(org.clientId, '')), 'MISSING_CLIENT_CREDENTIALS');
    expectError(
      await get(t, '/api/providers', { authorization: `Basic ${Buffer.from(org.clientId).toString('base64')}` }),
      'MISSING_CLIENT_CREDENTIALS',
    );
    expectError(await get(t, '/api/providers', { authorization: 'Basic not base64!' }), 'MISSING_CLIENT_CREDENTIALS');
    expectError(await get(t, '/api/providers', { authorization: `Bearer ${org.sandboxSecret}` }), 'MISSING_CLIENT_CREDENTIALS');
    // Headers, when sent, are what count: a wrong header secret is not rescued by a right Basic one.
    expectError(
      await get(t, '/api/providers', {
        ...basic(org.clientId, org.sandboxSecret),
        'x-client-id': org.clientId,
        'x-client-secret': 'sk_sandbox_wrong',
      }),
      'INVALID_CLIENT_CREDENTIALS',
    );
  });

  it("refuses one organization's secret with another's client id", async () => {
    const other = await createOrg(t, 'Auth Other');
    expectError(
      await get(t, '/api/providers', { 'x-client-id': other.clientId, 'x-client-secret': org.sandboxSecret }),
      'INVALID_CLIENT_CREDENTIALS',
    );
    expectError(
      await get(t, '/api/providers', { 'x-client-id': org.clientId, 'x-client-secret': other.productionSecret }),
      'INVALID_CLIENT_CREDENTIALS',
    );
  });

  it('rotating a secret makes the old one fail at once and the new one work; the other environment is untouched', async () => {
    const rot = await createOrg(t, 'Rotating Co');
    // Warm the verification memory with the old secret first.
    expect((await get(t, '/api/providers', sandboxHeaders(rot))).status).toBe(200);
    expect((await get(t, '/api/providers', sandboxHeaders(rot))).status).toBe(200);

    const rotated = await t.services.organizations.rotateSecret(rot.clientId, 'sandbox');
    if (!rotated.ok) throw new Error('rotation failed');
    const newSecret = rotated.value.secret;
    expect(newSecret).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);
    expect(newSecret).not.toBe(rot.sandboxSecret);

    expectError(await get(t, '/api/providers', sandboxHeaders(rot)), 'INVALID_CLIENT_CREDENTIALS');
    expect((await get(t, '/api/providers', { 'x-client-id': rot.clientId, 'x-client-secret': newSecret })).status).toBe(200);
    expect((await get(t, '/api/providers', productionHeaders(rot))).status).toBe(200);

    const text = await databaseText(t);
    expect(text).not.toContain(newSecret);
  });

  it('a rotation by another process (its own service instance) also takes effect at once', async () => {
    const rot = await createOrg(t, 'Rotating Elsewhere');
    expect((await get(t, '/api/providers', productionHeaders(rot))).status).toBe(200);
    // Like `agentlink org rotate-secret`, run by another process against the same database.
    const cli = new OrganizationService(t.store, t.clock);
    const rotated = await cli.rotateSecret(rot.organizationId, 'production');
    if (!rotated.ok) throw new Error('rotation failed');
    expectError(await get(t, '/api/providers', productionHeaders(rot)), 'INVALID_CLIENT_CREDENTIALS');
    expect((await get(t, '/api/providers', { 'x-client-id': rot.clientId, 'x-client-secret': rotated.value.secret })).status).toBe(200);
    expect((await get(t, '/api/providers', sandboxHeaders(rot))).status).toBe(200);
  });

  it('refuses to rotate for an unknown organization', async () => {
    const res = await t.services.organizations.rotateSecret('cli_000000000000000000000000', 'sandbox');
    expect(res.ok).toBe(false);
  });

  it('lists organizations without their secrets', async () => {
    const list = await t.services.organizations.list();
    const mine = list.find((o) => o.clientId === org.clientId);
    expect(mine).toMatchObject({ id: org.organizationId, name: 'Auth Co' });
    expect(JSON.stringify(list)).not.toContain(org.sandboxSecret);
  });
});
