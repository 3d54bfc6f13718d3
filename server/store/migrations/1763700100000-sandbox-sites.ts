import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * State of the simulated provider sites: their login sessions and their content (posts, repositories …)
 * as JSON documents, each scoped to a tenant (one per organization) and a site.
 */
export class SandboxSites1763700100000 implements MigrationInterface {
  name = 'SandboxSites1763700100000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'sandbox_sessions',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'tenant', type: 'varchar', length: '64' },
          { name: 'site', type: 'varchar', length: '32' },
          { name: 'username', type: 'varchar', length: '64' },
          { name: 'csrf_token', type: 'varchar', length: '64' },
          { name: 'created_at', type: t.timestamp },
          { name: 'expires_at', type: t.timestamp },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'sandbox_records',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'tenant', type: 'varchar', length: '64' },
          { name: 'site', type: 'varchar', length: '32' },
          { name: 'kind', type: 'varchar', length: '32' },
          { name: 'data', type: t.jsonColumn },
          { name: 'created_at', type: t.timestamp },
          { name: 'updated_at', type: t.timestamp },
        ],
        indices: [new TableIndex({ name: 'ix_sandbox_records_scope', columnNames: ['tenant', 'site', 'kind', 'created_at'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'sandbox_tenants',
        columns: [
          { name: 'tenant', type: 'varchar', length: '64', isPrimary: true },
          { name: 'site', type: 'varchar', length: '32', isPrimary: true },
          { name: 'seeded_at', type: t.timestamp },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['sandbox_tenants', 'sandbox_records', 'sandbox_sessions']) await q.dropTable(table);
  }
}
