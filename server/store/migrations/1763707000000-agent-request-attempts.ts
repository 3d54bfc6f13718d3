import type { MigrationInterface, QueryRunner } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * agent_requests.attempt_log: every claim of the request, in order (attempt number, the worker's lease owner id, when
 * it started, and whether it gave the request back), so the API shows which worker ran each attempt. JSON like the
 * other JSON columns (jsonb on PostgreSQL); nullable, so plain ADD COLUMN on SQLite and PostgreSQL.
 */
export class AgentRequestAttempts1763707000000 implements MigrationInterface {
  name = 'AgentRequestAttempts1763707000000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.query(`ALTER TABLE agent_requests ADD COLUMN attempt_log ${t.jsonColumn} NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_requests DROP COLUMN attempt_log`);
  }
}
