import type { MigrationInterface, QueryRunner } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * agent_trajectories.stale_at / stale_reason: a replay whose answer could not be checked on the live page (its list is
 * not the recorded one any more, its items lost their shape) marks its trajectory stale, so the next request runs the
 * planner, which records it afresh (the new row clears both). Nullable, so plain ADD COLUMN on SQLite and PostgreSQL.
 */
export class TrajectoryStaleness1763721000000 implements MigrationInterface {
  name = 'TrajectoryStaleness1763721000000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.query(`ALTER TABLE agent_trajectories ADD COLUMN stale_at ${t.timestamp} NULL`);
    await q.query(`ALTER TABLE agent_trajectories ADD COLUMN stale_reason TEXT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_trajectories DROP COLUMN stale_reason`);
    await q.query(`ALTER TABLE agent_trajectories DROP COLUMN stale_at`);
  }
}
