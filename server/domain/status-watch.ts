import type { AgentRequestStatus } from '../store';

/** Ids read per statement (fewer are padded up to the next size, so a handful of statement shapes serve every batch). */
const BATCH_SIZES = [1, 4, 16, 64] as const;
const BATCH = BATCH_SIZES[BATCH_SIZES.length - 1]!;

/**
 * Waiting readers of agent requests (GET …?waitMs) hear of an end in this process from its events at once; a request
 * another process runs is only seen in the database. Each reader first polls its own row (a short run is answered
 * fast), then joins this one watch, which reads the status of every request still waited on with one statement per
 * batch every `everyMs`: a hundred callers waiting on a busy queue cost one query a second, not a hundred.
 */
export class StatusWatch {
  private readonly waiters = new Map<string, Set<() => void>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** The statuses of these requests (a request missing from the answer is gone). */
    private readonly statuses: (ids: string[]) => Promise<Map<string, AgentRequestStatus>>,
    /** Whether a status ends the wait. */
    private readonly ends: (status: AgentRequestStatus) => boolean,
    private readonly everyMs: number,
  ) {}

  /** Calls `onEnd` once the request reaches a status that ends the wait, or is gone. Returns the way to stop watching. */
  watch(id: string, onEnd: () => void): () => void {
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    set.add(onEnd);
    this.schedule();
    return () => {
      set.delete(onEnd);
      if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
    };
  }

  private schedule(): void {
    if (this.timer || this.waiters.size === 0) return;
    this.timer = setTimeout(() => void this.tick(), this.everyMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const ids = [...this.waiters.keys()];
    try {
      for (let i = 0; i < ids.length; i += BATCH) {
        const chunk = ids.slice(i, i + BATCH);
        const size = BATCH_SIZES.find((n) => n >= chunk.length)!;
        const found = await this.statuses([...chunk, ...Array<string>(size - chunk.length).fill(chunk[0]!)]);
        for (const id of chunk) {
          const status = found.get(id);
          if (status !== undefined && !this.ends(status)) continue;
          for (const onEnd of [...(this.waiters.get(id) ?? [])]) onEnd();
        }
      }
    } catch {
      // The next tick reads again; every waiter's own deadline still ends its wait.
    } finally {
      this.timer = null;
      this.schedule();
    }
  }
}
