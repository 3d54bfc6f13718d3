import type { SandboxTenantRecord } from '../records';
import { BaseRepository } from './base.repository';

export class SandboxTenantRepository extends BaseRepository<SandboxTenantRecord> {
  /** Claims the seeding of a tenant's site; false when it is already seeded (or being seeded by another caller). */
  async claimSeed(tenant: string, site: string, now: Date): Promise<boolean> {
    try {
      await this.insertRows({ tenant, site, seededAt: now });
      return true;
    } catch {
      return false;
    }
  }
  async delete(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}
