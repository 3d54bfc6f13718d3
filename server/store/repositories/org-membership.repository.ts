import type { OrgMembershipRecord } from '../records';
import { RecordRepository } from './base.repository';

export class OrgMembershipRepository extends RecordRepository<OrgMembershipRecord> {
  find(userId: string, organizationId: string) {
    return this.findOneBy({ userId, organizationId });
  }
  listForUser(userId: string) {
    return this.repo.find({ where: { userId }, order: { createdAt: 'ASC' } });
  }
}
