import type { Repository } from 'typeorm';

import { newId } from '../../server/domain/ids';
import { hashToken } from '../../server/domain/tokens';
import type { AgentRequestRecord, WebhookEndpointRecord } from '../../server/store';
import { preparedSql } from '../../server/store/prepared-sql';
import { preparedTable } from '../../server/store/prepared-table';
import { describeEachStore } from '../support/app';
import { connectSandbox, createOrg } from '../support/helpers';

function agentRequest(overrides: Partial<AgentRequestRecord> = {}): AgentRequestRecord {
  return {
    id: newId('areq'),
    organizationId: 'org_prepared',
    environment: 'sandbox',
    connectionId: 'conn_prepared',
    providerId: 'provider_prepared',
    action: 'Read my profile',
    startingUrl: 'http://orbit.sandbox.localhost/me',
    parameters: { text: 'héllo ✓', nested: { n: 1.5, list: [true, null, 'x'] } },
    responseFormat: { posts: [{ title: 'string' }] },
    timeoutMs: 60_000,
    mode: 'read_write',
    playbook: null,
    approval: null,
    sealedUserAction: null,
    userDecision: null,
    warnings: [],
    status: 'COMPLETED',
    result: { posts: [{ title: 'First' }] },
    error: null,
    createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
    startedAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 6, 0)),
    completedAt: null,
    executionTimeMs: 1234,
    attempts: 1,
    attemptLog: [{ attempt: 1, worker: 'host:1:abcd', startedAt: '2026-11-26T00:00:00.000Z' }],
    leaseOwner: null,
    leaseExpiresAt: null,
    trace: [],
    method: 'PLAYBOOK',
    modelUsage: null,
    cancelRequestedAt: null,
    traceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    ...overrides,
  };
}

/**
 * The hot path's prepared statements (PreparedSql, PreparedTable, the joined access-grant lookup) on both
 * engines: rows they write and read must be exactly what TypeORM writes and reads.
 */
describeEachStore('prepared statements', (t) => {
  const typeorm = <T extends object>(name: string) => t.store.dataSource.getRepository(name) as unknown as Repository<T>;

  it('reads back what it inserted, with dates, JSON, nulls and numbers converted as TypeORM does', async () => {
    const record = agentRequest();
    await t.store.repos.agentRequests.insert(record);
    expect(await t.store.repos.agentRequests.findById(record.id)).toStrictEqual(record);
    // TypeORM's own find reads the same row identically.
    expect({ ...(await typeorm<AgentRequestRecord>('AgentRequest').findOneBy({ id: record.id })) }).toStrictEqual(record);
  });

  it('reads rows written by TypeORM itself (booleans included)', async () => {
    const endpoint: WebhookEndpointRecord = (await typeorm<WebhookEndpointRecord>('WebhookEndpoint').save({
      id: newId('whk'),
      organizationId: 'org_prepared',
      environment: 'sandbox',
      url: 'https://hooks.example.com/agentlink',
      sealedSecret: 'sealed',
      events: ['AGENT_REQUEST.COMPLETED'],
      enabled: false,
      createdAt: new Date(Date.UTC(2026, 0, 3)),
      updatedAt: new Date(Date.UTC(2026, 0, 3)),
    } as unknown as WebhookEndpointRecord)) as WebhookEndpointRecord;
    const read = await t.store.repos.webhookEndpoints.findById(endpoint.id);
    expect(read).toStrictEqual({ ...(await typeorm<WebhookEndpointRecord>('WebhookEndpoint').findOneBy({ id: endpoint.id })) });
    expect(read?.enabled).toBe(false);
    expect(read?.events).toStrictEqual(['AGENT_REQUEST.COMPLETED']);
  });

  it('matches every given column, and answers null when none matches', async () => {
    const record = agentRequest();
    await t.store.repos.agentRequests.insert(record);
    const table = preparedTable(typeorm<AgentRequestRecord>('AgentRequest'));
    expect((await table.findOneBy({ id: record.id, organizationId: 'org_prepared', environment: 'sandbox' }))?.id).toBe(record.id);
    expect(await table.findOneBy({ id: record.id, environment: 'production' })).toBeNull();
    expect(await table.findOneBy({ id: 'areq_nothing' })).toBeNull();
  });

  it('refuses lookups that TypeORM would silently widen: no values, null values, unknown columns', async () => {
    const table = preparedTable(typeorm<AgentRequestRecord>('AgentRequest'));
    await expect(table.findOneBy({ id: undefined })).rejects.toThrow('no values to where');
    await expect(table.findOneBy({ leaseOwner: null })).rejects.toThrow('null is not looked up');
    await expect(table.findOneBy({ nope: 'x' } as unknown as Partial<AgentRequestRecord>)).rejects.toThrow('has no column nope');
  });

  it('lets a duplicate primary key fail the insert (claims rely on it) and keeps the first row', async () => {
    const record = agentRequest();
    await t.store.repos.agentRequests.insert(record);
    await expect(t.store.repos.agentRequests.insert({ ...record, action: 'Another' })).rejects.toThrow();
    expect((await t.store.repos.agentRequests.findById(record.id))?.action).toBe('Read my profile');
  });

  it('updates only a held request of its lease owner, counts the rows it changed, and writes what TypeORM would', async () => {
    const repo = t.store.repos.agentRequests;
    const lease = new Date(Date.UTC(2026, 0, 2, 3, 5, 0, 0));
    const held = agentRequest({ status: 'RUNNING', leaseOwner: 'worker-a', leaseExpiresAt: lease, completedAt: null, result: null });
    await repo.insert(held);
    // Another worker, or a request no longer held, changes nothing (the caller learns it lost the lease).
    expect(await repo.heartbeat(held.id, 'worker-b', new Date(lease.getTime() + 1000))).toBeNull();
    expect(await repo.heartbeat('areq_missing', 'worker-a', new Date(lease.getTime() + 1000))).toBeNull();
    expect((await repo.findById(held.id))?.leaseExpiresAt).toStrictEqual(lease);
    // Its owner's heartbeat extends the lease and says no cancel was asked.
    expect(await repo.heartbeat(held.id, 'worker-a', new Date(lease.getTime() + 30_000))).toStrictEqual({
      cancelRequested: false,
      userDecision: null,
    });
    expect((await repo.findById(held.id))?.leaseExpiresAt).toStrictEqual(new Date(lease.getTime() + 30_000));
    const log = [{ attempt: 1, worker: 'worker-a', startedAt: '2026-11-26T00:00:00.000Z', ended: 'retried' as const }];
    expect(await repo.noteAttempts(held.id, 'worker-a', log)).toBe(true);
    expect(await repo.statusOf(held.id)).toBe('RUNNING');
    const completedAt = new Date(Date.UTC(2026, 0, 2, 3, 6, 0, 0));
    const trace = [
      { tool: 'navigate', target: 'starting URL', url: 'http://orbit.sandbox.localhost/', durationMs: 12, outcome: 'ok' as const },
    ];
    const final = {
      status: 'COMPLETED' as const,
      result: { name: 'Grace' },
      error: null,
      completedAt,
      executionTimeMs: 321,
      trace,
      method: 'PLAYBOOK' as const,
    };
    expect(await repo.finish(held.id, 'worker-b', final)).toBe(false);
    expect(await repo.finish(held.id, 'worker-a', final)).toBe(true);
    // Finished: no longer held, so a late heartbeat or a second final write changes nothing.
    expect(await repo.finish(held.id, 'worker-a', { ...final, status: 'FAILED' })).toBe(false);
    expect(await repo.heartbeat(held.id, 'worker-a', lease)).toBeNull();
    const expected = { ...held, ...final, attemptLog: log, leaseOwner: null, leaseExpiresAt: null, sealedUserAction: null };
    expect(await repo.findById(held.id)).toStrictEqual(expected);
    expect({ ...(await typeorm<AgentRequestRecord>('AgentRequest').findOneBy({ id: held.id })) }).toStrictEqual(expected);
    expect(await repo.statusOf(held.id)).toBe('COMPLETED');
    expect(await repo.statusOf('areq_missing')).toBeNull();
  });

  it("answers a cancel asked meanwhile in its lease owner's heartbeat, and only there", async () => {
    const repo = t.store.repos.agentRequests;
    const lease = new Date(Date.UTC(2026, 0, 2, 3, 5, 0, 0));
    const held = agentRequest({ status: 'RUNNING', leaseOwner: 'worker-a', leaseExpiresAt: lease, completedAt: null, result: null });
    await repo.insert(held);
    expect(await repo.requestCancel(held.id, new Date(lease.getTime() - 1000))).toBe(true);
    expect(await repo.heartbeat(held.id, 'worker-b', new Date(lease.getTime() + 1000))).toBeNull();
    expect(await repo.heartbeat(held.id, 'worker-a', new Date(lease.getTime() + 1000))).toStrictEqual({
      cancelRequested: true,
      userDecision: null,
    });
  });

  it('reports a statement that does not prepare, and keeps working afterwards', async () => {
    const sql = preparedSql(t.store.dataSource);
    await expect(sql.query('SELECT nope FROM no_such_table WHERE x = $1', [1])).rejects.toThrow(/no_such_table/);
    await expect(sql.query('SELECT nope FROM no_such_table WHERE x = $1', [1])).rejects.toThrow(/no_such_table/);
    const { rows } = await sql.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM organizations WHERE name = $1', ['nobody']);
    expect(Number(rows[0].n)).toBe(0);
  });

  it('resolves an access token to its grant in one lookup, and sees revocation at once', async () => {
    const org = await createOrg(t, 'Grant Co');
    const conn = await connectSandbox(t, org, { clientUserId: 'grant-user' });
    const accessTokens = t.store.repos.accessTokens;
    const grant = await accessTokens.findGrant(hashToken(conn.accessToken));
    expect(grant).toStrictEqual({
      organizationId: expect.stringMatching(/^org_/),
      environment: 'sandbox',
      revoked: false,
      connection: { id: conn.connectionId, providerId: conn.providerId, clientUserId: 'grant-user', status: 'ACTIVE' },
    });
    expect(await accessTokens.findGrant(hashToken('access-sandbox-unknown'))).toBeNull();
    await t.store.repos.connections.setStatus(conn.connectionId, 'LOGIN_REQUIRED', t.clock.now());
    expect((await accessTokens.findGrant(hashToken(conn.accessToken)))?.connection.status).toBe('LOGIN_REQUIRED');
    await accessTokens.revokeAllForConnection(conn.connectionId, t.clock.now());
    expect((await accessTokens.findGrant(hashToken(conn.accessToken)))?.revoked).toBe(true);
  });

  it('inserts an agent request on a known grant only while token and connection are usable, in one statement', async () => {
    const org = await createOrg(t, 'Granted Co');
    const conn = await connectSandbox(t, org, { clientUserId: 'granted-user' });
    const hash = hashToken(conn.accessToken);
    const grant = (await t.store.repos.accessTokens.findGrant(hash))!;
    const repo = t.store.repos.agentRequests;
    const on = {
      organizationId: grant.organizationId,
      environment: 'sandbox' as const,
      connectionId: conn.connectionId,
      providerId: conn.providerId,
    };
    const ok = agentRequest(on);
    expect(await repo.insertIfGranted(ok, hash)).toBe(true);
    expect(await repo.findById(ok.id)).toStrictEqual(ok);

    // Each condition on its own: another organization, environment, connection, or an unknown token writes nothing.
    for (const bad of [
      agentRequest({ ...on, organizationId: 'org_someone_else' }),
      agentRequest({ ...on, environment: 'production' }),
      agentRequest({ ...on, connectionId: 'conn_other' }),
    ]) {
      expect(await repo.insertIfGranted(bad, hash)).toBe(false);
      expect(await repo.findById(bad.id)).toBeNull();
    }
    expect(await repo.insertIfGranted(agentRequest(on), hashToken('access-sandbox-unknown'))).toBe(false);

    // The connection's state and the token's revocation are read at insert time.
    await t.store.repos.connections.setStatus(conn.connectionId, 'LOGIN_REQUIRED', t.clock.now());
    expect(await repo.insertIfGranted(agentRequest(on), hash)).toBe(false);
    await t.store.repos.connections.setStatus(conn.connectionId, 'ACTIVE', t.clock.now());
    expect(await repo.insertIfGranted(agentRequest(on), hash)).toBe(true);
    await t.store.repos.accessTokens.revokeAllForConnection(conn.connectionId, t.clock.now());
    const late = agentRequest(on);
    expect(await repo.insertIfGranted(late, hash)).toBe(false);
    expect(await repo.findById(late.id)).toBeNull();
  });
});
