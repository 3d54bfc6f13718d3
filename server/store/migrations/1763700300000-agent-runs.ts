import { type MigrationInterface, type QueryRunner, TableColumn, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * What a run leaves on its agent request: the step trace, which of the three ways ran (playbook, replay,
 * planner), the model usage, and the cancel flag a worker polls while it holds the lease.
 */
export class AgentRuns1763700300000 implements MigrationInterface {
  name = 'AgentRuns1763700300000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.addColumns('agent_requests', [
      new TableColumn({ name: 'trace', type: t.jsonColumn, isNullable: false, default: "'[]'" }),
      new TableColumn({ name: 'method', type: 'varchar', length: '16', isNullable: true }),
      new TableColumn({ name: 'model_usage', type: t.jsonColumn, isNullable: true }),
      new TableColumn({ name: 'cancel_requested_at', type: t.timestamp, isNullable: true }),
    ]);
    await q.createIndex(
      'agent_requests',
      new TableIndex({
        name: 'ix_agent_requests_owner_status_created',
        columnNames: ['organization_id', 'environment', 'status', 'created_at'],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('agent_requests', 'ix_agent_requests_owner_status_created');
    for (const column of ['cancel_requested_at', 'model_usage', 'method', 'trace']) await q.dropColumn('agent_requests', column);
  }
}
