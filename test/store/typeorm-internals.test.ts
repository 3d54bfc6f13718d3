import sqlite3 from 'sqlite3';
import { DataSource, type DataSourceOptions, type Repository } from 'typeorm';

import { newId } from '../../server/domain/ids';
import type { AccessTokenRecord, ConnectionRecord, OrganizationRecord } from '../../server/store';
import { closePreparedSql, PreparedSql } from '../../server/store/prepared-sql';
import { preparedTable } from '../../server/store/prepared-table';
import { describeEachStore } from '../support/app';
import { asProbeRow, cents, probe, probeEntity, type ProbeRecord } from './typeorm-internals-fixtures';

/**
 * What the hot path's prepared statements (server/store/prepared-sql.ts, prepared-table.ts) take from TypeORM
 * beyond its documented API. A TypeORM upgrade that changes any of it must fail here, not in production:
 *  - on SQLite, `driver.databaseConnection` is the sqlite3 Database TypeORM itself queries through;
 *  - on PostgreSQL, `QueryRunner.query(sql, params, true)` answers a QueryResult (records, affected);
 *  - the drivers' preparePersistentValue / prepareHydratedValue convert values as TypeORM's own reads and
 *    writes do, value transformers included;
 *  - each column's `databaseName` is the column the hand-written hot-path SQL names.
 * (prepared-statements.test.ts already pins agent requests and webhook endpoints read and written both ways.)
 * The probe entity with value transformers: typeorm-internals-fixtures.ts.
 */

describeEachStore('TypeORM internals the prepared statements rely on', (t) => {
  const typeorm = <T extends object>(name: string) => t.store.dataSource.getRepository(name) as unknown as Repository<T>;

  if (t.dialect === 'sqlite') {
    it('exposes the sqlite3 Database TypeORM queries through as driver.databaseConnection', async () => {
      const db = (t.store.dataSource.driver as unknown as { databaseConnection: sqlite3.Database }).databaseConnection;
      expect(db).toBeInstanceOf(sqlite3.Database);
      // A TEMP table exists only on the connection that made it: this is TypeORM's own connection.
      await t.store.dataSource.query('CREATE TEMP TABLE internals_connection_probe (n integer)');
      try {
        await t.store.dataSource.query('INSERT INTO internals_connection_probe (n) VALUES (42)');
        const rows = await new Promise<object[]>((resolve, reject) =>
          db.all('SELECT n FROM internals_connection_probe', (err, r: object[]) => (err ? reject(err) : resolve(r))),
        );
        expect(rows.map((r) => ({ ...r }))).toStrictEqual([{ n: 42 }]);
      } finally {
        await t.store.dataSource.query('DROP TABLE internals_connection_probe');
      }
    });
  } else {
    it('answers QueryRunner.query(sql, params, true) with a QueryResult of rows and affected count', async () => {
      const runner = t.store.dataSource.createQueryRunner();
      try {
        const select = await runner.query('SELECT CAST($1 AS integer) AS n, CAST($2 AS text) AS s', [7, 'x'], true);
        expect(select.records).toStrictEqual([{ n: 7, s: 'x' }]);
        await runner.query('CREATE TEMP TABLE internals_result_probe (n integer)');
        await runner.query('INSERT INTO internals_result_probe (n) VALUES (1), (2), (3)');
        const update = await runner.query('UPDATE internals_result_probe SET n = n + 10 WHERE n >= $1', [2], true);
        expect(update.affected).toBe(2);
        const returning = await runner.query('UPDATE internals_result_probe SET n = n + 1 WHERE n = $1 RETURNING n', [12], true);
        expect(returning.records).toStrictEqual([{ n: 13 }]);
      } finally {
        await runner.query('DROP TABLE IF EXISTS internals_result_probe').catch(() => undefined);
        await runner.release();
      }
    });
  }

  it('maps the hot path entities to the tables and columns their hand-written SQL names', () => {
    const mapping = (name: string) => {
      const metadata = t.store.dataSource.getMetadata(name);
      return { table: metadata.tableName, columns: Object.fromEntries(metadata.columns.map((c) => [c.propertyName, c.databaseName])) };
    };
    expect(mapping('Organization')).toStrictEqual({
      table: 'organizations',
      columns: {
        id: 'id',
        name: 'name',
        clientId: 'client_id',
        sandboxSecretHash: 'sandbox_secret_hash',
        productionSecretHash: 'production_secret_hash',
        createdAt: 'created_at',
        updatedAt: 'updated_at',
        // Read with the credentials on every call (CREDENTIALS_SQL): a disabled organization is refused at once.
        disabledAt: 'disabled_at',
      },
    });
    // Looked up on every link-token and agent-request for an organization's own provider (PreparedTable.findOneBy).
    expect(mapping('OrganizationProvider')).toStrictEqual({
      table: 'organization_providers',
      columns: {
        id: 'id',
        organizationId: 'organization_id',
        environment: 'environment',
        slug: 'slug',
        declaration: 'declaration',
        createdAt: 'created_at',
        updatedAt: 'updated_at',
      },
    });
    expect(mapping('AccessToken')).toStrictEqual({
      table: 'access_tokens',
      columns: {
        id: 'id',
        tokenHash: 'token_hash',
        organizationId: 'organization_id',
        environment: 'environment',
        connectionId: 'connection_id',
        createdAt: 'created_at',
        lastUsedAt: 'last_used_at',
        revokedAt: 'revoked_at',
      },
    });
    expect(mapping('Connection')).toStrictEqual({
      table: 'connections',
      columns: {
        id: 'id',
        organizationId: 'organization_id',
        environment: 'environment',
        providerId: 'provider_id',
        clientUserId: 'client_user_id',
        status: 'status',
        sealedSession: 'sealed_session',
        sealedCredentials: 'sealed_credentials',
        device: 'device',
        sealedExitProxy: 'sealed_exit_proxy',
        exitProxyLabel: 'exit_proxy_label',
        sealedPasskey: 'sealed_passkey',
        passkey: 'passkey',
        createdAt: 'created_at',
        updatedAt: 'updated_at',
        lastUsedAt: 'last_used_at',
        revokedAt: 'revoked_at',
        lastCheckedAt: 'last_checked_at',
        lastCheckOutcome: 'last_check_outcome',
        nextCheckAt: 'next_check_at',
        checkOwner: 'check_owner',
        checkLeaseUntil: 'check_lease_until',
      },
    });
    expect(mapping('AgentRequest')).toStrictEqual({
      table: 'agent_requests',
      columns: {
        id: 'id',
        organizationId: 'organization_id',
        environment: 'environment',
        connectionId: 'connection_id',
        providerId: 'provider_id',
        action: 'action',
        startingUrl: 'starting_url',
        parameters: 'parameters',
        responseFormat: 'response_format',
        timeoutMs: 'timeout_ms',
        mode: 'mode',
        playbook: 'playbook',
        approval: 'approval',
        status: 'status',
        sealedUserAction: 'sealed_user_action',
        userDecision: 'user_decision',
        result: 'result',
        error: 'error',
        warnings: 'warnings',
        createdAt: 'created_at',
        startedAt: 'started_at',
        completedAt: 'completed_at',
        executionTimeMs: 'execution_time_ms',
        attempts: 'attempts',
        attemptLog: 'attempt_log',
        leaseOwner: 'lease_owner',
        leaseExpiresAt: 'lease_expires_at',
        trace: 'trace',
        method: 'method',
        modelUsage: 'model_usage',
        cancelRequestedAt: 'cancel_requested_at',
        traceParent: 'trace_parent',
      },
    });
  });

  it('maps every entity to columns its table really has (what PreparedTable selects and inserts)', async () => {
    for (const metadata of t.store.dataSource.entityMetadatas) {
      const rows: { name: string }[] =
        t.dialect === 'sqlite'
          ? await t.store.dataSource.query(`SELECT name FROM pragma_table_info('${metadata.tableName}')`)
          : await t.store.dataSource.query(
              'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
              [metadata.tableName],
            );
      expect({ table: metadata.tableName, columns: metadata.columns.map((c) => c.databaseName).sort() }).toStrictEqual({
        table: metadata.tableName,
        columns: rows.map((r) => r.name).sort(),
      });
    }
  });

  it('reads and writes the hot path entities exactly as TypeORM does, both ways', async () => {
    const now = new Date(Date.UTC(2026, 1, 1, 10, 11, 12, 345));
    const org = (): OrganizationRecord => ({
      id: newId('org'),
      name: 'Internals Co ✓',
      clientId: newId('req'),
      sandboxSecretHash: 'scrypt$sandbox',
      productionSecretHash: 'scrypt$production',
      createdAt: now,
      updatedAt: new Date(now.getTime() + 1),
      disabledAt: null,
    });
    const connection = (): ConnectionRecord => ({
      id: newId('conn'),
      organizationId: 'org_internals',
      environment: 'production',
      providerId: 'orbit',
      clientUserId: 'user ✓',
      status: 'LOGIN_REQUIRED',
      sealedSession: 'sealed-session',
      sealedCredentials: null,
      device: { platform: 'Windows', viewport: { width: 1366, height: 900 } },
      sealedExitProxy: 'sealed-exit',
      exitProxyLabel: 'Exit ✓',
      sealedPasskey: 'sealed-passkey',
      passkey: { credentialId: 'AbC-_9', rpId: 'orbit.example', createdAt: '2026-02-01T10:11:12.345Z', lastUsedAt: null },
      createdAt: now,
      updatedAt: now,
      lastUsedAt: new Date(now.getTime() + 999),
      revokedAt: null,
      lastCheckedAt: new Date(now.getTime() + 7),
      lastCheckOutcome: 'TIMED_OUT',
      nextCheckAt: new Date(now.getTime() + 3_600_000),
      checkOwner: null,
      checkLeaseUntil: null,
    });
    const accessToken = (): AccessTokenRecord => ({
      id: newId('atok'),
      tokenHash: newId('req'),
      organizationId: 'org_internals',
      environment: 'sandbox',
      connectionId: 'conn_internals',
      createdAt: now,
      lastUsedAt: null,
      revokedAt: new Date(now.getTime() + 5),
    });
    const cases = [
      { entity: 'Organization', make: org, find: (r: OrganizationRecord) => t.store.repos.organizations.findByClientId(r.clientId) },
      { entity: 'Connection', make: connection, find: (r: ConnectionRecord) => t.store.repos.connections.findOwned(r.id, r) },
      { entity: 'AccessToken', make: accessToken, find: (r: AccessTokenRecord) => t.store.repos.accessTokens.findByHash(r.tokenHash) },
    ] as const;
    for (const c of cases) {
      const repo = typeorm<Record<string, unknown>>(c.entity);
      const find = c.find as unknown as (r: Record<string, unknown>) => Promise<unknown>;
      // Written through the prepared INSERT: both readers see the record as it was.
      const prepared = c.make() as unknown as Record<string, unknown>;
      await preparedTable(repo).insert(prepared);
      expect(await find(prepared)).toStrictEqual(prepared);
      expect({ ...(await repo.findOneBy({ id: prepared.id as string })) }).toStrictEqual(prepared);
      // Written by TypeORM: the prepared lookup reads what TypeORM reads.
      const written = c.make() as unknown as Record<string, unknown>;
      await repo.insert(written);
      expect(await find(written)).toStrictEqual(written);
      expect({ ...(await repo.findOneBy({ id: written.id as string })) }).toStrictEqual(written);
    }
  });

  describe('value conversions and transformers', () => {
    let ds: DataSource;
    let repo: Repository<ProbeRecord>;

    beforeAll(async () => {
      // The test database, with one more entity that has transformers (the store's entities have none).
      ds = new DataSource({
        ...t.store.dataSource.options,
        entities: [probeEntity(t.dialect)],
        migrations: [],
        synchronize: true,
      } as DataSourceOptions);
      await ds.initialize();
      repo = ds.getRepository<ProbeRecord>('InternalsProbe');
    });
    afterAll(async () => {
      if (!ds?.isInitialized) return;
      await closePreparedSql(ds);
      await ds.query('DROP TABLE typeorm_internals_probe').catch(() => undefined);
      await ds.destroy();
    });

    it("applies value transformers in the driver's preparePersistentValue and prepareHydratedValue", () => {
      const amount = repo.metadata.findColumnWithPropertyName('amount')!;
      const tags = repo.metadata.findColumnWithPropertyName('tags')!;
      expect(amount.transformer).toBe(cents);
      expect(ds.driver.preparePersistentValue(12.34, amount)).toBe(1234);
      expect(ds.driver.prepareHydratedValue(1234, amount)).toBe(12.34);
      expect(ds.driver.preparePersistentValue(['a', 'b'], tags)).toBe('a,b');
      expect(ds.driver.prepareHydratedValue('a,b', tags)).toStrictEqual(['a', 'b']);
      expect(ds.driver.prepareHydratedValue(null, tags)).toBeNull();
    });

    it('writes rows TypeORM reads back identically, with transformed values stored as TypeORM stores them', async () => {
      const table = preparedTable(repo);
      const record = probe({ seenAt: new Date(Date.UTC(2026, 1, 4)), enabled: true });
      await table.insert(record);
      expect({ ...(await repo.findOneBy({ id: record.id })) }).toStrictEqual(record);
      const written = probe({ seenAt: record.seenAt, enabled: true });
      await repo.insert(asProbeRow(written));
      // Stored as TypeORM stores it: the transformers' output, in the driver's representation.
      const raw = async (id: string) =>
        (
          (await ds.query(
            `SELECT amount_cents, tag_list, is_enabled FROM typeorm_internals_probe WHERE id = ${t.dialect === 'sqlite' ? '?' : '$1'}`,
            [id],
          )) as object[]
        ).map((r) => ({ ...r }));
      expect(await raw(record.id)).toStrictEqual([{ amount_cents: 1234, tag_list: 'a,b', is_enabled: t.dialect === 'sqlite' ? 1 : true }]);
      expect(await raw(record.id)).toStrictEqual(await raw(written.id));
    });

    it('reads rows TypeORM wrote identically, and looks them up by transformed values', async () => {
      const table = preparedTable(repo);
      const record = probe({ data: null, amount: 0.07, tags: ['x'], enabled: true });
      await repo.insert(asProbeRow(record));
      expect(await table.findOneBy({ id: record.id })).toStrictEqual({ ...(await repo.findOneBy({ id: record.id })) });
      expect(await table.findOneBy({ id: record.id })).toStrictEqual(record);
      expect((await table.findOneBy({ amount: 0.07, tags: ['x'], enabled: true }))?.id).toBe(record.id);
      expect(await table.findOneBy({ id: record.id, amount: 0.08 })).toBeNull();
    });

    it('inserts through INSERT … SELECT with the same conversions (the agent request insert of the hot path)', async () => {
      const table = preparedTable(repo);
      const record = probe({ enabled: true, seenAt: new Date(Date.UTC(2026, 1, 5, 1, 2, 3, 4)) });
      expect(await table.insertWhere(record, '1 = 1', [])).toBe(true);
      expect({ ...(await repo.findOneBy({ id: record.id })) }).toStrictEqual(record);
      const refused = probe();
      expect(await table.insertWhere(refused, '1 = 0', [])).toBe(false);
      expect(await repo.findOneBy({ id: refused.id })).toBeNull();
    });
  });
});

describe('startup checks of the TypeORM internals', () => {
  it('refuses a SQLite data source whose driver has no sqlite3 Database as databaseConnection', () => {
    const ds = { options: { type: 'sqlite' }, driver: { databaseConnection: undefined } } as unknown as DataSource;
    expect(() => new PreparedSql(ds)).toThrow(/^TypeORM internals changed: .*driver\.databaseConnection/);
    const renamed = { options: { type: 'sqlite' }, driver: { connection: {} } } as unknown as DataSource;
    expect(() => new PreparedSql(renamed)).toThrow(/TypeORM internals changed/);
  });

  it('refuses a repository whose driver lacks the value conversions or whose columns lack database names', () => {
    const connection = (driver: object) => ({ driver, options: { type: 'sqlite' } });
    const metadata = (columns: object[]) => ({ name: 'Fake', tableName: 'fakes', columns });
    const repo = (driver: object, columns: object[]) =>
      ({ manager: { connection: connection(driver) }, metadata: metadata(columns) }) as unknown as Repository<{ id: string }>;
    const column = { propertyName: 'id', databaseName: 'id' };
    const fn = () => undefined;
    expect(() => preparedTable(repo({ escape: fn, prepareHydratedValue: fn }, [column]))).toThrow(
      /^TypeORM internals changed: the sqlite driver has no preparePersistentValue\(\)/,
    );
    expect(() => preparedTable(repo({ escape: fn, preparePersistentValue: fn }, [column]))).toThrow(/has no prepareHydratedValue\(\)/);
    expect(() =>
      preparedTable(repo({ escape: fn, preparePersistentValue: fn, prepareHydratedValue: fn }, [{ propertyName: 'id', name: 'id' }])),
    ).toThrow(/TypeORM internals changed: a column of Fake has no propertyName or databaseName/);
  });
});
