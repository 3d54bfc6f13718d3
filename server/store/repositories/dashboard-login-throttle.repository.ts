import type { DashboardLoginThrottleRecord } from '../records';
import { BaseRepository } from './base.repository';

/**
 * Failed sign-ins per email; each change is one statement (no multi-statement transactions on SQLite).
 * updatedAt is the start of the failure window: the first failure of the window (or the moment of the lock).
 */
export class DashboardLoginThrottleRepository extends BaseRepository<DashboardLoginThrottleRecord> {
  find(email: string) {
    return this.findOneBy({ email });
  }
  /** Counts one failure and returns the count so far (a window that ran out starts again at 1). */
  async recordFailure(email: string, now: Date): Promise<number> {
    const res = await this.repo.increment({ email }, 'failedAttempts', 1);
    if ((res.affected ?? 0) === 0) {
      try {
        await this.insertRows({ email, failedAttempts: 1, lockedUntil: null, updatedAt: now });
        return 1;
      } catch {
        await this.repo.increment({ email }, 'failedAttempts', 1);
      }
    }
    // updatedAt stays at the first failure of the window (the README's "5 failed sign-ins within 15 minutes").
    return (await this.findOneBy({ email }))?.failedAttempts ?? 1;
  }
  async lock(email: string, until: Date, now: Date) {
    await this.repo.update({ email }, { lockedUntil: until, failedAttempts: 0, updatedAt: now });
  }
  async clear(email: string) {
    await this.repo.delete({ email });
  }
  /** Rows whose window started before windowStart and whose lock (if any) ended: they count for nothing. */
  async deleteStale(now: Date, windowStart: Date) {
    await this.repo
      .createQueryBuilder()
      .delete()
      .where('updated_at < :windowStart', { windowStart })
      .andWhere('(locked_until IS NULL OR locked_until <= :now)', { now })
      .execute();
  }
}
