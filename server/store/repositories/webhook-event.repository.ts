import type { WebhookEventRecord } from '../records';
import { type Owner, RecordRepository } from './base.repository';

export class WebhookEventRepository extends RecordRepository<WebhookEventRecord> {
  findById(id: string) {
    return this.findOneBy({ id });
  }
  listOwned(owner: Owner, limit = 100) {
    return this.repo.find({
      where: { organizationId: owner.organizationId, environment: owner.environment },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}
