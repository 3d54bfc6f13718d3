import type { DashboardInvitationRecord } from '../records';
import { RecordRepository } from './base.repository';

export class DashboardInvitationRepository extends RecordRepository<DashboardInvitationRecord> {
  findByTokenHash(tokenHash: string) {
    return this.findOneBy({ tokenHash });
  }
  findInOrganization(id: string, organizationId: string) {
    return this.findOneBy({ id, organizationId });
  }
  /** Invitations of an organization not used yet and not expired, newest first. */
  listPending(organizationId: string, now: Date) {
    return this.repo
      .createQueryBuilder('i')
      .where('i.organization_id = :organizationId AND i.used_at IS NULL AND i.expires_at > :now', { organizationId, now })
      .orderBy('i.created_at', 'DESC')
      .take(100)
      .getMany();
  }
  /** Marks it used by userId, if it is still unused and unexpired: true for exactly one caller. */
  async consume(id: string, userId: string, now: Date): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ usedAt: now, usedBy: userId })
      .where('id = :id AND used_at IS NULL AND expires_at > :now', { id, now })
      .execute();
    return (res.affected ?? 0) > 0;
  }
  /** Withdraws an unused invitation of the organization. */
  async revoke(id: string, organizationId: string): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .delete()
      .where('id = :id AND organization_id = :organizationId AND used_at IS NULL', { id, organizationId })
      .execute();
    return (res.affected ?? 0) > 0;
  }
}
