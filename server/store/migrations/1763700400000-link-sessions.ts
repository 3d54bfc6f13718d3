import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * The connect widget: every opening of it is a link session (its steps and how it ended, Plaid style),
 * and a link token may carry the organization's opt-in to storing sealed credentials for silent re-login.
 */
export class LinkSessions1763700400000 implements MigrationInterface {
  name = 'LinkSessions1763700400000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.addColumn('link_tokens', new TableColumn({ name: 'remember_credentials', type: 'boolean', isNullable: false, default: false }));
    await q.createTable(
      new Table({
        name: 'link_sessions',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'link_token_id', type: 'varchar', length: '64' },
          { name: 'organization_id', type: 'varchar', length: '64' },
          { name: 'environment', type: 'varchar', length: '16' },
          { name: 'client_user_id', type: 'varchar', length: '256' },
          { name: 'mode', type: 'varchar', length: '16' },
          { name: 'provider_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'connection_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'status', type: 'varchar', length: '32' },
          { name: 'error_code', type: 'varchar', length: '64', isNullable: true },
          { name: 'error_message', type: 'text', isNullable: true },
          { name: 'attempts', type: 'integer' },
          { name: 'created_at', type: t.timestamp },
          { name: 'updated_at', type: t.timestamp },
          { name: 'completed_at', type: t.timestamp, isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'ix_link_sessions_link_token', columnNames: ['link_token_id'] }),
          new TableIndex({ name: 'ix_link_sessions_owner_created', columnNames: ['organization_id', 'environment', 'created_at'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('link_sessions');
    await q.dropColumn('link_tokens', 'remember_credentials');
  }
}
