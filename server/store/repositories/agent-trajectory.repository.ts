import type { AgentTrajectoryRecord } from '../records';
import { asRow, BaseRepository } from './base.repository';

/** Learned trajectories (server/agent/replay), one row per cache key; a newer successful run replaces the row. */
export class AgentTrajectoryRepository extends BaseRepository<AgentTrajectoryRecord> {
  findById(id: string) {
    return this.findOneBy({ id });
  }
  /** Inserts, or replaces the trajectory of an existing key (keeping its creation time). */
  async upsert(record: AgentTrajectoryRecord) {
    const { id, createdAt: _createdAt, ...rest } = record;
    const replacement = () =>
      asRow<AgentTrajectoryRecord>({ ...rest, replayCount: 0, lastReplayedAt: null, staleAt: null, staleReason: null });
    const updated = await this.repo.update({ id }, replacement());
    if ((updated.affected ?? 0) > 0) return;
    try {
      await this.insertRows(record);
    } catch {
      // Another run inserted the same key meanwhile: the later write wins.
      await this.repo.update({ id }, replacement());
    }
  }
  async markReplayed(id: string, now: Date) {
    await this.repo.increment({ id }, 'replayCount', 1);
    await this.repo.update({ id }, { lastReplayedAt: now });
  }
  /** A recording saved meanwhile by another run is marked too: at worst it is learned once more. */
  async markStale(id: string, now: Date, reason: string) {
    await this.repo.update({ id }, { staleAt: now, staleReason: reason.slice(0, 2_000) });
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
}
