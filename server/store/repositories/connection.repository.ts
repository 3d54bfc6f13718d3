import { Not } from 'typeorm';

import type { ConnectionPasskey, ConnectionRecord, ConnectionStatus } from '../records';
import { asRow, type KeysetPage, type KeysetPosition, type Owner, RecordRepository } from './base.repository';

export class ConnectionRepository extends RecordRepository<ConnectionRecord> {
  findOwned(id: string, owner: Owner) {
    return this.findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  findById(id: string) {
    return this.findOneBy({ id });
  }
  /** Connections of the owner to one provider that are not revoked (a provider in use cannot be deleted). */
  countLiveForProvider(providerId: string, owner: Owner) {
    return this.repo.countBy({ providerId, organizationId: owner.organizationId, environment: owner.environment, status: Not('REVOKED') });
  }
  async setStatus(id: string, status: ConnectionStatus, now: Date) {
    await this.repo.update({ id }, { status, updatedAt: now });
  }
  /**
   * A fresh sealed session (and, for a finished run, lastUsedAt), written only while the connection is ACTIVE:
   * a revoke or LOGIN_REQUIRED that landed after the caller read the row wins. False when nothing was written.
   */
  async setSessionIfActive(id: string, sealedSession: string, now: Date, opts: { used?: boolean } = {}) {
    const res = await this.repo.update(
      { id, status: 'ACTIVE' },
      { sealedSession, updatedAt: now, ...(opts.used ? { lastUsedAt: now } : {}) },
    );
    return (res.affected ?? 0) === 1;
  }
  /**
   * A finished run whose session came back exactly as it was loaded: only lastUsedAt, only while ACTIVE (the sealed
   * session stays as it is). False when nothing was written.
   */
  async markUsedIfActive(id: string, now: Date) {
    return (await this.table.updateWhere({ id, status: 'ACTIVE' }, { lastUsedAt: now })) === 1;
  }
  /**
   * Update mode: a fresh sealed session (and credentials, or none), the device it was signed in from (kept when none is
   * given), and ACTIVE again, from `from` only (one conditional UPDATE: the caller learns which transition it made,
   * LOGIN_REQUIRED → ACTIVE being a recovery). The next health check is planned afresh. False when the connection was
   * not in that status.
   */
  async reauthenticate(
    id: string,
    from: 'ACTIVE' | 'LOGIN_REQUIRED',
    sealedSession: string,
    sealedCredentials: string | null,
    now: Date,
    device: Record<string, unknown> | null = null,
  ) {
    const res = await this.repo.update(
      { id, status: from },
      asRow<ConnectionRecord>({
        sealedSession,
        sealedCredentials,
        status: 'ACTIVE',
        updatedAt: now,
        nextCheckAt: null,
        ...(device ? { device } : {}),
      }),
    );
    return (res.affected ?? 0) === 1;
  }
  /** LOGIN_REQUIRED → ACTIVE with a session a check found signed in or renewed; false when it was not LOGIN_REQUIRED. */
  async recover(id: string, sealedSession: string, now: Date) {
    const res = await this.repo.update(
      { id, status: 'LOGIN_REQUIRED' },
      { sealedSession, status: 'ACTIVE', updatedAt: now, nextCheckAt: null },
    );
    return (res.affected ?? 0) === 1;
  }

  // ---------- health checks: the row is the schedule and the lock ----------

  /** ACTIVE connections whose scheduled check is due and that no process is checking, the longest due first. */
  async dueForCheck(now: Date, limit: number): Promise<string[]> {
    const rows = await this.repo
      .createQueryBuilder('c')
      .select('c.id', 'id')
      .where("c.status = 'ACTIVE' AND c.next_check_at <= :now AND (c.check_lease_until IS NULL OR c.check_lease_until < :now)", { now })
      .orderBy('c.next_check_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /**
   * Takes the check of a connection for `owner` until `leaseUntil`, in one conditional UPDATE: only while no other
   * process holds an unexpired lease on it and its status is one of `statuses`; `due`: only when its scheduled check is
   * due; `checkedBefore`: only when it was not checked since (a check asked for through the API). False: not taken.
   */
  async claimCheck(
    id: string,
    owner: string,
    now: Date,
    leaseUntil: Date,
    opts: { statuses: readonly ConnectionStatus[]; due?: boolean; checkedBefore?: Date },
  ): Promise<boolean> {
    const conditions = ['id = :id', 'status IN (:...statuses)', '(check_lease_until IS NULL OR check_lease_until < :now)'];
    if (opts.due) conditions.push('next_check_at <= :now');
    if (opts.checkedBefore) conditions.push('(last_checked_at IS NULL OR last_checked_at <= :checkedBefore)');
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ checkOwner: owner, checkLeaseUntil: leaseUntil })
      .where(conditions.join(' AND '), { id, statuses: [...opts.statuses], now, checkedBefore: opts.checkedBefore })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /**
   * Ends a check: its time and outcome (none when it only released the lease, e.g. checks turned off), the next
   * scheduled one, and the lease released. Only the process holding the lease writes; false otherwise.
   */
  async finishCheck(
    id: string,
    owner: string,
    end: { checkedAt?: Date; outcome?: NonNullable<ConnectionRecord['lastCheckOutcome']>; nextCheckAt: Date | null },
  ): Promise<boolean> {
    const res = await this.repo.update(
      { id, checkOwner: owner },
      {
        ...(end.checkedAt && end.outcome ? { lastCheckedAt: end.checkedAt, lastCheckOutcome: end.outcome } : {}),
        nextCheckAt: end.nextCheckAt,
        checkOwner: null,
        checkLeaseUntil: null,
      },
    );
    return (res.affected ?? 0) === 1;
  }

  /** ACTIVE connections with no next check planned (new, re-authenticated, or their schedule changed). */
  unplanned(limit: number): Promise<Pick<ConnectionRecord, 'id' | 'organizationId' | 'environment' | 'providerId'>[]> {
    return this.repo
      .createQueryBuilder('c')
      .select(['c.id', 'c.organizationId', 'c.environment', 'c.providerId'])
      .where("c.status = 'ACTIVE' AND c.next_check_at IS NULL")
      .orderBy('c.created_at', 'ASC')
      .take(limit)
      .getMany();
  }

  /** Plans the next check of a connection that has none (a check or a reschedule that landed meanwhile wins). */
  async planCheck(id: string, nextCheckAt: Date): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ nextCheckAt })
      .where('id = :id AND next_check_at IS NULL', { id })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /** Forgets the planned checks of an owner's connections (its schedule changed): the scheduler plans them again. */
  async unplanOwned(owner: Owner): Promise<void> {
    await this.repo.update({ organizationId: owner.organizationId, environment: owner.environment }, { nextCheckAt: null });
  }

  /** The connection's device (chosen on a first run, or its browser upgraded); false when it was revoked. */
  async setDevice(id: string, device: Record<string, unknown>, now: Date) {
    const res = await this.repo.update({ id, status: Not('REVOKED' as const) }, asRow<ConnectionRecord>({ device, updatedAt: now }));
    return (res.affected ?? 0) === 1;
  }
  /** The connection's upstream proxy (sealed) and its label, or none (both null); false when it was revoked. */
  async setExitProxy(id: string, sealedExitProxy: string | null, exitProxyLabel: string | null, now: Date) {
    const res = await this.repo.update({ id, status: Not('REVOKED' as const) }, { sealedExitProxy, exitProxyLabel, updatedAt: now });
    return (res.affected ?? 0) === 1;
  }
  /** Connections that hold sealed values, in id order after `afterId` (batches for key rotation). */
  listSealed(
    afterId: string,
    limit: number,
  ): Promise<Pick<ConnectionRecord, 'id' | 'sealedSession' | 'sealedCredentials' | 'sealedExitProxy' | 'sealedPasskey'>[]> {
    return this.repo
      .createQueryBuilder('c')
      .select(['c.id', 'c.sealedSession', 'c.sealedCredentials', 'c.sealedExitProxy', 'c.sealedPasskey'])
      .where(
        'c.id > :afterId AND (c.sealed_session IS NOT NULL OR c.sealed_credentials IS NOT NULL OR c.sealed_exit_proxy IS NOT NULL' +
          ' OR c.sealed_passkey IS NOT NULL)',
        {
          afterId,
        },
      )
      .orderBy('c.id', 'ASC')
      .take(limit)
      .getMany();
  }
  /** A passkey of the connection's own, kept (sealed and its public face) unless the connection was revoked meanwhile. */
  async keepPasskey(id: string, sealedPasskey: string, passkey: ConnectionPasskey, now: Date): Promise<boolean> {
    const res = await this.repo.update({ id, status: Not('REVOKED' as const) }, { sealedPasskey, passkey, updatedAt: now });
    return (res.affected ?? 0) === 1;
  }

  /** The passkey signed in: its public face says when (the sealed credential with its new sign count replaces the old). */
  async passkeyUsed(id: string, expectedSealed: string, sealedPasskey: string, passkey: ConnectionPasskey): Promise<boolean> {
    const res = await this.repo.update({ id, sealedPasskey: expectedSealed, status: Not('REVOKED' as const) }, { sealedPasskey, passkey });
    return (res.affected ?? 0) === 1;
  }

  /** Compare-and-set of one sealed column; false when it changed meanwhile (a login or a run sealed a new value). */
  async replaceSealed(
    id: string,
    column: 'sealedSession' | 'sealedCredentials' | 'sealedExitProxy' | 'sealedPasskey',
    expected: string,
    next: string,
  ) {
    const res = await this.repo.update({ id, [column]: expected }, { [column]: next });
    return (res.affected ?? 0) === 1;
  }
  /** Newest first (the API's and the dashboard's list), one keyset page after the last record of the previous page. */
  listOwned(
    owner: Owner,
    opts: { limit: number; after?: KeysetPosition; clientUserId?: string; status?: ConnectionStatus },
  ): Promise<KeysetPage<ConnectionRecord>> {
    const qb = this.repo
      .createQueryBuilder('c')
      .where('c.organization_id = :org AND c.environment = :env', { org: owner.organizationId, env: owner.environment });
    if (opts.clientUserId !== undefined) qb.andWhere('c.client_user_id = :clientUserId', { clientUserId: opts.clientUserId });
    if (opts.status) qb.andWhere('c.status = :status', { status: opts.status });
    return this.keysetPage(qb, opts);
  }
  /** Revokes and forgets the stored session, credentials and exit proxy in one statement; false when it was already revoked. */
  async revoke(id: string, now: Date) {
    const res = await this.repo.update(
      { id, status: Not('REVOKED' as const) },
      {
        status: 'REVOKED',
        sealedSession: null,
        sealedCredentials: null,
        sealedExitProxy: null,
        exitProxyLabel: null,
        sealedPasskey: null,
        passkey: null,
        revokedAt: now,
        updatedAt: now,
      },
    );
    return (res.affected ?? 0) === 1;
  }
  /** ACTIVE → LOGIN_REQUIRED; false when it was not ACTIVE (already marked, or revoked). */
  async markLoginRequired(id: string, now: Date) {
    const res = await this.repo.update({ id, status: 'ACTIVE' }, { status: 'LOGIN_REQUIRED', updatedAt: now });
    return (res.affected ?? 0) === 1;
  }
}
