import type { AgentRequestRecord } from '../../store';
import type { ExecutionMethod, TraceStep } from './context';
import type { RunStage } from './stages';

/**
 * What the worker reports about a run to metrics and traces (server/observability/ implements it). Reports
 * only: nothing here can change a run. Steps arrive as they are stored in the trace, secrets already masked.
 */
export interface RunTelemetry {
  /** A strategy starts; call the returned function with how it ended. */
  strategy(method: ExecutionMethod): (outcome: 'completed' | 'failed' | 'not_applicable' | 'error') => void;
  step(step: TraceStep): void;
  /**
   * The run is over. `written`: the final status was stored (counted in metrics); `released` (shutdown) and
   * `lease_lost` runs end without one, another worker runs them again.
   */
  end(outcome: RunEnd): void;
}

export interface RunEnd {
  ending: 'written' | 'released' | 'lease_lost' | 'not_written';
  status: AgentRequestRecord['status'];
  method: ExecutionMethod | null;
  errorCode?: string;
  durationMs: number;
  /** Milliseconds per stage of the run (run-stages.ts). */
  stages?: Partial<Record<RunStage, number>>;
}

export interface WorkerTelemetry {
  startRun(record: AgentRequestRecord): RunTelemetry;
}

const NOTHING: RunTelemetry = { strategy: () => () => undefined, step: () => undefined, end: () => undefined };
export const NO_TELEMETRY: WorkerTelemetry = { startRun: () => NOTHING };
