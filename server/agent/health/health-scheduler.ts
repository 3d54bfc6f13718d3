import type { Logger } from 'pino';

import type { Store } from '../../store';
import type { Clock, ScheduledChecks } from '../ports';
import { WakeablePause } from '../queue/wakeable-pause';

export interface HealthSchedulerSettings {
  /** Checks this process runs at once (AGENTLINK_HEALTH_CHECK_CONCURRENCY). */
  concurrency: number;
  /** How often it looks for due checks when idle (AGENTLINK_WORKER_POLL_MS). */
  pollMs: number;
  /** This process's lease owner id (host:pid:random, as the agent queue's). */
  workerId: string;
}

/** Connections planned per pass: bounded, so that a first start over a large table plans it over a few passes. */
const PLAN_BATCH = 500;

/**
 * Runs the connections' scheduled health checks in a worker process, whatever the agent queue's engine: the
 * connection rows are the schedule (next_check_at) and the lock (a check lease taken with one conditional UPDATE), so
 * any number of worker processes on SQLite or PostgreSQL (embedded queue or pg-boss alike) share the checks and never
 * check one connection twice at once; a process that dies mid-check leaves a lease that runs out.
 *
 * Each pass plans the first check of connections that have none (new, re-authenticated, rescheduled), then claims
 * due ones up to its free slots. A finished check frees a slot and wakes the loop at once.
 */
export class HealthScheduler {
  private running = false;
  /** Set by stop(): no more claims, whether the loop runs or a test calls pass() itself. */
  private stopping = false;
  private loop: Promise<void> | null = null;
  private readonly active = new Set<Promise<void>>();
  private readonly pause = new WakeablePause();

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      /** The checks' rules (ConnectionHealthService): planning the first ones, running one, its lease. */
      health: ScheduledChecks;
      logger?: Logger;
    },
    private readonly settings: HealthSchedulerSettings,
  ) {}

  /** Checks running right now in this process (never more than the concurrency). */
  get activeCount(): number {
    return this.active.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Stops claiming and waits for the running checks (each bounded by its budget). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.running = false;
    this.poke();
    await this.loop;
    await Promise.allSettled([...this.active]);
  }

  /** One pass: plans unplanned connections, claims due ones up to the free slots. Resolves with the checks it started. */
  async pass(): Promise<number> {
    await this.plan();
    return this.claimDue();
  }

  /** Resolves when no check of this process is running (tests). */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }

  private poke() {
    this.pause.wakeNow();
  }

  private async run() {
    while (this.running) {
      try {
        await this.pass();
      } catch (err) {
        if (!this.running) break;
        this.deps.logger?.error({ err }, 'health checks: a pass failed; retrying');
      }
      if (!this.running) break;
      await this.pause.sleep(this.settings.pollMs);
    }
  }

  private async plan() {
    await this.deps.health.planFirstChecks(PLAN_BATCH);
  }

  private async claimDue(): Promise<number> {
    const free = this.settings.concurrency - this.active.size;
    if (this.stopping || free <= 0) return 0;
    const repo = this.deps.store.repos.connections;
    const now = this.deps.clock.now();
    // A few more than the free slots: other processes may win some of them.
    const ids = await repo.dueForCheck(now, free * 2);
    let started = 0;
    for (const id of ids) {
      if (this.stopping || this.active.size >= this.settings.concurrency) break;
      const leaseUntil = new Date(now.getTime() + this.deps.health.leaseMs);
      if (!(await repo.claimCheck(id, this.settings.workerId, now, leaseUntil, { statuses: ['ACTIVE'], due: true }))) continue;
      started += 1;
      const task: Promise<void> = this.deps.health
        .runScheduled(id, this.settings.workerId)
        .then((report) => {
          if (report)
            this.deps.logger?.info(
              { connectionId: id, outcome: report.outcome, ms: report.durationMs, reason: report.reason },
              'connection checked',
            );
        })
        .catch((err) => this.deps.logger?.error({ err, connectionId: id }, 'connection check failed'))
        .finally(() => {
          this.active.delete(task);
          this.poke();
        });
      this.active.add(task);
    }
    return started;
  }
}
