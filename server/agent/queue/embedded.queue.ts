import type { Logger } from 'pino';

import type { Store } from '../../store';
import type { Clock, QueueSignals } from '../ports';
import { sweepEveryMs, sweepExpiredLeases } from './lease-sweeper';
import { gatheredWake, PgWakeChannel, WAKE_SQL } from './pg-wake-channel';
import { type AgentQueue, type ClaimHandler, type LeaseSettings, type QueueStartOptions, QueueUnavailable } from './queue';
import { WakeablePause } from './wakeable-pause';

/**
 * The embedded engine: the agent_requests table is the queue. A worker claims a row with one conditional
 * UPDATE (PENDING, or RUNNING with an expired lease and attempts left → RUNNING, owner, lease, attempts+1),
 * so it is race-safe across processes sharing the database without multi-statement transactions.
 * It polls every `pollMs`, and wakes at once when this process enqueues or a slot frees, and on PostgreSQL when any
 * other process enqueues (LISTEN/NOTIFY, pg-wake-channel.ts).
 */
export class EmbeddedQueue implements AgentQueue {
  readonly engine = 'embedded' as const;
  private running = false;
  private active = new Set<Promise<void>>();
  private readonly pause = new WakeablePause();
  private loop: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private lastSweep = 0;
  private stopped = false;
  private wake: PgWakeChannel | null = null;

  constructor(
    private readonly deps: { store: Store; clock: Clock; events: QueueSignals; logger?: Logger },
    private readonly settings: LeaseSettings,
    private readonly workerId: string,
    /** PostgreSQL's URL, where other processes share the rows: they are woken by NOTIFY. */
    private readonly pgUrl?: string,
  ) {}

  async enqueue(requestId: string): Promise<void> {
    this.deps.events.enqueued(requestId);
    if (this.pgUrl) this.wakeOthers.wake();
  }

  /** Idle workers of other processes (PostgreSQL) fetch at once; a burst's wakes are gathered (gatheredWake). */
  private readonly wakeOthers = gatheredWake(() => {
    void this.deps.store.dataSource.query(WAKE_SQL).catch((err) => this.deps.logger?.warn({ err }, 'queue wake-up NOTIFY failed'));
  });

  async start(handler: ClaimHandler, opts: QueueStartOptions): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.stopped = false;
    const offLocal = this.deps.events.onEnqueued(() => this.poke());
    if (this.pgUrl) this.wake = new PgWakeChannel(this.pgUrl, this.deps.logger);
    const offRemote = this.wake?.listen(() => this.poke());
    this.unsubscribe = () => {
      offLocal();
      offRemote?.();
    };
    this.loop = this.run(handler, Math.max(1, opts.concurrency), opts.busy ?? (() => 0));
  }

  private poke() {
    this.pause.wakeNow();
  }

  private async run(handler: ClaimHandler, concurrency: number, busy: () => number) {
    const free = () => concurrency - this.active.size - busy();
    const repo = this.deps.store.repos.agentRequests;
    while (this.running) {
      try {
        if (Date.now() - this.lastSweep >= sweepEveryMs(this.settings.leaseMs)) {
          this.lastSweep = Date.now();
          await sweepExpiredLeases(this.deps, this.settings.maxAttempts);
        }
        while (this.running && free() > 0) {
          const now = this.deps.clock.now();
          const ids = await repo.claimable(now, this.settings.maxAttempts, free());
          let claimed = 0;
          for (const id of ids) {
            if (!this.running || free() <= 0) break;
            const leaseUntil = new Date(now.getTime() + this.settings.leaseMs);
            const t0 = performance.now();
            const record = await repo.claimRecord(id, this.workerId, now, leaseUntil, this.settings.maxAttempts);
            if (!record) continue;
            claimed += 1;
            const task: Promise<void> = handler({ requestId: id, owner: this.workerId, record, claimMs: performance.now() - t0 })
              .catch((err) => this.deps.logger?.error({ err, requestId: id }, 'agent request handler failed'))
              .finally(() => {
                this.active.delete(task);
                this.poke();
              });
            this.active.add(task);
          }
          if (claimed === 0) break;
        }
      } catch (err) {
        if (!this.running) break;
        this.deps.logger?.error({ err }, 'embedded queue: claiming failed; retrying');
      }
      if (!this.running) break;
      await this.pause.sleep(this.settings.pollMs);
    }
  }

  /** The rows are the queue (the database check covers them): only a stopped queue is not ready. */
  async health(): Promise<void> {
    if (this.stopped) throw new QueueUnavailable('stopped');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeOthers.stop(); // a wake still owed goes out now
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    await this.wake?.close();
    this.wake = null;
    this.poke();
    await this.loop;
    await Promise.allSettled([...this.active]);
  }
}
