/**
 * Readiness: can this process do its job right now? Each check is one part (the database, the queue, the
 * browser in worker roles); they run in parallel, each bounded in time. /readyz answers 503 naming the parts
 * that failed, with fixed phrases only: errors can carry connection strings or browser endpoints with tokens,
 * so they go to the log, never into the public answer.
 */
export type ReadinessPart = 'database' | 'queue' | 'browser';

export interface ReadinessCheck {
  part: ReadinessPart;
  run(): Promise<void>;
  /** The phrase shown when `run` rejects with an error not marked safe (default "failed"). */
  failure?: string;
}

export type PartStatus = { status: 'ok'; ms: number } | { status: 'fail'; ms: number; error: string };

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  checks: Partial<Record<ReadinessPart, PartStatus>>;
}

/** An error whose message is safe to show on /readyz. */
export class SafeReadinessError extends Error {}

export const READINESS_TIMEOUT_MS = 5000;

export class Readiness {
  private inFlight: Promise<ReadinessReport> | null = null;

  constructor(
    private readonly checks: ReadinessCheck[],
    private readonly onFailure: (part: ReadinessPart, err: unknown) => void = () => undefined,
    private readonly timeoutMs = READINESS_TIMEOUT_MS,
  ) {}

  get parts(): ReadinessPart[] {
    return this.checks.map((c) => c.part);
  }

  /** Probes arriving while a round runs share it: anyone may call /readyz, and it must not multiply database queries or browser launches. */
  report(): Promise<ReadinessReport> {
    this.inFlight ??= this.round().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async round(): Promise<ReadinessReport> {
    const results = await Promise.all(this.checks.map((c) => this.runOne(c)));
    const checks: ReadinessReport['checks'] = {};
    this.checks.forEach((c, i) => (checks[c.part] = results[i]));
    return { status: results.every((r) => r.status === 'ok') ? 'ok' : 'unavailable', checks };
  }

  private async runOne(check: ReadinessCheck): Promise<PartStatus> {
    const t0 = performance.now();
    const ms = () => Math.round(performance.now() - t0);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SafeReadinessError(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      await Promise.race([check.run(), timedOut]);
      return { status: 'ok', ms: ms() };
    } catch (err) {
      this.onFailure(check.part, err);
      const error = err instanceof SafeReadinessError ? err.message : (check.failure ?? 'failed');
      return { status: 'fail', ms: ms(), error };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The checks of a process: the database and the queue always; the browser where agent runs happen (worker roles). */
export function readinessChecks(deps: {
  store: { ping(): Promise<void> };
  queue: { health(): Promise<void> };
  /** Only in processes that run a worker. */
  browsers?: { check(): Promise<void> };
  /** Errors of the queue that are safe to show (e.g. "stopped"). */
  isSafeQueueError?: (err: unknown) => boolean;
}): ReadinessCheck[] {
  const { store, queue, browsers, isSafeQueueError } = deps;
  return [
    { part: 'database', run: () => store.ping(), failure: 'the database did not answer' },
    {
      part: 'queue',
      run: () =>
        queue.health().catch((err: unknown) => {
          throw isSafeQueueError?.(err) ? new SafeReadinessError((err as Error).message) : err;
        }),
      failure: 'the queue is not reachable',
    },
    ...(browsers
      ? [{ part: 'browser' as const, run: () => browsers.check(), failure: 'the browser could not be started or reached' }]
      : []),
  ];
}
