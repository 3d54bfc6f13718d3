import type { WebhookEndpointRecord } from '../records';
import { asRow, type Owner, RecordRepository } from './base.repository';

export class WebhookEndpointRepository extends RecordRepository<WebhookEndpointRecord> {
  findById(id: string) {
    return this.findOneBy({ id });
  }
  findOwned(id: string, owner: Owner) {
    return this.findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  listOwned(owner: Owner) {
    return this.repo.find({
      where: { organizationId: owner.organizationId, environment: owner.environment },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }
  /** Endpoints in id order after `afterId`, with their sealed secrets (batches for key rotation). */
  listSealed(afterId: string, limit: number): Promise<Pick<WebhookEndpointRecord, 'id' | 'sealedSecret'>[]> {
    return this.repo
      .createQueryBuilder('w')
      .select(['w.id', 'w.sealedSecret'])
      .where('w.id > :afterId', { afterId })
      .orderBy('w.id', 'ASC')
      .take(limit)
      .getMany();
  }
  /** Compare-and-set of the sealed secret; false when it changed meanwhile (a rotation) or the endpoint is gone. */
  async replaceSealed(id: string, expected: string, next: string) {
    const res = await this.repo.update({ id, sealedSecret: expected }, { sealedSecret: next });
    return (res.affected ?? 0) === 1;
  }
  countOwned(owner: Owner) {
    return this.repo.countBy({ organizationId: owner.organizationId, environment: owner.environment });
  }
  listEnabled(owner: Owner) {
    return this.repo.find({
      where: { organizationId: owner.organizationId, environment: owner.environment, enabled: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }
  async update(
    id: string,
    owner: Owner,
    changes: Partial<Pick<WebhookEndpointRecord, 'url' | 'events' | 'description' | 'enabled' | 'sealedSecret' | 'updatedAt'>>,
  ) {
    const res = await this.repo.update(
      { id, organizationId: owner.organizationId, environment: owner.environment },
      asRow<WebhookEndpointRecord>(changes),
    );
    return (res.affected ?? 0) === 1;
  }
  async delete(id: string, owner: Owner) {
    const res = await this.repo.delete({ id, organizationId: owner.organizationId, environment: owner.environment });
    return (res.affected ?? 0) === 1;
  }
}
