import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * Health checks of connections' sessions between runs: on each connection, the last check (when, what it found), when
 * the next scheduled one is due, and the lease a process holds while it checks (claimed with a conditional UPDATE, so
 * two processes never check one connection at once); and an organization's schedule per environment.
 * The index serves the scheduler's one query: ACTIVE connections whose next check is due, oldest due first.
 */
export class ConnectionHealth1763701800000 implements MigrationInterface {
  name = 'ConnectionHealth1763701800000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.addColumns('connections', [
      new TableColumn({ name: 'last_checked_at', type: t.timestamp, isNullable: true }),
      new TableColumn({ name: 'last_check_outcome', type: 'varchar', length: '32', isNullable: true }),
      new TableColumn({ name: 'next_check_at', type: t.timestamp, isNullable: true }),
      new TableColumn({ name: 'check_owner', type: 'varchar', length: '128', isNullable: true }),
      new TableColumn({ name: 'check_lease_until', type: t.timestamp, isNullable: true }),
    ]);
    await q.createIndex(
      'connections',
      new TableIndex({ name: 'ix_connections_status_next_check', columnNames: ['status', 'next_check_at'] }),
    );
    await q.createTable(
      new Table({
        name: 'connection_settings',
        columns: [
          { name: 'organization_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'environment', type: 'varchar', length: '16', isPrimary: true },
          { name: 'health_check_interval_seconds', type: 'integer', isNullable: true },
          { name: 'health_check_providers', type: t.jsonColumn },
          { name: 'updated_at', type: t.timestamp },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('connection_settings');
    await q.dropIndex('connections', 'ix_connections_status_next_check');
    for (const column of ['check_lease_until', 'check_owner', 'next_check_at', 'last_check_outcome', 'last_checked_at'])
      await q.dropColumn('connections', column);
  }
}
