import type { RedirectUriRecord } from '../records';
import { type Owner, RecordRepository } from './base.repository';

/** An organization's allowed redirect URIs: every read and write is scoped to the owner (organization and environment). */
export class RedirectUriRepository extends RecordRepository<RedirectUriRecord> {
  findOwned(id: string, owner: Owner) {
    return this.findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  /** The exact URI (looked up by its hash, then compared whole: a hash match alone proves nothing to a reader). */
  async findOwnedByUri(uri: string, uriHash: string, owner: Owner) {
    const row = await this.findOneBy({ uriHash, organizationId: owner.organizationId, environment: owner.environment });
    return row && row.uri === uri ? row : null;
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
  async delete(id: string, owner: Owner) {
    const res = await this.repo.delete({ id, organizationId: owner.organizationId, environment: owner.environment });
    return (res.affected ?? 0) === 1;
  }
}
