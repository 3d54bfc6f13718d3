import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * Webhooks: endpoints (signing secret sealed with the vault), events (the exact body that is signed and sent)
 * and deliveries (one per event and endpoint, claimed by dispatchers with a lease, retried on a schedule).
 */
export class Webhooks1763701000000 implements MigrationInterface {
  name = 'Webhooks1763701000000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'webhook_endpoints',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'organization_id', type: 'varchar', length: '64' },
          { name: 'environment', type: 'varchar', length: '16' },
          { name: 'url', type: 'text' },
          { name: 'description', type: 'text', isNullable: true },
          { name: 'events', type: t.jsonColumn },
          { name: 'enabled', type: 'boolean', default: true },
          { name: 'sealed_secret', type: 'text' },
          { name: 'created_at', type: t.timestamp },
          { name: 'updated_at', type: t.timestamp },
        ],
      }),
    );
    await q.createIndex(
      'webhook_endpoints',
      new TableIndex({ name: 'idx_webhook_endpoints_owner', columnNames: ['organization_id', 'environment'] }),
    );
    await q.createTable(
      new Table({
        name: 'webhook_events',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'organization_id', type: 'varchar', length: '64' },
          { name: 'environment', type: 'varchar', length: '16' },
          { name: 'type', type: 'varchar', length: '64' },
          { name: 'payload', type: 'text' },
          { name: 'created_at', type: t.timestamp },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'endpoint_id', type: 'varchar', length: '64' },
          { name: 'event_id', type: 'varchar', length: '64' },
          { name: 'organization_id', type: 'varchar', length: '64' },
          { name: 'environment', type: 'varchar', length: '16' },
          { name: 'event_type', type: 'varchar', length: '64' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'next_attempt_at', type: t.timestamp, isNullable: true },
          { name: 'lease_owner', type: 'varchar', length: '128', isNullable: true },
          { name: 'lease_expires_at', type: t.timestamp, isNullable: true },
          { name: 'last_response_status', type: 'integer', isNullable: true },
          { name: 'last_error', type: 'text', isNullable: true },
          { name: 'attempt_log', type: t.jsonColumn },
          { name: 'created_at', type: t.timestamp },
          { name: 'updated_at', type: t.timestamp },
          { name: 'completed_at', type: t.timestamp, isNullable: true },
        ],
      }),
    );
    await q.createIndex(
      'webhook_deliveries',
      new TableIndex({ name: 'idx_webhook_deliveries_due', columnNames: ['status', 'next_attempt_at'] }),
    );
    await q.createIndex(
      'webhook_deliveries',
      new TableIndex({ name: 'idx_webhook_deliveries_endpoint', columnNames: ['endpoint_id', 'created_at'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('webhook_deliveries');
    await q.dropTable('webhook_events');
    await q.dropTable('webhook_endpoints');
  }
}
