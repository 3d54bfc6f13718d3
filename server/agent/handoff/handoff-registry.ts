import type { HandoffSeat, RunHandoff } from './run-handoff';

/**
 * This process's runs that have asked for their user: the widget finds a run here (by request id) to show its page and
 * take the person's answer. A run is registered at its first ask and stays until it ends, so a person who keeps the
 * widget open sees it work on and can answer its next ask. At most `maxWaiting` runs wait at once: each keeps its
 * browser context (not a worker slot) while it waits.
 */
export class HandoffRegistry implements HandoffSeat {
  private readonly runs = new Map<string, RunHandoff>();
  private readonly waiting = new Set<RunHandoff>();

  constructor(private readonly maxWaiting: number) {}

  /** Runs waiting for their user now (a gauge, and what the bound counts). */
  get waitingCount(): number {
    return this.waiting.size;
  }

  admit(run: RunHandoff): boolean {
    if (!this.waiting.has(run) && this.waiting.size >= this.maxWaiting) return false;
    this.waiting.add(run);
    this.runs.set(run.requestId, run);
    return true;
  }

  leave(run: RunHandoff): void {
    this.waiting.delete(run);
  }

  find(requestId: string): RunHandoff | null {
    return this.runs.get(requestId) ?? null;
  }

  /** The run ended: the widget's view of it closes. */
  remove(run: RunHandoff): void {
    this.waiting.delete(run);
    if (this.runs.get(run.requestId) === run) this.runs.delete(run.requestId);
    run.close();
  }
}
