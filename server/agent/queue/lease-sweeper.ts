import type { Logger } from 'pino';

import type { Store } from '../../store';
import type { Clock, QueueSignals } from '../ports';

/**
 * How often a worker sweeps: a quarter of the lease, at most every 2 s, so a dead worker's request is found within
 * about the lease plus 2 s (issue #26: noticed within ~10 s with the default 10 s lease).
 */
export function sweepEveryMs(leaseMs: number): number {
  return Math.max(250, Math.min(leaseMs / 4, 2000));
}

/**
 * Ends requests whose worker died and that may not run again: after `maxAttempts` claims the request fails
 * with WORKER_LOST; one that was waiting for its user with USER_ACTION_LOST (its page went with the worker: running
 * it again could repeat what was done before the pause); a request whose cancel was asked becomes CANCELED. (Requests with attempts left are
 * claimed again by the engines.) Every worker process runs the sweep; the conditional UPDATE decides.
 */
export async function sweepExpiredLeases(deps: { store: Store; clock: Clock; events: QueueSignals; logger?: Logger }, maxAttempts: number) {
  const now = deps.clock.now();
  const repo = deps.store.repos.agentRequests;
  for (const r of await repo.expiredUnrecoverable(now, maxAttempts)) {
    const canceled = !!r.cancelRequestedAt;
    const ended = await repo.failExpired(r.id, now, {
      status: canceled ? 'CANCELED' : 'FAILED',
      result: null,
      error: canceled
        ? { code: 'CANCELED', message: 'The request was canceled; its worker stopped before it could confirm.' }
        : r.status === 'NEEDS_USER'
          ? {
              code: 'USER_ACTION_LOST',
              message:
                'The request was waiting for its user, and the worker holding its browser stopped; the page it waited on is gone. It was not run again.',
            }
          : {
              code: 'WORKER_LOST',
              message: `The worker running this request stopped responding (${r.attempts} attempt${r.attempts === 1 ? '' : 's'}); it was not run again.`,
            },
      completedAt: now,
      executionTimeMs: r.startedAt ? Math.max(0, now.getTime() - r.startedAt.getTime()) : null,
    });
    if (ended) {
      deps.logger?.warn({ requestId: r.id, attempts: r.attempts, canceled }, 'agent request lost its worker');
      deps.events.finished(r.id, r);
    }
  }
}
