import type { SandboxTenantRecord } from '../records';
import { BaseRepository } from './base.repository';

export class SandboxTenantRepository extends BaseRepository<SandboxTenantRecord> {
  /**
   * Claims the seeding of a tenant's site; false when it is already seeded (or being seeded by another caller).
   * Every page of a sandbox site asks, so an existing marker is a quiet no-op (ON CONFLICT DO NOTHING, on both engines)
   * rather than a failed INSERT: on PostgreSQL each of those was an error the server logged and the driver raised,
   * five per agent run in bench:scale.
   */
  async claimSeed(tenant: string, site: string, now: Date): Promise<boolean> {
    const { rows } = await this.sql.query(
      'INSERT INTO sandbox_tenants (tenant, site, seeded_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING tenant',
      [tenant, site, this.table.param('seededAt', now)],
    );
    return rows.length === 1;
  }
  async delete(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}
