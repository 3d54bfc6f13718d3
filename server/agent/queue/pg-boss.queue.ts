import PgBoss from 'pg-boss';
import type { Logger } from 'pino';

import { LIMITS } from '../../../contract/schemas';
import type { Store } from '../../store';
import type { Clock, QueueSignals } from '../ports';
import { sweepEveryMs, sweepExpiredLeases } from './lease-sweeper';
import { gatheredWake, PgWakeChannel, WAKE_SQL } from './pg-wake-channel';
import { type AgentQueue, type ClaimHandler, type LeaseSettings, type QueueStartOptions, QueueUnavailable } from './queue';

export const PG_BOSS_QUEUE = 'agent-requests';
export const PG_BOSS_SCHEMA = 'agentlink_pgboss';

const SETUP_LOCK_KEY = 741_852_964;
/** A job must outlive the longest run; the row's lease, not the job, says whether its worker is alive. */
const JOB_EXPIRE_SECONDS = Math.ceil(LIMITS.timeoutMsMax / 1000) + 300;
/** A PENDING row with no worker on it for this long gets its job sent again (a lost send, a crashed API). */
const RESEND_PENDING_AFTER_MS = 30_000;
/** pg-boss fetches higher priorities first: re-sent requests go before the new ones. */
const RECOVERED_PRIORITY = 1;

/**
 * The PostgreSQL engine, on pg-boss: one job per request (singletonKey = requestId, "short" policy: at most
 * one waiting job per request). Jobs only carry the request id; a worker that fetches one still has to win
 * the row's conditional claim, so a duplicate job can never make a request run twice at once. pg-boss
 * retries nothing itself: a dead worker's row is found by its expired lease and re-sent (or failed with
 * WORKER_LOST) by the sweep every worker runs.
 */
export class PgBossQueue implements AgentQueue {
  readonly engine = 'pg-boss' as const;
  private boss: PgBoss | null = null;
  private starting: Promise<PgBoss> | null = null;
  private workIds: string[] = [];
  private active = new Set<Promise<void>>();
  private sweeper: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private working = false;
  private stopped = false;
  private wake: PgWakeChannel | null = null;

  constructor(
    private readonly deps: { store: Store; clock: Clock; events: QueueSignals; logger?: Logger },
    private readonly settings: LeaseSettings,
    private readonly workerId: string,
    private readonly connectionString: string,
  ) {}

  /** Started on first use: an API-only process only sends, a worker also works. */
  private ready(): Promise<PgBoss> {
    if (!this.starting) {
      const boss = new PgBoss({
        connectionString: this.connectionString,
        schema: PG_BOSS_SCHEMA,
        max: 4,
        application_name: 'agentlink-queue',
        schedule: false,
        supervise: true,
        retryLimit: 0,
        expireInSeconds: JOB_EXPIRE_SECONDS,
      });
      boss.on('error', (err) => this.deps.logger?.error({ err }, 'pg-boss error'));
      this.starting = (async () => {
        // Processes starting together would deadlock creating pg-boss's schema and queue: one at a time.
        const lock = this.deps.store.dataSource.createQueryRunner();
        await lock.connect();
        try {
          await lock.query('SELECT pg_advisory_lock($1)', [SETUP_LOCK_KEY]);
          await boss.start();
          if (!(await boss.getQueue(PG_BOSS_QUEUE))) {
            await boss.createQueue(PG_BOSS_QUEUE, {
              name: PG_BOSS_QUEUE,
              policy: 'short',
              retryLimit: 0,
              expireInSeconds: JOB_EXPIRE_SECONDS,
            });
          }
        } catch (err) {
          await boss.stop({ graceful: false, close: true, wait: false }).catch(() => undefined);
          throw err;
        } finally {
          await lock.query('SELECT pg_advisory_unlock($1)', [SETUP_LOCK_KEY]).catch(() => undefined);
          await lock.release();
        }
        this.boss = boss;
        return boss;
      })();
      this.starting.catch(() => {
        this.starting = null;
      });
    }
    return this.starting;
  }

  async enqueue(requestId: string): Promise<void> {
    const boss = await this.ready();
    await boss.send(PG_BOSS_QUEUE, { requestId }, { singletonKey: requestId, retryLimit: 0, expireInSeconds: JOB_EXPIRE_SECONDS });
    this.deps.events.enqueued(requestId);
    this.wakeOthers();
  }

  /**
   * Idle workers in other processes fetch at once instead of at their next poll (a lost NOTIFY costs one poll); the
   * wakes of a burst of requests are gathered, one NOTIFY per 20 ms (gatheredWake).
   */
  private readonly wakes = gatheredWake(() => {
    void this.deps.store.dataSource.query(WAKE_SQL).catch((err) => this.deps.logger?.warn({ err }, 'queue wake-up NOTIFY failed'));
  });
  private wakeOthers() {
    this.wakes.wake();
  }

  private notifyWorkers() {
    const boss = this.boss;
    if (boss) for (const id of this.workIds) boss.notifyWorker(id);
  }

  async start(handler: ClaimHandler, opts: QueueStartOptions): Promise<void> {
    if (this.working) return;
    this.working = true;
    this.stopped = false;
    const boss = await this.ready();
    const repo = this.deps.store.repos.agentRequests;
    const pollingIntervalSeconds = Math.max(0.5, this.settings.pollMs / 1000);
    const concurrency = Math.max(1, opts.concurrency);
    const busy = opts.busy ?? (() => 0);
    for (let i = 0; i < concurrency; i++) {
      let slotId: string | null = null;
      const id = await boss.work<{ requestId: string }>(PG_BOSS_QUEUE, { batchSize: 1, pollingIntervalSeconds }, async (jobs) => {
        // pg-boss waits out the polling interval after every fetch, even one that found a job: a slot that just
        // finished asks again at once, so a backlog keeps every slot busy (the poll paces only an idle slot).
        if (jobs.length > 0 && slotId) boss.notifyWorker(slotId);
        for (const job of jobs) {
          const requestId = job.data?.requestId;
          if (typeof requestId !== 'string') continue;
          // Resumed runs (they paused for their user) hold slots too: wait for one before claiming.
          while (this.working && this.active.size + busy() >= concurrency) await new Promise((r) => setTimeout(r, 100));
          if (!this.working) return;
          const now = this.deps.clock.now();
          const t0 = performance.now();
          const record = await repo.claimRecord(
            requestId,
            this.workerId,
            now,
            new Date(now.getTime() + this.settings.leaseMs),
            this.settings.maxAttempts,
          );
          if (!record) continue; // canceled, finished, or another worker holds it
          const task = handler({ requestId, owner: this.workerId, record, claimMs: performance.now() - t0 }).catch((err) =>
            this.deps.logger?.error({ err, requestId }, 'agent request handler failed'),
          );
          this.active.add(task);
          try {
            await task;
          } finally {
            this.active.delete(task);
          }
        }
      });
      slotId = id;
      this.workIds.push(id);
    }
    // Jobs sent by this very process are picked up at once instead of at the next poll; jobs sent by any other
    // process, through the wake channel (LISTEN/NOTIFY).
    const offLocal = this.deps.events.onEnqueued(() => this.notifyWorkers());
    this.wake = new PgWakeChannel(this.connectionString, this.deps.logger);
    const offRemote = this.wake.listen(() => this.notifyWorkers());
    this.unsubscribe = () => {
      offLocal();
      offRemote();
    };
    const every = sweepEveryMs(this.settings.leaseMs);
    this.sweeper = setInterval(() => void this.sweep().catch((err) => this.deps.logger?.error({ err }, 'lease sweep failed')), every);
    this.sweeper.unref();
  }

  /**
   * Fails hopeless expired rows, and sends jobs again for rows a dead worker held or whose job got lost. Waiting rows
   * have their job (the API sent it): only those waiting longer than RESEND_PENDING_AFTER_MS are sent again, and all
   * in one statement: a re-send for a request whose job still waits is a no-op ("short" policy, ON CONFLICT DO NOTHING).
   * (The sweep used to send a job for every waiting row of a backlog, one INSERT each, every sweep: six refused INSERTs
   * per request in bench:scale.)
   */
  private async sweep() {
    await sweepExpiredLeases(this.deps, this.settings.maxAttempts);
    const boss = this.boss;
    if (!boss) return;
    const repo = this.deps.store.repos.agentRequests;
    const now = this.deps.clock.now();
    const expired = await repo.expiredLeases(now, this.settings.maxAttempts, 100);
    const stale = await repo.pendingBefore(new Date(now.getTime() - RESEND_PENDING_AFTER_MS), 100);
    const ids = [...new Set([...expired, ...stale])];
    if (ids.length === 0) return;
    // Ahead of the backlog: a request whose worker died has waited its lease out already.
    await boss.insert(
      ids.map((requestId) => ({
        name: PG_BOSS_QUEUE,
        data: { requestId },
        singletonKey: requestId,
        retryLimit: 0,
        expireInSeconds: JOB_EXPIRE_SECONDS,
        priority: RECOVERED_PRIORITY,
      })),
    );
    this.notifyWorkers();
    this.wakeOthers();
  }

  /** pg-boss started (schema and queue in place) and its queue table answers. */
  async health(): Promise<void> {
    if (this.stopped) throw new QueueUnavailable('stopped');
    const boss = await this.ready();
    if (!(await boss.getQueue(PG_BOSS_QUEUE))) throw new QueueUnavailable(`the pg-boss queue ${PG_BOSS_QUEUE} is missing`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakes.stop(); // a wake still owed goes out now
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.wake?.close();
    this.wake = null;
    const boss = this.boss ?? (this.starting ? await this.starting.catch(() => null) : null);
    if (!boss) return;
    if (this.working) {
      for (const id of this.workIds) await boss.offWork({ id }).catch(() => undefined);
      await Promise.allSettled([...this.active]);
    }
    this.working = false;
    this.workIds = [];
    await boss.stop({ graceful: true, wait: true, close: true, timeout: 10_000 }).catch(() => undefined);
    this.boss = null;
    this.starting = null;
  }
}
