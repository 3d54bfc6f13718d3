import type { MigrationInterface, QueryRunner } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * agent_requests.playbook: the playbook a request names (null: routed as before). agent_requests.warnings: what a
 * COMPLETED request could not do fully (a result field left null after its write took effect); '[]' for every
 * earlier request. Plain ALTER TABLE … ADD COLUMN, like the mode column: the same statement on SQLite and
 * PostgreSQL, without the table rebuild TypeORM's addColumn does on SQLite.
 */
export class AgentRequestPlaybookWarnings1763701200000 implements MigrationInterface {
  name = 'AgentRequestPlaybookWarnings1763701200000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.query(`ALTER TABLE agent_requests ADD COLUMN playbook varchar(100) NULL`);
    await q.query(`ALTER TABLE agent_requests ADD COLUMN warnings ${t.jsonColumn} NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_requests DROP COLUMN warnings`);
    await q.query(`ALTER TABLE agent_requests DROP COLUMN playbook`);
  }
}
