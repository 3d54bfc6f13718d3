import { In } from 'typeorm';

import type { SandboxDocRecord } from '../records';
import { asRow, RecordRepository } from './base.repository';

/** The simulated sites' documents, per tenant and site. */
export class SandboxDocRepository extends RecordRepository<SandboxDocRecord> {
  async insertMany(records: SandboxDocRecord[]) {
    for (let i = 0; i < records.length; i += 100) await this.insertRows(records.slice(i, i + 100));
  }
  /** One kind's documents, oldest first (what tests read back; a site's pages read through listKinds, batched). */
  list(tenant: string, site: string, kind: string) {
    return this.listKinds(tenant, site, [kind]);
  }
  /** The documents of several kinds in one statement, oldest first (a page of a site reads several at once). */
  listKinds(tenant: string, site: string, kinds: readonly string[]) {
    return this.repo.find({ where: { tenant, site, kind: In([...new Set(kinds)]) }, order: { createdAt: 'ASC', id: 'ASC' } });
  }
  find(tenant: string, site: string, id: string) {
    return this.findOneBy({ tenant, site, id });
  }
  async update(tenant: string, site: string, id: string, data: Record<string, unknown>, now: Date) {
    await this.repo.update({ tenant, site, id }, asRow<SandboxDocRecord>({ data, updatedAt: now }));
  }
  async delete(tenant: string, site: string, id: string) {
    await this.repo.delete({ tenant, site, id });
  }
  async deleteTenant(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}
