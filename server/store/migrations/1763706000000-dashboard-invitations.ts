import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * Dashboard invitations, disabled organizations and the one-time flash of a dashboard session.
 * - dashboard_invitations: a link a member made for someone to join the organization; only the SHA-256 of its token is
 *   stored; it expires and is used once (a conditional UPDATE of used_at settles two uses racing).
 * - organizations.disabled_at: set, the organization's credentials are refused and its dashboard pages closed.
 * - dashboard_sessions.flash: what one redirected page shows once (new secrets), sealed with a key derived from the
 *   session cookie, which the server never stores: the row alone cannot be opened.
 */
export class DashboardInvitations1763706000000 implements MigrationInterface {
  name = 'DashboardInvitations1763706000000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'dashboard_invitations',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'organization_id', type: 'varchar', length: '64' },
          { name: 'role', type: 'varchar', length: '16' },
          { name: 'created_by', type: 'varchar', length: '64' },
          { name: 'created_at', type: t.timestamp },
          { name: 'expires_at', type: t.timestamp },
          { name: 'used_at', type: t.timestamp, isNullable: true },
          { name: 'used_by', type: 'varchar', length: '64', isNullable: true },
        ],
        indices: [new TableIndex({ name: 'idx_dashboard_invitations_org', columnNames: ['organization_id', 'created_at'] })],
      }),
    );
    await q.query(`ALTER TABLE organizations ADD COLUMN disabled_at ${t.timestamp}`);
    await q.query(`ALTER TABLE dashboard_sessions ADD COLUMN flash text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dashboard_sessions DROP COLUMN flash`);
    await q.query(`ALTER TABLE organizations DROP COLUMN disabled_at`);
    await q.dropTable('dashboard_invitations');
  }
}
