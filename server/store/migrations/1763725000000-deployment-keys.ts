import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * deployment_keys: keys of the deployment itself (not of an organization), one row per purpose, the private key sealed
 * by the vault: the Web Bot Auth signing key (server/domain/agent-signing-keys.ts). A row, not a file, so every process
 * of a deployment (API, workers) on the same database signs with the same key.
 */
export class DeploymentKeys1763725000000 implements MigrationInterface {
  name = 'DeploymentKeys1763725000000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'deployment_keys',
        columns: [
          { name: 'purpose', type: 'varchar', length: '64', isPrimary: true },
          { name: 'sealed_key', type: 'text' },
          { name: 'created_at', type: t.timestamp },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('deployment_keys');
  }
}
