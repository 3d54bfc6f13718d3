import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * API rate limits and idempotency keys.
 * - rate_limit_buckets: one token bucket per key (organization + environment); updated by one conditional
 *   UPDATE per request, so the limit holds across API processes sharing the database.
 * - idempotency_keys: one row per (organization, environment, Idempotency-Key), id = sha256 of the three;
 *   the insert claims the key, the stored response (sealed with the vault) is replayed for 24 hours.
 */
export class ApiLimits1763700950000 implements MigrationInterface {
  name = 'ApiLimits1763700950000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'rate_limit_buckets',
        columns: [
          { name: 'bucket_key', type: 'varchar', length: '160', isPrimary: true },
          { name: 'tokens', type: 'double precision' },
          // Epoch milliseconds: the refill arithmetic stays plain numbers on both engines.
          { name: 'updated_at_ms', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'idempotency_keys',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'organization_id', type: 'varchar', length: '64' },
          { name: 'environment', type: 'varchar', length: '16' },
          { name: 'claim_id', type: 'varchar', length: '64' },
          { name: 'fingerprint', type: 'varchar', length: '64' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'response_status', type: 'integer', isNullable: true },
          { name: 'sealed_response', type: 'text', isNullable: true },
          { name: 'created_at', type: t.timestamp },
          { name: 'locked_until', type: t.timestamp },
          { name: 'expires_at', type: t.timestamp },
        ],
        indices: [{ name: 'idx_idempotency_keys_expires_at', columnNames: ['expires_at'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('idempotency_keys');
    await q.dropTable('rate_limit_buckets');
  }
}
