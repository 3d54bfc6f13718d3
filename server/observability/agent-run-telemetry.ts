import type { RunEnd, RunTelemetry, WorkerTelemetry } from '../agent/run-telemetry';
import type { AgentRequestRecord } from '../store';
import type { AppMetrics } from './metrics';

/** The worker's runs as metrics: one observation per run whose final status was stored. */
export class AgentRunTelemetry implements WorkerTelemetry {
  constructor(private readonly metrics: AppMetrics) {}

  startRun(record: AgentRequestRecord): RunTelemetry {
    return {
      strategy: () => () => undefined,
      step: () => undefined,
      end: (outcome: RunEnd) => {
        if (outcome.ending !== 'written') return;
        this.metrics.observeAgentRequest(
          { status: outcome.status, method: outcome.method, provider: record.providerId },
          outcome.durationMs / 1000,
        );
      },
    };
  }
}
