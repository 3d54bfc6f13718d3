import { type MigrationInterface, type QueryRunner, Table, type TableColumnOptions, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/** The first schema: organizations, the three token kinds, connections and agent requests. */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    const id: TableColumnOptions = { name: 'id', type: 'varchar', length: '64', isPrimary: true };
    const str = (name: string, length = 255, isNullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
    });
    const text = (name: string, isNullable = false): TableColumnOptions => ({ name, type: 'text', isNullable });
    const time = (name: string, isNullable = false): TableColumnOptions => ({ name, type: t.timestamp, isNullable });
    const json = (name: string, isNullable = false): TableColumnOptions => ({ name, type: t.jsonColumn, isNullable });
    const int = (name: string, isNullable = false): TableColumnOptions => ({ name, type: 'integer', isNullable });

    await q.createTable(
      new Table({
        name: 'organizations',
        columns: [
          id,
          str('name'),
          str('client_id', 64),
          text('sandbox_secret_hash'),
          text('production_secret_hash'),
          time('created_at'),
          time('updated_at'),
        ],
        indices: [new TableIndex({ name: 'uq_organizations_client_id', columnNames: ['client_id'], isUnique: true })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'link_tokens',
        columns: [
          id,
          str('token_hash', 64),
          str('organization_id', 64),
          str('environment', 16),
          str('client_user_id', 256),
          str('provider_id', 64, true),
          str('connection_id', 64, true),
          time('expires_at'),
          time('used_at', true),
          time('created_at'),
        ],
        indices: [new TableIndex({ name: 'uq_link_tokens_hash', columnNames: ['token_hash'], isUnique: true })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'connections',
        columns: [
          id,
          str('organization_id', 64),
          str('environment', 16),
          str('provider_id', 64),
          str('client_user_id', 256),
          str('status', 32),
          text('sealed_session', true),
          text('sealed_credentials', true),
          time('created_at'),
          time('updated_at'),
          time('last_used_at', true),
          time('revoked_at', true),
        ],
        indices: [new TableIndex({ name: 'ix_connections_owner', columnNames: ['organization_id', 'environment', 'client_user_id'] })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'public_tokens',
        columns: [
          id,
          str('token_hash', 64),
          str('organization_id', 64),
          str('environment', 16),
          str('connection_id', 64),
          time('expires_at'),
          time('exchanged_at', true),
          time('created_at'),
        ],
        indices: [new TableIndex({ name: 'uq_public_tokens_hash', columnNames: ['token_hash'], isUnique: true })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'access_tokens',
        columns: [
          id,
          str('token_hash', 64),
          str('organization_id', 64),
          str('environment', 16),
          str('connection_id', 64),
          time('created_at'),
          time('last_used_at', true),
          time('revoked_at', true),
        ],
        indices: [
          new TableIndex({ name: 'uq_access_tokens_hash', columnNames: ['token_hash'], isUnique: true }),
          new TableIndex({ name: 'ix_access_tokens_connection', columnNames: ['connection_id'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'agent_requests',
        columns: [
          id,
          str('organization_id', 64),
          str('environment', 16),
          str('connection_id', 64),
          str('provider_id', 64),
          text('action'),
          text('starting_url'),
          json('parameters'),
          json('response_format'),
          int('timeout_ms'),
          str('status', 32),
          json('result', true),
          json('error', true),
          time('created_at'),
          time('started_at', true),
          time('completed_at', true),
          int('execution_time_ms', true),
          int('attempts'),
          str('lease_owner', 128, true),
          time('lease_expires_at', true),
        ],
        indices: [
          new TableIndex({ name: 'ix_agent_requests_owner_created', columnNames: ['organization_id', 'environment', 'created_at'] }),
          new TableIndex({ name: 'ix_agent_requests_queue', columnNames: ['status', 'lease_expires_at'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['agent_requests', 'access_tokens', 'public_tokens', 'connections', 'link_tokens', 'organizations']) {
      await q.dropTable(table);
    }
  }
}
