import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Version 3 trajectories keep, with each list they read, what made it right (server/agent/replay/list-check.page.ts),
 * checked before a replay answers. A version 2 row has nothing a replay could check, and its key is never computed
 * again (the version is hashed in): unreachable, it is deleted. The next planner run of each action records it anew.
 */
export class CheckedTrajectories1763721100000 implements MigrationInterface {
  name = 'CheckedTrajectories1763721100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM agent_trajectories WHERE version < 3`);
  }

  async down(): Promise<void> {
    // Nothing to restore: the deleted rows could never be found again by any version.
  }
}
