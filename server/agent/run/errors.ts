/** How a run ends early: every one of these aborts the run through its one AbortController. */
export type AbortKind = 'TIMED_OUT' | 'CANCELED' | 'LEASE_LOST' | 'SHUTDOWN';

export class RunAborted extends Error {
  constructor(readonly kind: AbortKind) {
    super(
      kind === 'TIMED_OUT'
        ? 'the agent request ran past its timeout'
        : kind === 'CANCELED'
          ? 'the agent request was canceled'
          : kind === 'LEASE_LOST'
            ? 'this worker lost the lease on the request'
            : 'the worker is shutting down',
    );
    this.name = 'RunAborted';
  }
}

/** An expected failure of the run itself, with the error code the request ends with. */
export class RunFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Rejects as soon as the signal aborts, whatever `work` is doing (a strategy that ignores the signal cannot hold the run). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
