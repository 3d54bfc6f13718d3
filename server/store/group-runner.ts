/**
 * Group commit: runs submitted items in groups, one group at a time. An item submitted while nothing runs starts
 * at once, alone (no added latency on a quiet server); items submitted while a group runs wait and run together
 * in the next group, at most `max` at a time. `run` answers one settled outcome per item, in order (an item can
 * fail alone); should `run` itself throw, every item of its group fails with that error.
 *
 * On SQLite every statement is a threadpool round trip and every write a WAL commit (locks, page writes, a
 * wake-up of the event loop): N concurrent inserts as one statement cost about what one insert costs.
 */
export class GroupRunner<I, O> {
  private waiting: { item: I; resolve: (o: O) => void; reject: (err: unknown) => void }[] = [];
  private running = false;

  constructor(
    private readonly run: (items: I[]) => Promise<PromiseSettledResult<O>[]>,
    private readonly max: number,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain() {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, this.max);
        try {
          const outcomes = await this.run(group.map((g) => g.item));
          if (outcomes.length !== group.length) throw new Error(`a group of ${group.length} answered ${outcomes.length} outcomes`);
          group.forEach((g, i) => {
            const outcome = outcomes[i]!;
            if (outcome.status === 'fulfilled') g.resolve(outcome.value);
            else g.reject(outcome.reason);
          });
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
