import { RUN_STAGES, type RunStage } from '../../server/agent/run/stages';
import type { RunEnd, RunTelemetry, WorkerTelemetry } from '../../server/agent/run/telemetry';

/**
 * bench:agent's per-stage table (issue #38): the worker's stage marks (server/agent/run/stages.ts) of each measured run,
 * collected by wrapping the worker's telemetry, and the floor script's own stages timed the same way, printed as
 * medians side by side.
 */
export class StageCollector implements WorkerTelemetry {
  private readonly byRequest = new Map<string, Partial<Record<RunStage, number>>>();

  constructor(private readonly inner: WorkerTelemetry) {}

  startRun(record: Parameters<WorkerTelemetry['startRun']>[0]): RunTelemetry {
    const run = this.inner.startRun(record);
    return {
      strategy: (method) => run.strategy(method),
      step: (step) => run.step(step),
      end: (outcome: RunEnd) => {
        if (outcome.stages) this.byRequest.set(record.id, outcome.stages);
        run.end(outcome);
      },
    };
  }

  /** The stages of a finished request (taken: each is read once). */
  take(requestId: string): Partial<Record<RunStage, number>> {
    const stages = this.byRequest.get(requestId) ?? {};
    this.byRequest.delete(requestId);
    return stages;
  }
}

/** The floor script's stages, named as the worker's where they do the same work. */
export type FloorStage = 'context' | 'navigation' | 'steps' | 'release';

export type StageSamples = Map<string, number[]>;

export function addSample(into: StageSamples, stages: Partial<Record<string, number>>): void {
  for (const [stage, ms] of Object.entries(stages)) if (ms !== undefined) into.set(stage, [...(into.get(stage) ?? []), ms]);
}

/** The API's part of a whole request, timed by the caller: the accept, and the answer after the outcome is written. */
type ApiStage = 'accept' | 'answer';

const LABELS: Record<RunStage | ApiStage | 'rest' | 'whole', string> = {
  accept: 'API: POST → 202 (validated, stored, queued)',
  wake: 'wake: accepted → claimed (idle worker)',
  claim: 'claim statement',
  device: 'device',
  context: 'context and fence (cookies, localStorage, page)',
  session_restore: 'session restore (sessionStorage)',
  navigation: 'navigation: starting URL',
  steps: "the playbook's / replay's own steps",
  session_seal: 'session capture and seal',
  release: 'release: context kept warm / close started',
  outcome_write: 'outcome write',
  heartbeat: 'heartbeats (beside the run, summed)',
  rest: 'rest of the worker run (not in a stage)',
  answer: 'API: outcome written → answer read (GET waitMs)',
  whole: 'whole request (POST → COMPLETED)',
};

const median = (xs: number[] | undefined) => {
  if (!xs?.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const cell = (v: number) => (Number.isFinite(v) ? `${v.toFixed(v < 10 ? 1 : 0)} ms` : '—').padStart(10);

/** Rows of medians per stage: the floor beside each worker path (e.g. playbook, replay). */
export function stageTable(floor: StageSamples, paths: { label: string; samples: StageSamples }[]): string[] {
  const head = `  ${'stage (median)'.padEnd(50)} ${'floor'.padStart(9)} ${paths.map((p) => p.label.padStart(10)).join(' ')}`;
  const rows = ['accept' as const, ...RUN_STAGES, 'rest' as const, 'answer' as const, 'whole' as const].map(
    (stage) =>
      `  ${LABELS[stage].padEnd(50)} ${cell(median(floor.get(stage)))} ${paths.map((p) => cell(median(p.samples.get(stage)))).join(' ')}`,
  );
  return [head, ...rows];
}
