import type { Store } from '../../store';
import type { Clock } from '../ports';
import { type Trajectory, TRAJECTORY_VERSION, type TrajectoryMode } from './trajectory';

/**
 * Trajectories in the database, behind the store's repository. A wrong version, result schema or mode is a miss (the
 * mode is already in the key; the body's is checked too, so a row that ever sat under a wrong key still never crosses).
 */
export type TrajectoryLookup =
  | { hit: true; trajectory: Trajectory }
  /** `stale`: the recorded trajectory no longer fits the page (a replay's check failed); the planner must learn it again. */
  | { hit: false; reason: string; stale?: true };

export class TrajectoryStore {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async find(key: string, schemaHash: string, mode: TrajectoryMode): Promise<TrajectoryLookup> {
    const row = await this.store.repos.agentTrajectories.findById(key);
    if (!row) return { hit: false, reason: 'no trajectory was recorded for this action in this mode yet' };
    if (row.version !== TRAJECTORY_VERSION)
      return { hit: false, reason: `the recorded trajectory has version ${row.version}, not ${TRAJECTORY_VERSION}` };
    if (row.schemaHash !== schemaHash) return { hit: false, reason: 'the recorded trajectory was learned for another responseFormat' };
    const t = row.trajectory as unknown as Trajectory;
    if (!t || !Array.isArray(t.steps) || !t.result) return { hit: false, reason: 'the recorded trajectory is unreadable' };
    if (t.mode !== mode) return { hit: false, reason: `the recorded trajectory was learned in ${String(t.mode)} mode, not ${mode}` };
    if (row.staleAt)
      return {
        hit: false,
        stale: true,
        reason: `the recorded trajectory is stale (${row.staleReason ?? 'its answer no longer matched the page'})`,
      };
    return { hit: true, trajectory: t };
  }

  async save(i: { key: string; providerId: string; actionTemplate: string; schemaHash: string; trajectory: Trajectory }): Promise<void> {
    const now = this.clock.now();
    await this.store.repos.agentTrajectories.upsert({
      id: i.key,
      providerId: i.providerId,
      actionTemplate: i.actionTemplate.slice(0, 2_000),
      version: TRAJECTORY_VERSION,
      schemaHash: i.schemaHash,
      trajectory: i.trajectory as unknown as Record<string, unknown>,
      replayCount: 0,
      createdAt: now,
      updatedAt: now,
      lastReplayedAt: null,
    });
  }

  /** The replay's answer could not be checked on the live page: the next request runs the planner, which records it again. */
  async markStale(key: string, reason: string): Promise<void> {
    await this.store.repos.agentTrajectories.markStale(key, this.clock.now(), reason);
  }

  async markReplayed(key: string): Promise<void> {
    await this.store.repos.agentTrajectories.markReplayed(key, this.clock.now());
  }
}
