import { preparedSql } from '../prepared-sql';
import { preparedTable } from '../prepared-table';
import { insertRows } from '../insert-rows';
import { type DataSource, In, IsNull, Not, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { IdempotencyKeyRepository, RateLimitBucketRepository } from './rate-limit-bucket.repository';
import type { Environment } from '../../config';
import type {
  AccessTokenRecord,
  AgentRequestRecord,
  AgentTrajectoryRecord,
  ConnectionRecord,
  ConnectionStatus,
  LinkSessionRecord,
  LinkSessionStatus,
  LinkTokenRecord,
  OrganizationRecord,
  PublicTokenRecord,
  SandboxDocRecord,
  SandboxSessionRecord,
  SandboxTenantRecord,
  DashboardUserRecord,
  DashboardSessionRecord,
  DashboardLoginThrottleRecord,
  OrgMembershipRecord,
  IdempotencyKeyRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookEventRecord,
} from '../records';
import { WebhookDeliveryRepository, WebhookEndpointRepository, WebhookEventRepository } from './webhook-delivery.repository';

/**
 * The only code that issues queries. Each state change that must happen at most once is a single
 * conditional UPDATE whose affected-row count says who won, so it is race-safe on both engines
 * without multi-statement transactions (TypeORM shares one SQLite connection across callers).
 */

/** TypeORM's insert type cannot express free-form JSON columns; the record types are the real check. */
const row = <T>(record: T) => record as unknown as QueryDeepPartialEntity<T>;

export interface Owner {
  organizationId: string;
  environment: Environment;
}

const CREDENTIALS_SQL = 'SELECT id, sandbox_secret_hash, production_secret_hash FROM organizations WHERE client_id = $1';

export class OrganizationRepository {
  constructor(private readonly repo: Repository<OrganizationRecord>) {}

  insert(record: OrganizationRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findByClientId(clientId: string) {
    return preparedTable(this.repo).findOneBy({ clientId });
  }
  /** Only what authenticating a request needs (paid on every API call: one narrow prepared query). */
  async findCredentials(clientId: string): Promise<Pick<OrganizationRecord, 'id' | 'sandboxSecretHash' | 'productionSecretHash'> | null> {
    const { rows } = await preparedSql(this.repo.manager.connection).query<Record<string, string>>(CREDENTIALS_SQL, [clientId]);
    const r = rows[0];
    return r ? { id: r.id, sandboxSecretHash: r.sandbox_secret_hash, productionSecretHash: r.production_secret_hash } : null;
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  list() {
    return this.repo.find({ order: { createdAt: 'ASC' } });
  }
  async setSecretHash(id: string, environment: Environment, hash: string, now: Date) {
    const column = environment === 'sandbox' ? 'sandboxSecretHash' : 'productionSecretHash';
    const res = await this.repo.update({ id }, { [column]: hash, updatedAt: now });
    return (res.affected ?? 0) > 0;
  }
}

export class LinkTokenRepository {
  constructor(private readonly repo: Repository<LinkTokenRecord>) {}

  insert(record: LinkTokenRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findByHash(tokenHash: string) {
    return preparedTable(this.repo).findOneBy({ tokenHash });
  }
  /** Marks the token used; false when another caller used it first. */
  async markUsed(id: string, now: Date, connectionId: string) {
    const res = await this.repo.update({ id, usedAt: IsNull() }, { usedAt: now, connectionId });
    return (res.affected ?? 0) === 1;
  }
}

export class ConnectionRepository {
  constructor(private readonly repo: Repository<ConnectionRecord>) {}

  insert(record: ConnectionRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findOwned(id: string, owner: Owner) {
    return preparedTable(this.repo).findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  async setStatus(id: string, status: ConnectionStatus, now: Date) {
    await this.repo.update({ id }, { status, updatedAt: now });
  }
  async setSession(id: string, sealedSession: string | null, now: Date) {
    await this.repo.update({ id }, { sealedSession, updatedAt: now });
  }
  async touch(id: string, now: Date) {
    await this.repo.update({ id }, { lastUsedAt: now });
  }
  /** Update mode: a fresh sealed session (and credentials, or none) and ACTIVE again; false when it was revoked. */
  async reauthenticate(id: string, sealedSession: string, sealedCredentials: string | null, now: Date) {
    const res = await this.repo.update({ id, status: Not('REVOKED' as const) }, { sealedSession, sealedCredentials, status: 'ACTIVE', updatedAt: now });
    return (res.affected ?? 0) === 1;
  }
  /** Connections that hold sealed values, in id order after `afterId` (batches for key rotation). */
  listSealed(afterId: string, limit: number): Promise<Pick<ConnectionRecord, 'id' | 'sealedSession' | 'sealedCredentials'>[]> {
    return this.repo
      .createQueryBuilder('c')
      .select(['c.id', 'c.sealedSession', 'c.sealedCredentials'])
      .where('c.id > :afterId AND (c.sealed_session IS NOT NULL OR c.sealed_credentials IS NOT NULL)', { afterId })
      .orderBy('c.id', 'ASC')
      .take(limit)
      .getMany();
  }
  /** Compare-and-set of one sealed column; false when it changed meanwhile (a login or a run sealed a new value). */
  async replaceSealed(id: string, column: 'sealedSession' | 'sealedCredentials', expected: string, next: string) {
    const res = await this.repo.update({ id, [column]: expected }, { [column]: next });
    return (res.affected ?? 0) === 1;
  }
  /** Newest first (the dashboard's list); the cursor is the (createdAt, id) of the last record of the previous page. */
  async listOwned(owner: Owner, opts: { limit: number; after?: { createdAt: Date; id: string } }) {
    const qb = this.repo
      .createQueryBuilder('c')
      .where('c.organization_id = :org AND c.environment = :env', { org: owner.organizationId, env: owner.environment });
    if (opts.after) {
      qb.andWhere('(c.created_at < :ca OR (c.created_at = :ca AND c.id < :cid))', { ca: opts.after.createdAt, cid: opts.after.id });
    }
    const rows = await qb.orderBy('c.created_at', 'DESC').addOrderBy('c.id', 'DESC').take(opts.limit + 1).getMany();
    const records = rows.slice(0, opts.limit);
    const last = records[records.length - 1];
    return { records, next: rows.length > opts.limit && last ? { createdAt: last.createdAt, id: last.id } : null };
  }
  /** Revokes and forgets the stored session and credentials in one statement; false when it was already revoked. */
  async revoke(id: string, now: Date) {
    const res = await this.repo.update(
      { id, status: Not('REVOKED' as const) },
      { status: 'REVOKED', sealedSession: null, sealedCredentials: null, revokedAt: now, updatedAt: now },
    );
    return (res.affected ?? 0) === 1;
  }
  /** ACTIVE → LOGIN_REQUIRED; false when it was not ACTIVE (already marked, or revoked). */
  async markLoginRequired(id: string, now: Date) {
    const res = await this.repo.update({ id, status: 'ACTIVE' }, { status: 'LOGIN_REQUIRED', updatedAt: now });
    return (res.affected ?? 0) === 1;
  }
}

export class PublicTokenRepository {
  constructor(private readonly repo: Repository<PublicTokenRecord>) {}

  insert(record: PublicTokenRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findByHash(tokenHash: string) {
    return preparedTable(this.repo).findOneBy({ tokenHash });
  }
  /** Claims the one exchange this token allows; false when it was already exchanged. */
  async claimExchange(id: string, now: Date) {
    const res = await this.repo.update({ id, exchangedAt: IsNull() }, { exchangedAt: now });
    return (res.affected ?? 0) === 1;
  }
  async releaseExchange(id: string) {
    await this.repo.update({ id }, { exchangedAt: null });
  }
}

/** What an agent request needs of an access token and its connection (one joined lookup). */
export interface AccessGrant {
  organizationId: string;
  environment: Environment;
  revoked: boolean;
  connection: Pick<ConnectionRecord, 'id' | 'providerId' | 'clientUserId' | 'status'>;
}

const GRANT_SQL =
  'SELECT t.organization_id, t.environment, CASE WHEN t.revoked_at IS NULL THEN 0 ELSE 1 END AS revoked, ' +
  'c.id AS connection_id, c.provider_id, c.client_user_id, c.status ' +
  'FROM access_tokens t JOIN connections c ON c.id = t.connection_id WHERE t.token_hash = $1';

export class AccessTokenRepository {
  constructor(private readonly repo: Repository<AccessTokenRecord>) {}

  /** The token's grant with its connection's state in one prepared query: paid on every agent request. */
  async findGrant(tokenHash: string): Promise<AccessGrant | null> {
    const { rows } = await preparedSql(this.repo.manager.connection).query<Record<string, string | number>>(GRANT_SQL, [tokenHash]);
    const r = rows[0];
    if (!r) return null;
    return {
      organizationId: String(r.organization_id),
      environment: r.environment as Environment,
      revoked: Number(r.revoked) === 1,
      connection: { id: String(r.connection_id), providerId: String(r.provider_id), clientUserId: String(r.client_user_id), status: r.status as ConnectionStatus },
    };
  }

  insert(record: AccessTokenRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findByHash(tokenHash: string) {
    return preparedTable(this.repo).findOneBy({ tokenHash });
  }
  async revokeAllForConnection(connectionId: string, now: Date) {
    await this.repo.update({ connectionId, revokedAt: IsNull() }, { revokedAt: now });
  }
}

export interface AgentRequestPage {
  records: AgentRequestRecord[];
  /** The last record when more follow, to continue after. */
  next: { createdAt: Date; id: string } | null;
}

const GRANTED_SQL =
  'EXISTS (SELECT 1 FROM access_tokens t JOIN connections c ON c.id = t.connection_id WHERE t.token_hash = $1 AND t.revoked_at IS NULL ' +
  "AND t.organization_id = $2 AND t.environment = $3 AND c.id = $4 AND c.status = 'ACTIVE')";

/** The final state a worker (or the lease sweeper) writes. */
export type AgentRequestFinal = Pick<AgentRequestRecord, 'status' | 'result' | 'error' | 'completedAt' | 'executionTimeMs'> &
  Partial<Pick<AgentRequestRecord, 'trace' | 'method' | 'modelUsage'>>;

/**
 * Agent requests are also the queue's source of truth: a worker owns a row while `lease_owner` is its id
 * and `lease_expires_at` is in the future. Every transition is one conditional UPDATE.
 */
export class AgentRequestRepository {
  constructor(private readonly repo: Repository<AgentRequestRecord>) {}

  insert(record: AgentRequestRecord) {
    return insertRows(this.repo, row(record)).then(() => record);
  }
  /**
   * Inserts the request only if, at that moment, the access token (by hash) is unrevoked, belongs to the
   * record's organization and environment, and its connection is the record's and ACTIVE: one statement
   * instead of a lookup and an insert. False when any of that does not hold (nothing was written).
   */
  insertIfGranted(record: AgentRequestRecord, tokenHash: string) {
    return preparedTable(this.repo).insertWhere(row(record) as Partial<AgentRequestRecord>, GRANTED_SQL, [
      tokenHash,
      record.organizationId,
      record.environment,
      record.connectionId,
    ]);
  }
  findOwned(id: string, owner: Owner) {
    return preparedTable(this.repo).findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }

  /** Newest first; the cursor is the (createdAt, id) of the last record of the previous page. */
  async listOwned(
    owner: Owner,
    opts: {
      status?: string;
      limit: number;
      after?: { createdAt: Date; id: string };
      /** Dashboard filters: one provider, and created in [createdFrom, createdBefore). */
      providerId?: string;
      createdFrom?: Date;
      createdBefore?: Date;
    },
  ): Promise<AgentRequestPage> {
    const qb = this.repo
      .createQueryBuilder('r')
      .where('r.organization_id = :org AND r.environment = :env', { org: owner.organizationId, env: owner.environment });
    if (opts.status) qb.andWhere('r.status = :status', { status: opts.status });
    if (opts.providerId) qb.andWhere('r.provider_id = :provider', { provider: opts.providerId });
    if (opts.createdFrom) qb.andWhere('r.created_at >= :createdFrom', { createdFrom: opts.createdFrom });
    if (opts.createdBefore) qb.andWhere('r.created_at < :createdBefore', { createdBefore: opts.createdBefore });
    if (opts.after) {
      qb.andWhere('(r.created_at < :ca OR (r.created_at = :ca AND r.id < :cid))', { ca: opts.after.createdAt, cid: opts.after.id });
    }
    const rows = await qb.orderBy('r.created_at', 'DESC').addOrderBy('r.id', 'DESC').take(opts.limit + 1).getMany();
    const records = rows.slice(0, opts.limit);
    const last = records[records.length - 1];
    return { records, next: rows.length > opts.limit && last ? { createdAt: last.createdAt, id: last.id } : null };
  }

  /** Requests a worker may claim: waiting ones, and running ones whose worker stopped renewing its lease. */
  async claimable(now: Date, maxAttempts: number, limit: number): Promise<string[]> {
    const rows = await this.repo
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .where(CLAIMABLE, { now, max: maxAttempts })
      .orderBy('r.created_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /** Takes the request for `owner` until `leaseUntil`; false when another worker has it or it ended. */
  async claim(id: string, owner: string, now: Date, leaseUntil: Date, maxAttempts: number): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'RUNNING', leaseOwner: owner, leaseExpiresAt: leaseUntil, startedAt: now, attempts: () => 'attempts + 1' })
      .where(`id = :id AND ${CLAIMABLE_BARE}`, { id, now, max: maxAttempts })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /** Extends the lease; false when the worker lost it (recovered by another worker, or finished elsewhere). */
  async renew(id: string, owner: string, leaseUntil: Date): Promise<boolean> {
    const res = await this.repo.update({ id, leaseOwner: owner, status: 'RUNNING' }, { leaseExpiresAt: leaseUntil });
    return (res.affected ?? 0) === 1;
  }

  /** Writes progress (trace so far) while the lease is held. */
  async saveProgress(id: string, owner: string, patch: Partial<Pick<AgentRequestRecord, 'trace' | 'method' | 'modelUsage'>>) {
    await this.repo.update({ id, leaseOwner: owner, status: 'RUNNING' }, patchOf(patch));
  }

  /** The final write of the worker holding the lease; false when it no longer holds it. */
  async finish(id: string, owner: string, final: AgentRequestFinal): Promise<boolean> {
    const res = await this.repo.update({ id, leaseOwner: owner, status: 'RUNNING' }, patchOf({ ...final, leaseOwner: null, leaseExpiresAt: null }));
    return (res.affected ?? 0) === 1;
  }

  /** Gives a claimed request back (graceful shutdown): waiting again, and this attempt does not count. */
  async release(id: string, owner: string): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'PENDING', leaseOwner: null, leaseExpiresAt: null, attempts: () => 'attempts - 1' })
      .where("id = :id AND lease_owner = :owner AND status = 'RUNNING'", { id, owner })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /** Cancels a request nobody runs yet; false when it is no longer PENDING. */
  async cancelPending(id: string, now: Date, error: AgentRequestRecord['error']): Promise<boolean> {
    const res = await this.repo.update(
      { id, status: 'PENDING' },
      patchOf({ status: 'CANCELED', error, cancelRequestedAt: now, completedAt: now, leaseOwner: null, leaseExpiresAt: null }),
    );
    return (res.affected ?? 0) === 1;
  }

  /** Flags a running request for cancellation; its worker sees the flag and stops. */
  async requestCancel(id: string, now: Date): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ cancelRequestedAt: now })
      .where("id = :id AND status = 'RUNNING' AND cancel_requested_at IS NULL", { id })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  async cancelRequested(id: string): Promise<boolean> {
    const r = await this.repo.findOne({ where: { id }, select: { id: true, cancelRequestedAt: true } });
    return !!r?.cancelRequestedAt;
  }

  /** Running requests whose lease ran out and that may not be claimed again (too many attempts, or cancel asked). */
  async expiredUnrecoverable(now: Date, maxAttempts: number, limit = 50): Promise<AgentRequestRecord[]> {
    return this.repo
      .createQueryBuilder('r')
      .where("r.status = 'RUNNING' AND r.lease_expires_at < :now AND (r.attempts >= :max OR r.cancel_requested_at IS NOT NULL)", { now, max: maxAttempts })
      .limit(limit)
      .getMany();
  }

  /** Ends a request whose worker died; the condition makes sure nobody renewed or claimed it meanwhile. */
  async failExpired(id: string, now: Date, final: AgentRequestFinal): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set(patchOf({ ...final, leaseOwner: null, leaseExpiresAt: null }))
      .where("id = :id AND status = 'RUNNING' AND lease_expires_at < :now", { id, now })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /** Waiting requests older than `before` (for engines that must make sure each one has a job). */
  async pendingBefore(before: Date, limit = 100): Promise<string[]> {
    const rows = await this.repo
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .where("r.status = 'PENDING' AND r.created_at < :before", { before })
      .orderBy('r.created_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }
}

/** A partial agent request row for UPDATE (free-form JSON columns defeat TypeORM's deep-partial type). */
const patchOf = (p: Partial<AgentRequestRecord>) => p as unknown as QueryDeepPartialEntity<AgentRequestRecord>;

const CLAIMABLE_BARE =
  "(status = 'PENDING' OR (status = 'RUNNING' AND lease_expires_at < :now AND attempts < :max AND cancel_requested_at IS NULL))";
const CLAIMABLE =
  "(r.status = 'PENDING' OR (r.status = 'RUNNING' AND r.lease_expires_at < :now AND r.attempts < :max AND r.cancel_requested_at IS NULL))";

export class LinkSessionRepository {
  constructor(private readonly repo: Repository<LinkSessionRecord>) {}

  insert(record: LinkSessionRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  listForLinkToken(linkTokenId: string) {
    return this.repo.find({ where: { linkTokenId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }
  /** Moves a session on only from one of the `from` states; false when a concurrent step moved it first. */
  async transition(id: string, from: LinkSessionStatus[], patch: Partial<Omit<LinkSessionRecord, 'id'>>) {
    const res = await this.repo.update({ id, status: In(from) }, patch);
    return (res.affected ?? 0) === 1;
  }
}

export class SandboxSessionRepository {
  constructor(private readonly repo: Repository<SandboxSessionRecord>) {}

  insert(record: SandboxSessionRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
  async deleteTenant(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}

export class SandboxDocRepository {
  constructor(private readonly repo: Repository<SandboxDocRecord>) {}

  insert(record: SandboxDocRecord) {
    return insertRows(this.repo, row(record)).then(() => record);
  }
  async insertMany(records: SandboxDocRecord[]) {
    for (let i = 0; i < records.length; i += 100) await insertRows(this.repo, records.slice(i, i + 100).map(row));
  }
  list(tenant: string, site: string, kind: string) {
    return this.repo.find({ where: { tenant, site, kind }, order: { createdAt: 'ASC', id: 'ASC' } });
  }
  find(tenant: string, site: string, id: string) {
    return preparedTable(this.repo).findOneBy({ tenant, site, id });
  }
  async update(tenant: string, site: string, id: string, data: Record<string, unknown>, now: Date) {
    await this.repo.update({ tenant, site, id }, row({ data, updatedAt: now }));
  }
  async delete(tenant: string, site: string, id: string) {
    await this.repo.delete({ tenant, site, id });
  }
  async deleteTenant(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}

export class SandboxTenantRepository {
  constructor(private readonly repo: Repository<SandboxTenantRecord>) {}

  /** Claims the seeding of a tenant's site; false when it is already seeded (or being seeded by another caller). */
  async claimSeed(tenant: string, site: string, now: Date): Promise<boolean> {
    try {
      await insertRows(this.repo, { tenant, site, seededAt: now });
      return true;
    } catch {
      return false;
    }
  }
  async delete(tenant: string, site: string) {
    await this.repo.delete({ tenant, site });
  }
}

/** Learned trajectories (server/agent/replay), one row per cache key; a newer successful run replaces the row. */
export class AgentTrajectoryRepository {
  constructor(private readonly repo: Repository<AgentTrajectoryRecord>) {}

  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  /** Inserts, or replaces the trajectory of an existing key (keeping its creation time). */
  async upsert(record: AgentTrajectoryRecord) {
    const { id, createdAt: _createdAt, ...rest } = record;
    const updated = await this.repo.update({ id }, row({ ...rest, replayCount: 0, lastReplayedAt: null }));
    if ((updated.affected ?? 0) > 0) return;
    try {
      await insertRows(this.repo, row(record));
    } catch {
      // Another run inserted the same key meanwhile: the later write wins.
      await this.repo.update({ id }, row({ ...rest, replayCount: 0, lastReplayedAt: null }));
    }
  }
  async markReplayed(id: string, now: Date) {
    await this.repo.increment({ id }, 'replayCount', 1);
    await this.repo.update({ id }, { lastReplayedAt: now });
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
}

/** Dashboard accounts (server/dashboard). */
export class DashboardUserRepository {
  constructor(private readonly repo: Repository<DashboardUserRecord>) {}

  insert(record: DashboardUserRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findByEmail(email: string) {
    return preparedTable(this.repo).findOneBy({ email });
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
}

export class DashboardSessionRepository {
  constructor(private readonly repo: Repository<DashboardSessionRecord>) {}

  insert(record: DashboardSessionRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  findById(id: string) {
    return preparedTable(this.repo).findOneBy({ id });
  }
  async delete(id: string) {
    await this.repo.delete({ id });
  }
  async deleteExpired(now: Date) {
    await this.repo.createQueryBuilder().delete().where('expires_at < :now', { now }).execute();
  }
}

/**
 * Failed sign-ins per email; each change is one statement (no multi-statement transactions on SQLite).
 * updatedAt is the start of the failure window: the first failure of the window (or the moment of the lock).
 */
export class DashboardLoginThrottleRepository {
  constructor(private readonly repo: Repository<DashboardLoginThrottleRecord>) {}

  find(email: string) {
    return preparedTable(this.repo).findOneBy({ email });
  }
  /** Counts one failure and returns the count so far (a window that ran out starts again at 1). */
  async recordFailure(email: string, now: Date): Promise<number> {
    const res = await this.repo.increment({ email }, 'failedAttempts', 1);
    if ((res.affected ?? 0) === 0) {
      try {
        await insertRows(this.repo, { email, failedAttempts: 1, lockedUntil: null, updatedAt: now });
        return 1;
      } catch {
        await this.repo.increment({ email }, 'failedAttempts', 1);
      }
    }
    // updatedAt stays at the first failure of the window (the README's "5 failed sign-ins within 15 minutes").
    return (await preparedTable(this.repo).findOneBy({ email }))?.failedAttempts ?? 1;
  }
  async lock(email: string, until: Date, now: Date) {
    await this.repo.update({ email }, { lockedUntil: until, failedAttempts: 0, updatedAt: now });
  }
  async clear(email: string) {
    await this.repo.delete({ email });
  }
  /** Rows whose window started before windowStart and whose lock (if any) ended: they count for nothing. */
  async deleteStale(now: Date, windowStart: Date) {
    await this.repo
      .createQueryBuilder()
      .delete()
      .where('updated_at < :windowStart', { windowStart })
      .andWhere('(locked_until IS NULL OR locked_until <= :now)', { now })
      .execute();
  }
}

export class OrgMembershipRepository {
  constructor(private readonly repo: Repository<OrgMembershipRecord>) {}

  insert(record: OrgMembershipRecord) {
    return insertRows(this.repo, record).then(() => record);
  }
  find(userId: string, organizationId: string) {
    return preparedTable(this.repo).findOneBy({ userId, organizationId });
  }
  listForUser(userId: string) {
    return this.repo.find({ where: { userId }, order: { createdAt: 'ASC' } });
  }
}

export function buildRepositories(ds: DataSource) {
  return {
    organizations: new OrganizationRepository(ds.getRepository<OrganizationRecord>('Organization')),
    linkTokens: new LinkTokenRepository(ds.getRepository<LinkTokenRecord>('LinkToken')),
    connections: new ConnectionRepository(ds.getRepository<ConnectionRecord>('Connection')),
    publicTokens: new PublicTokenRepository(ds.getRepository<PublicTokenRecord>('PublicToken')),
    accessTokens: new AccessTokenRepository(ds.getRepository<AccessTokenRecord>('AccessToken')),
    agentRequests: new AgentRequestRepository(ds.getRepository<AgentRequestRecord>('AgentRequest')),
    sandboxSessions: new SandboxSessionRepository(ds.getRepository<SandboxSessionRecord>('SandboxSession')),
    sandboxDocs: new SandboxDocRepository(ds.getRepository<SandboxDocRecord>('SandboxDoc')),
    sandboxTenants: new SandboxTenantRepository(ds.getRepository<SandboxTenantRecord>('SandboxTenant')),
    linkSessions: new LinkSessionRepository(ds.getRepository<LinkSessionRecord>('LinkSession')),
    agentTrajectories: new AgentTrajectoryRepository(ds.getRepository<AgentTrajectoryRecord>('AgentTrajectory')),
    idempotencyKeys: new IdempotencyKeyRepository(ds.getRepository<IdempotencyKeyRecord>('IdempotencyKey')),
    rateLimitBuckets: new RateLimitBucketRepository(ds),
    dashboardUsers: new DashboardUserRepository(ds.getRepository<DashboardUserRecord>('DashboardUser')),
    dashboardSessions: new DashboardSessionRepository(ds.getRepository<DashboardSessionRecord>('DashboardSession')),
    dashboardLoginThrottle: new DashboardLoginThrottleRepository(ds.getRepository<DashboardLoginThrottleRecord>('DashboardLoginThrottle')),
    orgMemberships: new OrgMembershipRepository(ds.getRepository<OrgMembershipRecord>('OrgMembership')),
    webhookEndpoints: new WebhookEndpointRepository(ds.getRepository<WebhookEndpointRecord>('WebhookEndpoint')),
    webhookEvents: new WebhookEventRepository(ds.getRepository<WebhookEventRecord>('WebhookEvent')),
    webhookDeliveries: new WebhookDeliveryRepository(ds.getRepository<WebhookDeliveryRecord>('WebhookDelivery')),
  };
}
