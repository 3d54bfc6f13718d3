import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * agent_requests.user_decision: a decision on a paused run (NEEDS_USER) taken by a process that does not hold its page
 * (the app's POST …/user-action, the widget on another API process), stored until the worker holding the run reads it
 * on its heartbeat and applies it. JSON text naming the ask it answers (the hash of that pause's link token, never the
 * token); cleared when the pause ends. Nullable, so plain ADD COLUMN on SQLite and PostgreSQL.
 */
export class StoredUserDecision1763723500000 implements MigrationInterface {
  name = 'StoredUserDecision1763723500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_requests ADD COLUMN user_decision text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_requests DROP COLUMN user_decision`);
  }
}
