import type { OrganizationProviderRecord } from '../records';
import { asRow, type Owner, RecordRepository } from './base.repository';

/** An organization's private providers: every read and write is scoped to the owner (organization and environment). */
export class OrganizationProviderRepository extends RecordRepository<OrganizationProviderRecord> {
  findOwned(id: string, owner: Owner) {
    return this.findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  findOwnedBySlug(slug: string, owner: Owner) {
    return this.findOneBy({ slug, organizationId: owner.organizationId, environment: owner.environment });
  }
  listOwned(owner: Owner) {
    return this.repo.find({
      where: { organizationId: owner.organizationId, environment: owner.environment },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }
  countOwned(owner: Owner) {
    return this.repo.countBy({ organizationId: owner.organizationId, environment: owner.environment });
  }
  async update(id: string, owner: Owner, changes: Partial<Pick<OrganizationProviderRecord, 'slug' | 'declaration' | 'updatedAt'>>) {
    const res = await this.repo.update(
      { id, organizationId: owner.organizationId, environment: owner.environment },
      asRow<OrganizationProviderRecord>(changes),
    );
    return (res.affected ?? 0) === 1;
  }
  async delete(id: string, owner: Owner) {
    const res = await this.repo.delete({ id, organizationId: owner.organizationId, environment: owner.environment });
    return (res.affected ?? 0) === 1;
  }
}
