import type { SandboxSessionRecord } from '../records';
import { RecordRepository } from './base.repository';

export class SandboxSessionRepository extends RecordRepository<SandboxSessionRecord> {
  findById(id: string) {
    return this.findOneBy({ id });
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
  async deleteTenant(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}
