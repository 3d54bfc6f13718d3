/**
 * The pause between two passes of a polling loop, which the rest of the process can end early when it knows there is
 * work now (a request enqueued here, a slot freed): the poll stays only as the fallback for work from elsewhere.
 */
export class WakeablePause {
  private wake: (() => void) | null = null;

  /** Resolves after `ms`, or as soon as wakeNow() is called. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Ends the pause under way, if there is one. */
  wakeNow(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}
