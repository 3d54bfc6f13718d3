import type { OrgMembershipRecord } from '../records';
import { asRow, RecordRepository } from './base.repository';

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
   * The user ids of the organization's owners, locked until the transaction ends: a change that must leave the
   * organization an owner reads them here, decides, and writes before anyone else can. On PostgreSQL the rows are
   * locked FOR UPDATE, so of two transactions removing the last two owners the second waits for the first and
   * then sees one owner left (READ COMMITTED skips a row deleted meanwhile). A SQLite transaction already holds
   * the database's write lock (store.transaction begins IMMEDIATE). Only in a transaction (store.transaction):
   * outside one the lock would end with the statement.
   */
  async lockOwners(organizationId: string): Promise<string[]> {
    if (!this.repo.queryRunner) throw new Error('OrgMembershipRepository.lockOwners runs only inside store.transaction()');
    const lock = this.sql.dialect === 'postgres' ? ' FOR UPDATE' : '';
    const { rows } = await this.sql.query<{ user_id: string }>(
      `SELECT user_id FROM org_memberships WHERE organization_id = $1 AND role = 'owner' ORDER BY user_id${lock}`,
      [organizationId],
    );
    return rows.map((r) => r.user_id);
  }

  /** Inserts the membership unless the person is a member already (then their row, and role, stay as they are). */
  async insertUnlessMember(record: OrgMembershipRecord): Promise<void> {
    // ON CONFLICT DO NOTHING (PostgreSQL) / INSERT OR IGNORE (SQLite): two joins at once cannot fail on the key.
    await this.repo.createQueryBuilder().insert().values(asRow<OrgMembershipRecord>(record)).orIgnore().updateEntity(false).execute();
  }

  /** Deletes the membership; false when there was none. */
  async delete(userId: string, organizationId: string): Promise<boolean> {
    const { affected } = await this.sql.query('DELETE FROM org_memberships WHERE user_id = $1 AND organization_id = $2', [
      userId,
      organizationId,
    ]);
    return affected > 0;
  }
}
