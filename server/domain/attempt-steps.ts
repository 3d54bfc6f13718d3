import type { AgentAttempt, AgentRequestRecord, AgentTraceStep } from '../store';

const GAVE_BACK: Record<NonNullable<AgentAttempt['ended']>, string> = {
  released: 'the worker gave the request back before anything was changed (browser unreachable or shutting down); it ran again',
  retried: 'the browser went away before anything was changed; the request ran again',
};
const LOST = 'the worker stopped renewing its lease (it died or hung); the request ran again';

/**
 * The trace's first steps: one per attempt, naming the worker that ran it (its lease owner id, as in its logs), so an
 * operator sees from the API which process ran a request and why it ran more than once.
 */
export function attemptSteps(r: AgentRequestRecord): AgentTraceStep[] {
  const log = r.attemptLog ?? [];
  return log.map((a, i) => {
    const last = i === log.length - 1;
    const step: AgentTraceStep = {
      tool: 'attempt',
      target: `attempt ${a.attempt} on worker ${a.worker}`,
      url: r.startingUrl,
      durationMs: 0,
      outcome: 'ok',
    };
    if (a.ended) return { ...step, outcome: 'error', error: GAVE_BACK[a.ended] };
    if (!last) return { ...step, outcome: 'error', error: LOST };
    if (r.error?.code === 'WORKER_LOST' || r.error?.code === 'USER_ACTION_LOST')
      return { ...step, outcome: 'error', error: r.error.message };
    return step;
  });
}
