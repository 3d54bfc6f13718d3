import type { OrgMembershipRecord } from '../records';
import { RecordRepository } from './base.repository';

export class OrgMembershipRepository extends RecordRepository<OrgMembershipRecord> {
  find(userId: string, organizationId: string) {
    return this.findOneBy({ userId, organizationId });
  }
  listForUser(userId: string) {
    return this.repo.find({ where: { userId }, order: { createdAt: 'ASC' } });
  }
  listForOrganization(organizationId: string) {
    return this.repo.find({ where: { organizationId }, order: { createdAt: 'ASC' } });
  }
  /**
   * Deletes the membership unless it is the organization's last owner, in one conditional DELETE (the owner count is
   * read by the statement itself, so a removal and a concurrent demotion cannot both pass on SQLite).
   */
  async deleteUnlessLastOwner(userId: string, organizationId: string): Promise<'deleted' | 'last-owner' | 'not-member'> {
    const res = await this.repo
      .createQueryBuilder()
      .delete()
      .where('user_id = :userId AND organization_id = :organizationId', { userId, organizationId })
      .andWhere(
        "(role <> 'owner' OR (SELECT COUNT(*) FROM org_memberships o WHERE o.organization_id = :organizationId AND o.role = 'owner') > 1)",
      )
      .execute();
    if ((res.affected ?? 0) > 0) return 'deleted';
    return (await this.find(userId, organizationId)) ? 'last-owner' : 'not-member';
  }
}
