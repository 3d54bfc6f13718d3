import type { DashboardUserRecord } from '../records';
import { RecordRepository } from './base.repository';

/** Dashboard accounts (server/dashboard). */
export class DashboardUserRepository extends RecordRepository<DashboardUserRecord> {
  findByEmail(email: string) {
    return this.findOneBy({ email });
  }
  findById(id: string) {
    return this.findOneBy({ id });
  }
}
