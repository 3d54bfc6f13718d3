import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trajectories are keyed by the request's mode since version 2 (server/agent/replay/trajectory.ts): a read-mode
 * recording never replays for read_write, nor the reverse. Version 1 rows recorded no mode, so they cannot be sorted
 * by it, and their keys are never computed again: unreachable, they are deleted (they hold names seen on the
 * organization's pages, kept for nothing). Each action is learned afresh, per mode, by its next planner run.
 */
export class TrajectoriesPerMode1763720000000 implements MigrationInterface {
  name = 'TrajectoriesPerMode1763720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM agent_trajectories WHERE version < 2`);
  }

  async down(): Promise<void> {
    // Nothing to restore: the deleted rows could never be found again by any version.
  }
}
