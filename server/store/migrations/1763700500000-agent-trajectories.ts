import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * Trajectories learned from successful planner runs, replayed without the model. The id is the cache key:
 * hash(version, provider, action template, starting path, parameter names).
 */
export class AgentTrajectories1763700500000 implements MigrationInterface {
  name = 'AgentTrajectories1763700500000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'agent_trajectories',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'provider_id', type: 'varchar', length: '64' },
          { name: 'action_template', type: 'text' },
          { name: 'version', type: 'integer' },
          { name: 'schema_hash', type: 'varchar', length: '64' },
          { name: 'trajectory', type: t.jsonColumn },
          { name: 'replay_count', type: 'integer', default: 0 },
          { name: 'created_at', type: t.timestamp },
          { name: 'updated_at', type: t.timestamp },
          { name: 'last_replayed_at', type: t.timestamp, isNullable: true },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('agent_trajectories');
  }
}
