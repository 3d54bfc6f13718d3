import type { SandboxSessionRecord } from '../records';
import { RecordRepository } from './base.repository';

export class SandboxSessionRepository extends RecordRepository<SandboxSessionRecord> {
  findById(id: string) {
    return this.findOneBy({ id });
  }
  /**
   * The session, and whether its tenant's copy of its site is seeded (sandbox_tenants' marker): every page of a site
   * asks both, so one round trip instead of two.
   */
  async findWithSeed(id: string): Promise<{ session: SandboxSessionRecord; seeded: boolean } | null> {
    const found = await this.table.findOneWith('id = $1', [id], {
      seeded: 'EXISTS (SELECT 1 FROM sandbox_tenants t WHERE t.tenant = sandbox_sessions.tenant AND t.site = sandbox_sessions.site)',
    });
    // PostgreSQL answers a boolean, SQLite 1 or 0.
    return found ? { session: found.record, seeded: found.extra.seeded === true || Number(found.extra.seeded) === 1 } : null;
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
  async deleteTenant(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}
