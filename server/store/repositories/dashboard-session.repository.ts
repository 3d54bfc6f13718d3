import type { DashboardSessionRecord } from '../records';
import { RecordRepository } from './base.repository';

export class DashboardSessionRepository extends RecordRepository<DashboardSessionRecord> {
  findById(id: string) {
    return this.findOneBy({ id });
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
  async setFlash(id: string, flash: string) {
    await this.repo.update({ id }, { flash });
  }
  /** Takes the session's flash: one caller gets it (a conditional UPDATE clears exactly that value), every other null. */
  async takeFlash(id: string): Promise<string | null> {
    const row = await this.repo.findOne({ where: { id }, select: { id: true, flash: true } });
    if (!row?.flash) return null;
    const res = await this.repo.update({ id, flash: row.flash }, { flash: null });
    return (res.affected ?? 0) > 0 ? row.flash : null;
  }
  async deleteExpired(now: Date) {
    await this.repo.createQueryBuilder().delete().where('expires_at < :now', { now }).execute();
  }
}
