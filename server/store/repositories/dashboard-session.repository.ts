import type { DashboardSessionRecord } from '../records';
import { RecordRepository } from './base.repository';

export class DashboardSessionRepository extends RecordRepository<DashboardSessionRecord> {
  findById(id: string) {
    return this.findOneBy({ id });
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
  async deleteExpired(now: Date) {
    await this.repo.createQueryBuilder().delete().where('expires_at < :now', { now }).execute();
  }
}
