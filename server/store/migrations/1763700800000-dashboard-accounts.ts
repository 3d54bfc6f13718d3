import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * The dashboard (server/dashboard): people who sign in with email and password, their browser sessions,
 * the failed sign-ins per email (for the lockout) and which organizations each person belongs to.
 */
export class DashboardAccounts1763700800000 implements MigrationInterface {
  name = 'DashboardAccounts1763700800000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'dashboard_users',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'email', type: 'varchar', length: '320', isUnique: true },
          { name: 'password_hash', type: 'text' },
          { name: 'created_at', type: t.timestamp },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'dashboard_sessions',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'csrf_token', type: 'varchar', length: '64' },
          { name: 'created_at', type: t.timestamp },
          { name: 'expires_at', type: t.timestamp },
        ],
        indices: [
          new TableIndex({ name: 'ix_dashboard_sessions_user', columnNames: ['user_id'] }),
          new TableIndex({ name: 'ix_dashboard_sessions_expires', columnNames: ['expires_at'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'dashboard_login_throttle',
        columns: [
          { name: 'email', type: 'varchar', length: '320', isPrimary: true },
          { name: 'failed_attempts', type: 'integer' },
          { name: 'locked_until', type: t.timestamp, isNullable: true },
          { name: 'updated_at', type: t.timestamp },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'org_memberships',
        columns: [
          { name: 'user_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'organization_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'role', type: 'varchar', length: '16' },
          { name: 'created_at', type: t.timestamp },
        ],
        indices: [new TableIndex({ name: 'ix_org_memberships_org', columnNames: ['organization_id'] })],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('org_memberships');
    await q.dropTable('dashboard_login_throttle');
    await q.dropTable('dashboard_sessions');
    await q.dropTable('dashboard_users');
  }
}
