import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * agent_requests.trace_parent: the W3C traceparent of the API request that queued it, so the worker's spans join
 * that trace (the row is the queue entry on both engines). And an index on (status, created_at): workers look for
 * waiting requests by status, oldest first, and the metrics read the queue the same way.
 * Plain SQL, the same on SQLite and PostgreSQL (see AgentRequestMode1763701100000).
 */
export class AgentRequestTraceParent1763701300000 implements MigrationInterface {
  name = 'AgentRequestTraceParent1763701300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_requests ADD COLUMN trace_parent varchar(64) NULL`);
    await q.query(`CREATE INDEX ix_agent_requests_status_created ON agent_requests (status, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_agent_requests_status_created`);
    await q.query(`ALTER TABLE agent_requests DROP COLUMN trace_parent`);
  }
}
