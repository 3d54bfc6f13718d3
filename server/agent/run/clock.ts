import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A run's own time: the wall clock minus the time it spent waiting for its end user (NEEDS_USER). A run's timeoutMs
 * and every wait a strategy bounds by it (`until`, `waitBudget`, the model's budget) count working time only, so a
 * person who takes two minutes to find a code does not time the run out, nor a check that was waiting when the
 * run paused at the network. The worker runs each request inside its clock (AsyncLocalStorage); outside a run it is
 * the wall clock.
 */
export class RunClock {
  private pausedMs = 0;
  private pausedAt: number | null = null;
  private over = false;

  /**
   * The run is over (finished, failed, canceled, timed out). A strategy's step may still be waiting in the background
   * (a canceled run's playbook polling its page): its waits stop now instead of at their own deadline (until).
   */
  end(): void {
    this.over = true;
  }

  get ended(): boolean {
    return this.over;
  }

  now(): number {
    const paused = this.pausedAt === null ? 0 : Date.now() - this.pausedAt;
    return Date.now() - this.pausedMs - paused;
  }

  get paused(): boolean {
    return this.pausedAt !== null;
  }

  pause(): void {
    if (this.pausedAt === null) this.pausedAt = Date.now();
  }

  resume(): void {
    if (this.pausedAt === null) return;
    this.pausedMs += Date.now() - this.pausedAt;
    this.pausedAt = null;
  }
}

const current = new AsyncLocalStorage<RunClock>();

export function withRunClock<T>(clock: RunClock, fn: () => Promise<T>): Promise<T> {
  return current.run(clock, fn);
}

/** The current run's time (see RunClock); the wall clock outside a run. Compare it with a run's `deadline`. */
export function runNow(): number {
  return current.getStore()?.now() ?? Date.now();
}

/** Whether the current run is paused for its end user right now. */
export function runPaused(): boolean {
  return current.getStore()?.paused ?? false;
}

/** Whether the current run is over (RunClock.end); never outside a run. */
export function runEnded(): boolean {
  return current.getStore()?.ended ?? false;
}
