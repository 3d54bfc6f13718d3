import { preparedTable } from '../prepared-table';
import { insertRows } from '../insert-rows';
import type { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEventRecord } from '../records';
import type { Owner } from './agent-request.repository';

/**
 * Webhook endpoints, events and deliveries. Deliveries are their own queue: a dispatcher owns a row while it is
 * DELIVERING under its `lease_owner` until `lease_expires_at`; every transition is one conditional UPDATE whose
 * affected-row count says who won (race-safe on SQLite without transactions and on PostgreSQL across processes).
 */
const patch = <T>(p: Partial<T>) => p as unknown as QueryDeepPartialEntity<T>;

export class WebhookEndpointRepository {
  constructor(private readonly repo: Repository<WebhookEndpointRecord>) {}

  insert(record: WebhookEndpointRecord) {
    return insertRows(this.repo, patch<WebhookEndpointRecord>(record)).then(() => record);
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  findOwned(id: string, owner: Owner) {
    return preparedTable(this.repo).findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  listOwned(owner: Owner) {
    return this.repo.find({
      where: { organizationId: owner.organizationId, environment: owner.environment },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }
  /** Endpoints in id order after `afterId`, with their sealed secrets (batches for key rotation). */
  listSealed(afterId: string, limit: number): Promise<Pick<WebhookEndpointRecord, 'id' | 'sealedSecret'>[]> {
    return this.repo.createQueryBuilder('w').select(['w.id', 'w.sealedSecret']).where('w.id > :afterId', { afterId }).orderBy('w.id', 'ASC').take(limit).getMany();
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
  async update(id: string, owner: Owner, changes: Partial<Pick<WebhookEndpointRecord, 'url' | 'events' | 'description' | 'enabled' | 'sealedSecret' | 'updatedAt'>>) {
    const res = await this.repo.update({ id, organizationId: owner.organizationId, environment: owner.environment }, patch<WebhookEndpointRecord>(changes));
    return (res.affected ?? 0) === 1;
  }
  async delete(id: string, owner: Owner) {
    const res = await this.repo.delete({ id, organizationId: owner.organizationId, environment: owner.environment });
    return (res.affected ?? 0) === 1;
  }
}

export class WebhookEventRepository {
  constructor(private readonly repo: Repository<WebhookEventRecord>) {}

  insert(record: WebhookEventRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  listOwned(owner: Owner, limit = 100) {
    return this.repo.find({
      where: { organizationId: owner.organizationId, environment: owner.environment },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}

export interface WebhookDeliveryPage {
  records: WebhookDeliveryRecord[];
  next: { createdAt: Date; id: string } | null;
}

/** Due: waiting and its time has come, or DELIVERING under a lease that ran out (its dispatcher stopped). */
const DUE = "((d.status = 'PENDING' AND d.next_attempt_at <= :now) OR (d.status = 'DELIVERING' AND d.lease_expires_at < :now))";
const DUE_BARE = "((status = 'PENDING' AND next_attempt_at <= :now) OR (status = 'DELIVERING' AND lease_expires_at < :now))";

export class WebhookDeliveryRepository {
  constructor(private readonly repo: Repository<WebhookDeliveryRecord>) {}

  async insertMany(records: WebhookDeliveryRecord[]) {
    if (records.length > 0) await insertRows(this.repo, records.map((r) => patch<WebhookDeliveryRecord>(r)));
    return records;
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  findOwned(id: string, owner: Owner) {
    return preparedTable(this.repo).findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  listForEvent(eventId: string) {
    return this.repo.find({ where: { eventId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Newest first; the cursor is the (createdAt, id) of the last record of the previous page. */
  async listForEndpoint(endpointId: string, opts: { limit: number; after?: { createdAt: Date; id: string } }): Promise<WebhookDeliveryPage> {
    const qb = this.repo.createQueryBuilder('d').where('d.endpoint_id = :endpointId', { endpointId });
    if (opts.after) {
      qb.andWhere('(d.created_at < :ca OR (d.created_at = :ca AND d.id < :cid))', { ca: opts.after.createdAt, cid: opts.after.id });
    }
    const rows = await qb.orderBy('d.created_at', 'DESC').addOrderBy('d.id', 'DESC').take(opts.limit + 1).getMany();
    const records = rows.slice(0, opts.limit);
    const last = records[records.length - 1];
    return { records, next: rows.length > opts.limit && last ? { createdAt: last.createdAt, id: last.id } : null };
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
    outcome: Pick<WebhookDeliveryRecord, 'status' | 'nextAttemptAt' | 'lastResponseStatus' | 'lastError' | 'attemptLog' | 'updatedAt' | 'completedAt'>,
  ): Promise<boolean> {
    const res = await this.repo.update(
      { id, leaseOwner: owner, status: 'DELIVERING' },
      patch<WebhookDeliveryRecord>({ ...outcome, leaseOwner: null, leaseExpiresAt: null }),
    );
    return (res.affected ?? 0) === 1;
  }

  async deleteForEndpoint(endpointId: string) {
    await this.repo.delete({ endpointId });
  }
}
