import { describeEachStore, type TestApp } from '../support/app';
import {
  agentRequestBody,
  type Connected,
  connectSandbox,
  createOrg,
  expectError,
  post,
  sandboxHeaders,
  sandboxPublicToken,
  type TestOrg,
  withoutRequestId,
} from '../support/helpers';

async function count(t: TestApp, table: 'link_tokens' | 'agent_requests' | 'connections', organizationId: string): Promise<number> {
  const rows = await t.store.dataSource.query(
    t.dialect === 'postgres'
      ? `SELECT COUNT(*)::int AS n FROM ${table} WHERE organization_id = $1`
      : `SELECT COUNT(*) AS n FROM ${table} WHERE organization_id = ?`,
    [organizationId],
  );
  return Number(rows[0].n);
}

const withKey = (org: TestOrg, key: string) => ({ ...sandboxHeaders(org), 'Idempotency-Key': key });

describeEachStore('idempotency keys', (t) => {
  let org: TestOrg;
  let conn: Connected;
  beforeAll(async () => {
    org = await createOrg(t, 'Idempotent Co');
    conn = await connectSandbox(t, org, { clientUserId: 'idem-user' });
  });

  it('replays the first response for the same key and body, and creates one link token', async () => {
    const before = await count(t, 'link_tokens', org.organizationId);
    const first = await post(t, '/api/link-token', withKey(org, 'lt-1'), { clientUserId: 'u-1' });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(t, '/api/link-token', withKey(org, 'lt-1'), { clientUserId: 'u-1' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toStrictEqual(first.body);
    expect(await count(t, 'link_tokens', org.organizationId)).toBe(before + 1);
    // Key order in the body does not matter (canonical JSON).
    const reordered = await post(t, '/api/link-token', withKey(org, 'lt-2'), { clientUserId: 'u-2', rememberCredentials: false });
    const reorderedAgain = await post(t, '/api/link-token', withKey(org, 'lt-2'), { rememberCredentials: false, clientUserId: 'u-2' });
    expect(reorderedAgain.body).toStrictEqual(reordered.body);
    expect(await count(t, 'link_tokens', org.organizationId)).toBe(before + 2);
  });

  it('answers IDEMPOTENCY_KEY_REUSED (409) for the same key with another body or path', async () => {
    await post(t, '/api/link-token', withKey(org, 'reuse-1'), { clientUserId: 'u-1' }).expect(200);
    expectError(await post(t, '/api/link-token', withKey(org, 'reuse-1'), { clientUserId: 'u-other' }), 'IDEMPOTENCY_KEY_REUSED');
    expectError(
      await post(t, '/api/agent-requests', withKey(org, 'reuse-1'), agentRequestBody(t, conn.accessToken)),
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  it('creates one agent request for ten concurrent duplicates, all answered alike', async () => {
    const before = await count(t, 'agent_requests', org.organizationId);
    const body = agentRequestBody(t, conn.accessToken);
    const results = await Promise.all(Array.from({ length: 10 }, () => post(t, '/api/agent-requests', withKey(org, 'ar-burst'), body)));
    for (const r of results) {
      expect(r.status).toBe(202);
      expect(r.body).toStrictEqual(results[0].body);
    }
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(await count(t, 'agent_requests', org.organizationId)).toBe(before + 1);
  });

  it('replays a client error too, with the same envelope', async () => {
    const bad = await post(t, '/api/agent-requests', withKey(org, 'bad-1'), agentRequestBody(t, 'access-sandbox-nope'));
    const again = await post(t, '/api/agent-requests', withKey(org, 'bad-1'), agentRequestBody(t, 'access-sandbox-nope'));
    expect(again.status).toBe(bad.status);
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(again.body).toStrictEqual(bad.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('scopes keys per organization and environment', async () => {
    const other = await createOrg(t, 'Other Idempotent Co');
    const a = await post(t, '/api/link-token', withKey(org, 'shared-key'), { clientUserId: 'u-a' });
    const b = await post(t, '/api/link-token', withKey(other, 'shared-key'), { clientUserId: 'u-b' });
    const prod = await post(
      t,
      '/api/link-token',
      { 'x-client-id': org.clientId, 'x-client-secret': org.productionSecret, 'Idempotency-Key': 'shared-key' },
      { clientUserId: 'u-c' },
    );
    for (const r of [a, b, prod]) {
      expect(r.status).toBe(200);
      expect(r.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([a.body.linkToken, b.body.linkToken, prod.body.linkToken]).size).toBe(3);
  });

  it('forgets a key after 24 hours', async () => {
    const before = await count(t, 'link_tokens', org.organizationId);
    const first = await post(t, '/api/link-token', withKey(org, 'expiring'), { clientUserId: 'u-x' });
    t.clock.advance(24 * 3600 * 1000 - 1000);
    const replay = await post(t, '/api/link-token', withKey(org, 'expiring'), { clientUserId: 'u-x' });
    expect(replay.body).toStrictEqual(first.body);
    t.clock.advance(2000);
    // Expired: the key runs again, even with another body.
    const fresh = await post(t, '/api/link-token', withKey(org, 'expiring'), { clientUserId: 'u-y' });
    expect(fresh.status).toBe(200);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.linkToken).not.toBe(first.body.linkToken);
    expect(await count(t, 'link_tokens', org.organizationId)).toBe(before + 2);
  });

  it('rejects an invalid Idempotency-Key with INVALID_FIELD', async () => {
    const details = [{ path: 'headers.Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }];
    expectError(await post(t, '/api/link-token', withKey(org, 'x'.repeat(256)), { clientUserId: 'u-1' }), 'INVALID_FIELD', { details });
    expectError(await post(t, '/api/link-token', withKey(org, ''), { clientUserId: 'u-1' }), 'INVALID_FIELD', { details });
    expectError(await post(t, '/api/link-token', withKey(org, 'tab\there'), { clientUserId: 'u-1' }), 'INVALID_FIELD', { details });
  });

  it('replays the exchange response without keeping the access token in plain text', async () => {
    const publicToken = await sandboxPublicToken(t, org, { clientUserId: 'exchange-user' });
    const first = await post(t, '/api/connections/public_token/exchange', withKey(org, 'exchange-1'), { publicToken });
    expect(first.status).toBe(200);
    const replay = await post(t, '/api/connections/public_token/exchange', withKey(org, 'exchange-1'), { publicToken });
    expect(replay.status).toBe(200);
    expect(replay.body).toStrictEqual(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // Without the key the token is used up, as before.
    expectError(await post(t, '/api/connections/public_token/exchange', sandboxHeaders(org), { publicToken }), 'PUBLIC_TOKEN_ALREADY_USED');
    const rows: { sealed_response: string | null }[] = await t.store.dataSource.query('SELECT sealed_response FROM idempotency_keys');
    expect(rows.length).toBeGreaterThan(0);
    const stored = rows.map((r) => r.sealed_response ?? '').join('\n');
    expect(stored).not.toContain(first.body.access_token);
    expect(stored).not.toContain(publicToken);
  });

  it('replays a validation failure (400) for the same key and body', async () => {
    const invalid = await post(t, '/api/link-token', withKey(org, 'invalid-body'), { clientUserId: '' });
    expectError(invalid, 'INVALID_FIELD', { details: expect.any(Array) });
    const again = await post(t, '/api/link-token', withKey(org, 'invalid-body'), { clientUserId: '' });
    expect(withoutRequestId(again.body)).toStrictEqual(withoutRequestId(invalid.body));
  });
});
