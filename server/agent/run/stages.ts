/**
 * Where a run's time goes, stage by stage (issue #38): monotonic marks the worker takes around each part of a run, reported
 * with the run's end (run-telemetry.ts) as the `agentlink_agent_run_stage_seconds` histogram and printed per stage by
 * `bench:agent` and `bench:scale`. Reports only: nothing here changes a run. A mark costs one performance.now().
 */
export const RUN_STAGES = [
  /** Accepted → claimed: how long the request waited for this worker to hear of it (idle worker: the wake-up latency). */
  'wake',
  /** The claim statement itself (the row's conditional update). */
  'claim',
  /** The connection's device, drawn or read (asks the browser its version once). */
  'device',
  /** A fenced context opened (or a warm one taken) with the cookies and localStorage loaded, and its page. */
  'context',
  /** sessionStorage written into the run's page. */
  'session_restore',
  /** The starting URL loaded (and a silent re-login, when the session died). */
  'navigation',
  /** The strategies' own steps: routing, the playbook or replay or planner, result validation. */
  'steps',
  /** The session captured from the context and sealed back onto the connection (or marked used when unchanged). */
  'session_seal',
  /** The context kept warm (its pages closed) or its close started. */
  'release',
  /** The final write of the outcome. */
  'outcome_write',
  /** Lease renewals during the run, summed (they run beside the run, on the database's time). */
  'heartbeat',
] as const;

export type RunStage = (typeof RUN_STAGES)[number];

export class RunStages {
  private readonly ms = new Map<RunStage, number>();
  heartbeats = 0;

  /** Adds `ms` to `stage` (a stage met twice, such as navigation after a re-login, sums). */
  add(stage: RunStage, ms: number): void {
    this.ms.set(stage, (this.ms.get(stage) ?? 0) + Math.max(0, ms));
  }

  /** Times `fn` into `stage`, whether it resolves or throws. */
  async time<T>(stage: RunStage, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.add(stage, performance.now() - t0);
    }
  }

  /** Milliseconds per stage met, in the order of RUN_STAGES. */
  durations(): Partial<Record<RunStage, number>> {
    const out: Partial<Record<RunStage, number>> = {};
    for (const stage of RUN_STAGES) {
      const v = this.ms.get(stage);
      if (v !== undefined) out[stage] = v;
    }
    return out;
  }
}
