import type { WebhookDeliveryRecord } from '../records';
import { asRow, BaseRepository, type KeysetPage, type KeysetPosition, type Owner } from './base.repository';

/**
 * Webhook deliveries are their own queue: a dispatcher owns a row while it is DELIVERING under its
 * `lease_owner` until `lease_expires_at`; every transition is one conditional UPDATE whose affected-row count
 * says who won (race-safe on SQLite without transactions and on PostgreSQL across processes).
 */
const patch = asRow<WebhookDeliveryRecord>;

export type WebhookDeliveryPage = KeysetPage<WebhookDeliveryRecord>;

/** Due: waiting and its time has come, or DELIVERING under a lease that ran out (its dispatcher stopped). */
const DUE = "((d.status = 'PENDING' AND d.next_attempt_at <= :now) OR (d.status = 'DELIVERING' AND d.lease_expires_at < :now))";
const DUE_BARE = "((status = 'PENDING' AND next_attempt_at <= :now) OR (status = 'DELIVERING' AND lease_expires_at < :now))";

export class WebhookDeliveryRepository extends BaseRepository<WebhookDeliveryRecord> {
  async insertMany(records: WebhookDeliveryRecord[]) {
    if (records.length > 0) await this.insertRows(records);
    return records;
  }
  findById(id: string) {
    return this.findOneBy({ id });
  }
  findOwned(id: string, owner: Owner) {
    return this.findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  listForEvent(eventId: string) {
    return this.repo.find({ where: { eventId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Newest first, one keyset page after the last record of the previous page. */
  listForEndpoint(endpointId: string, opts: { limit: number; after?: KeysetPosition }): Promise<WebhookDeliveryPage> {
    return this.keysetPage(this.repo.createQueryBuilder('d').where('d.endpoint_id = :endpointId', { endpointId }), opts);
  }

  /** Ids of deliveries a dispatcher may claim now, oldest due first. */
  async dueIds(now: Date, limit: number): Promise<string[]> {
    const rows = await this.repo
      .createQueryBuilder('d')
      .select('d.id', 'id')
      .where(DUE, { now })
      .orderBy('d.next_attempt_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /** Takes the delivery for one attempt until `leaseUntil`; false when another dispatcher has it or it is not due. */
  async claim(id: string, owner: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'DELIVERING', leaseOwner: owner, leaseExpiresAt: leaseUntil, updatedAt: now, attempts: () => 'attempts + 1' })
      .where(`id = :id AND ${DUE_BARE}`, { id, now })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /** Records the outcome of the attempt of the dispatcher holding the lease; false when it lost the lease. */
  async finishAttempt(
    id: string,
    owner: string,
    outcome: Pick<
      WebhookDeliveryRecord,
      'status' | 'nextAttemptAt' | 'lastResponseStatus' | 'lastError' | 'attemptLog' | 'updatedAt' | 'completedAt'
    >,
  ): Promise<boolean> {
    const res = await this.repo.update(
      { id, leaseOwner: owner, status: 'DELIVERING' },
      patch({ ...outcome, leaseOwner: null, leaseExpiresAt: null }),
    );
    return (res.affected ?? 0) === 1;
  }

  async deleteForEndpoint(endpointId: string) {
    await this.repo.delete({ endpointId });
  }
}
