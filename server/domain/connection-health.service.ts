import { HEALTH_CHECK_LIMITS } from '../../contract/connection-health';
import type { ProviderCatalogue, ProviderDefinition } from '../providers/catalogue';
import type { ConnectionCheckOutcome, ConnectionRecord, ConnectionStatus, Store } from '../store';
import { firstCheckAt, JITTER, jittered, nextCheckAfter } from './check-schedule';
import type { Clock } from './clock';
import { ConcurrencyLimit, QueueFullError } from './concurrency-limit';
import type { ConnectionSettingsService } from './connection-settings.service';
import type { ConnectionService, ProviderSession } from './connections.service';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';

/**
 * What looking at a connection's session found. The probe (server/agent/health/session-probe.ts: a fenced, read-only
 * browser context) decides; it never writes anything: this service applies the verdict.
 */
export type ProbeVerdict =
  | { kind: 'signed_in'; session: ProviderSession }
  | { kind: 'renewed'; session: ProviderSession }
  | { kind: 'login_required'; reason: string }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'unreadable' };

export interface SessionProbe {
  /** Stops (and closes its browser context) soon after `signal` aborts; never throws for an expected failure. */
  check(input: { connection: ConnectionRecord; provider: ProviderDefinition; signal: AbortSignal }): Promise<ProbeVerdict>;
}

export interface CheckReport {
  outcome: ConnectionCheckOutcome;
  checkedAt: Date;
  durationMs: number;
  /** Why, for logs (never page content, never a credential). */
  reason?: string;
  connection: ConnectionRecord;
}

export interface HealthCheckSettings {
  /** Time budget of one check; past it the check ends TIMED_OUT and changes nothing. */
  budgetMs: number;
  /** Checks asked for through the API that one process runs at once (as many more may wait; beyond that: 429). */
  concurrency: number;
}

/** A lease outlives the check's budget by this much: a process that died mid-check frees the connection after it. */
const LEASE_MARGIN_MS = 60_000;
const CHECKABLE_ON_REQUEST: readonly ConnectionStatus[] = ['ACTIVE', 'LOGIN_REQUIRED'];

const OUTCOME_OF: Record<ProbeVerdict['kind'] | 'timed_out', ConnectionCheckOutcome> = {
  signed_in: 'SIGNED_IN',
  renewed: 'RENEWED',
  login_required: 'LOGIN_REQUIRED',
  unreachable: 'UNREACHABLE',
  unreadable: 'SESSION_UNREADABLE',
  timed_out: 'TIMED_OUT',
};

/**
 * Health checks of connections' sessions: one check (claimed on the connection's row, bounded in time), its outcome
 * written on the connection, and the status transitions and webhook events it causes, through the connection service:
 *   signed in → the refreshed session is sealed back (a LOGIN_REQUIRED connection recovers: CONNECTION.RECOVERED);
 *   renewed by a silent re-login → CONNECTION.SESSION_RENEWED (and RECOVERED when it was LOGIN_REQUIRED);
 *   ended and not renewable → LOGIN_REQUIRED and CONNECTION.LOGIN_REQUIRED;
 *   timed out, unreachable, unreadable → nothing changes but lastCheckedAt/lastCheckOutcome (the next check comes sooner).
 * The scheduler (server/agent/health/health-scheduler.ts) runs the checks that are due; checkNow runs one on request.
 */
export class ConnectionHealthService {
  private readonly onRequest: ConcurrencyLimit;

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      connections: Pick<ConnectionService, 'saveSession' | 'sessionRenewed' | 'recoverSession' | 'markLoginRequired'>;
      catalogue: Pick<ProviderCatalogue, 'find'>;
      settings: Pick<ConnectionSettingsService, 'intervals'>;
      probe: SessionProbe;
      /** The lease owner id of this process's checks asked for through the API (host:pid:random). */
      ownerId: string;
      onError?: (err: unknown, context: Record<string, unknown>) => void;
    },
    private readonly settings: HealthCheckSettings,
  ) {
    this.onRequest = new ConcurrencyLimit(Math.max(1, settings.concurrency), Math.max(1, settings.concurrency));
  }

  /** How long a process holds a connection's check lease (the budget and a margin). */
  get leaseMs(): number {
    return this.settings.budgetMs + LEASE_MARGIN_MS;
  }

  /**
   * POST /api/connections/{connectionId}/check: a check now, of an ACTIVE or LOGIN_REQUIRED connection of the caller.
   * Refused while another check of it runs (CONNECTION_CHECK_IN_PROGRESS), when it was checked moments ago or this
   * process runs its maximum of checks (CONNECTION_CHECK_RATE_LIMITED, details.retryAfterSeconds).
   */
  async checkNow(caller: Caller, connectionId: string): Promise<Result<CheckReport>> {
    const { store, clock, ownerId: owner } = this.deps;
    const connection = await store.repos.connections.findOwned(connectionId, caller);
    if (!connection) return fail('CONNECTION_NOT_FOUND', `No connection ${connectionId}.`);
    if (connection.status === 'REVOKED') return fail('CONNECTION_REVOKED', 'The connection was revoked; it has no session to check.');
    const now = clock.now();
    const gapMs = HEALTH_CHECK_LIMITS.manualCheckMinGapSeconds * 1000;
    const tooSoon = tooSoonAfter(connection, now, gapMs);
    if (tooSoon) return tooSoon;
    try {
      return await this.onRequest.run(async () => {
        const start = clock.now();
        const claimed = await store.repos.connections.claimCheck(connectionId, owner, start, new Date(start.getTime() + this.leaseMs), {
          statuses: CHECKABLE_ON_REQUEST,
          checkedBefore: new Date(start.getTime() - gapMs),
        });
        if (!claimed) return this.whyNotClaimed(connectionId, start, gapMs);
        return ok(await this.run(connectionId, owner));
      });
    } catch (err) {
      if (!(err instanceof QueueFullError)) throw err;
      return fail(
        'CONNECTION_CHECK_RATE_LIMITED',
        `This AgentLink process is running its maximum of ${this.settings.concurrency} checks with as many waiting; try again shortly.`,
        { retryAfterSeconds: Math.max(1, Math.ceil(this.settings.budgetMs / 1000)) },
      );
    }
  }

  /**
   * The scheduler's planning: the first check of up to `limit` connections that have none planned (new, re-authenticated,
   * rescheduled), one interval (jittered) from now, each owner's interval read once. Resolves with how many it planned.
   */
  async planFirstChecks(limit: number): Promise<number> {
    const repo = this.deps.store.repos.connections;
    const unplanned = await repo.unplanned(limit);
    if (unplanned.length === 0) return 0;
    const intervalOf = this.deps.settings.intervals();
    const now = this.deps.clock.now();
    for (const c of unplanned) await repo.planCheck(c.id, firstCheckAt(now, await intervalOf(c, c.providerId)));
    return unplanned.length;
  }

  /**
   * The scheduler's part: runs the check of a connection whose lease `owner` claimed, writes its outcome and releases
   * the lease. A connection no longer ACTIVE (changed since it was claimed), or whose checks are turned off, is released
   * without a check: null.
   */
  async runScheduled(connectionId: string, owner: string): Promise<CheckReport | null> {
    const { store, clock } = this.deps;
    const connection = await store.repos.connections.findById(connectionId);
    if (!connection || connection.checkOwner !== owner) return null;
    const interval = await this.intervalOf(connection);
    if (connection.status !== 'ACTIVE' || interval === 0) {
      const next = connection.status === 'ACTIVE' ? firstCheckAt(clock.now(), interval) : null;
      await store.repos.connections.finishCheck(connectionId, owner, { nextCheckAt: next });
      return null;
    }
    // A run used the session since the last check, well within the interval, and did not find it ended: that run was
    // the proof. The check moves to one interval after it, and costs no browser.
    const lastUsed = connection.lastUsedAt?.getTime() ?? 0;
    if (lastUsed > (connection.lastCheckedAt?.getTime() ?? 0) && clock.now().getTime() - lastUsed < interval * 1000 * (1 - JITTER)) {
      await store.repos.connections.finishCheck(connectionId, owner, { nextCheckAt: jittered(connection.lastUsedAt!, interval) });
      return null;
    }
    return this.run(connectionId, owner);
  }

  private async run(connectionId: string, owner: string): Promise<CheckReport> {
    const { store, clock, catalogue } = this.deps;
    const started = performance.now();
    const connection = (await store.repos.connections.findById(connectionId))!;
    const provider = await catalogue.find(connection.providerId, connection);
    const verdict: ProbeVerdict | { kind: 'timed_out' } = provider
      ? await this.withinBudget(connection, provider)
      : { kind: 'unreachable', reason: `provider ${connection.providerId} is not in the catalogue` };
    const outcome = OUTCOME_OF[verdict.kind];
    const checkedAt = clock.now();
    const interval = await this.intervalOf(connection);
    // The outcome first, so that the events below present the connection with this check as its last.
    await store.repos.connections.finishCheck(connectionId, owner, {
      checkedAt,
      outcome,
      nextCheckAt: nextCheckAfter(checkedAt, outcome, interval),
    });
    await this.apply(connection, verdict);
    const after = (await store.repos.connections.findById(connectionId)) ?? connection;
    return {
      outcome,
      checkedAt,
      durationMs: Math.round(performance.now() - started),
      ...('reason' in verdict ? { reason: verdict.reason } : {}),
      connection: after,
    };
  }

  /** The probe, cut off at the budget: an abort tells it to close its context; its late answer is ignored. */
  private async withinBudget(connection: ConnectionRecord, provider: ProviderDefinition): Promise<ProbeVerdict | { kind: 'timed_out' }> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<{ kind: 'timed_out' }>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({ kind: 'timed_out' });
      }, this.settings.budgetMs);
    });
    const probed = this.deps.probe.check({ connection, provider, signal: controller.signal }).catch((err: unknown): ProbeVerdict => ({
      kind: 'unreachable',
      reason: `the check failed (${err instanceof Error ? err.name : 'error'})`,
    }));
    try {
      return await Promise.race([probed, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The verdict's status change and events, each through the connection service's conditional writes. */
  private async apply(connection: ConnectionRecord, verdict: ProbeVerdict | { kind: 'timed_out' }): Promise<void> {
    const { connections } = this.deps;
    try {
      switch (verdict.kind) {
        case 'signed_in':
          // The refreshed cookies, sealed back like after a run; a LOGIN_REQUIRED connection is ACTIVE again.
          if (!(await connections.saveSession(connection.id, verdict.session)))
            await connections.recoverSession(connection.id, verdict.session);
          return;
        case 'renewed':
          await connections.sessionRenewed(connection.id, verdict.session);
          return;
        case 'login_required':
          await connections.markLoginRequired(connection.id);
          return;
        default:
          return;
      }
    } catch (err) {
      this.deps.onError?.(err, { connectionId: connection.id, verdict: verdict.kind });
    }
  }

  private intervalOf(connection: ConnectionRecord): Promise<number> {
    return this.deps.settings.intervals()(connection, connection.providerId);
  }

  /** Why the claim was lost, read once more: revoked meanwhile, another check running, or checked moments ago. */
  private async whyNotClaimed(connectionId: string, now: Date, gapMs: number): Promise<Result<CheckReport>> {
    const row = await this.deps.store.repos.connections.findById(connectionId);
    if (!row || row.status === 'REVOKED') return fail('CONNECTION_REVOKED', 'The connection was revoked; it has no session to check.');
    const tooSoon = tooSoonAfter(row, now, gapMs);
    if (tooSoon && !(row.checkLeaseUntil && row.checkLeaseUntil.getTime() > now.getTime())) return tooSoon;
    return fail('CONNECTION_CHECK_IN_PROGRESS', 'A health check of this connection is running; read the connection when it ends.', {
      retryAfterSeconds: Math.max(1, Math.ceil(this.settings.budgetMs / 1000)),
    });
  }
}

/** Refuses a check of a connection checked less than `gapMs` ago, saying when it may be asked again. */
function tooSoonAfter(connection: ConnectionRecord, now: Date, gapMs: number): Result<CheckReport> | null {
  const last = connection.lastCheckedAt?.getTime();
  if (last === undefined || now.getTime() - last >= gapMs) return null;
  const retryAfterSeconds = Math.max(1, Math.ceil((last + gapMs - now.getTime()) / 1000));
  return fail(
    'CONNECTION_CHECK_RATE_LIMITED',
    `The connection was checked less than ${HEALTH_CHECK_LIMITS.manualCheckMinGapSeconds} seconds ago; try again in ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );
}
