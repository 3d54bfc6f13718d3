import type { Logger } from 'pino';

import type { AgentAttempt, AgentRequestRecord } from '../../store';
import type { Clock } from '../ports';
import { RunAborted } from '../run/errors';
import type { RunStages } from '../run/stages';
import type { AgentRequestLedger } from './deps';

/**
 * Keeps a running request's lease: every `everyMs` one statement renews it and reads a cancel asked through any
 * process; a lost lease or a cancel aborts the run. A renewal still out when the next is due is not doubled. Each
 * renewal's time is added to the run's `heartbeat` stage (what the lease costs a run on this database). Returns the stop.
 */
export function keepLease(opts: {
  repo: Pick<AgentRequestLedger, 'heartbeat'>;
  requestId: string;
  owner: string;
  clock: Clock;
  leaseSeconds: number;
  everyMs: number;
  controller: AbortController;
  stages: RunStages;
  log: Logger;
  /** A decision on the run's open ask stored by another process, read with the lease. */
  onUserDecision?: (decision: string) => void;
}): () => void {
  const { repo, requestId, owner, clock, controller, stages, log } = opts;
  let beating = false;
  const timer = setInterval(() => {
    if (beating || controller.signal.aborted) return;
    beating = true;
    const t0 = performance.now();
    void (async () => {
      const leaseUntil = new Date(clock.now().getTime() + opts.leaseSeconds * 1000);
      // One statement: the lease, a cancel asked through any process, and a decision stored by another.
      const beat = await repo.heartbeat(requestId, owner, leaseUntil);
      if (!beat) controller.abort(new RunAborted('LEASE_LOST'));
      else if (beat.cancelRequested) controller.abort(new RunAborted('CANCELED'));
      else if (beat.userDecision) opts.onUserDecision?.(beat.userDecision);
    })()
      .catch((err) => log.warn({ err }, 'lease renewal failed'))
      .finally(() => {
        stages.add('heartbeat', performance.now() - t0);
        stages.heartbeats += 1;
        beating = false;
      });
  }, opts.everyMs);
  return () => clearInterval(timer);
}

/**
 * Notes how this attempt of a request ended in its attempt log (the claim noted its start; a caller that claimed by
 * itself gets its entry here), while the worker holds the lease.
 */
export function attemptEnder(
  repo: Pick<AgentRequestLedger, 'noteAttempts'>,
  record: Pick<AgentRequestRecord, 'id' | 'attempts' | 'attemptLog' | 'startedAt'>,
  owner: string,
  clock: Clock,
): (ended: NonNullable<AgentAttempt['ended']>) => Promise<boolean> {
  return (ended) => {
    const noted = record.attemptLog ?? [];
    const mine: AgentAttempt = noted.find((a) => a.attempt === record.attempts) ?? {
      attempt: record.attempts,
      worker: owner,
      startedAt: (record.startedAt ?? clock.now()).toISOString(),
    };
    return repo.noteAttempts(record.id, owner, [...noted.filter((a) => a.attempt !== record.attempts), { ...mine, ended }]);
  };
}
