/** Thrown (as a value to catch) when the queue of a ConcurrencyLimit is full: the caller sheds the work. */
export class QueueFullError extends Error {
  constructor() {
    super('concurrency limit queue is full');
  }
}

/**
 * At most `max` tasks run at once; up to `maxQueued` more wait in order, and beyond that `run` fails at once.
 * Used around scrypt: libuv's pool has 4 threads shared with the SQLite driver, file I/O and DNS, so
 * unbounded hashing would stall every other request of the process.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly max: number,
    private readonly maxQueued: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxQueued) throw new QueueFullError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (running stays the same), or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
