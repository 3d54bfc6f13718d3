import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * agent_requests.mode: 'read' (the browser sends no state-changing request) or 'read_write' (the default, and what
 * every earlier request was). Plain ALTER TABLE … ADD COLUMN: the same statement on SQLite and PostgreSQL, and on
 * SQLite it does not rebuild the table the way TypeORM's addColumn does.
 */
export class AgentRequestMode1763701100000 implements MigrationInterface {
  name = 'AgentRequestMode1763701100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_requests ADD COLUMN mode varchar(16) NOT NULL DEFAULT 'read_write'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_requests DROP COLUMN mode`);
  }
}
