import { type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';

import type { RunEnd, RunTelemetry, WorkerTelemetry } from '../agent/run/telemetry';
import type { AgentRequestRecord, AgentTraceStep } from '../store';
import type { AppMetrics } from './metrics';
import { contextOfTraceParent } from './trace-context';

/** Tool names come from code or from a model's tool call: anything unexpected is reported as `other`. */
const TOOL_NAME = /^[a-z][a-z0-9_.-]{0,39}$/i;

/**
 * The worker's runs as metrics (one observation per run whose final status was stored) and as spans: a run is the
 * consumer span `agent_request process`, child of the API's `agent_request publish` span through the traceparent
 * stored on the row; each strategy tried is a child of it, and each step of the trace a child of its strategy.
 * Attributes are ids, names, statuses and counts only: the action, parameters, URLs, step targets, error texts and
 * page content stay out (they can hold what the user typed or saw).
 */
export class AgentRunTelemetry implements WorkerTelemetry {
  constructor(
    private readonly metrics: AppMetrics,
    private readonly tracer: Tracer,
    /** The `provider` label of a run (providerMetricLabel of its catalogue entry); the id when not given. */
    private readonly providerLabel: (record: AgentRequestRecord) => string = (record) => record.providerId,
  ) {}

  startRun(record: AgentRequestRecord): RunTelemetry {
    const { tracer, metrics } = this;
    const provider = this.providerLabel(record);
    const queuedMs = record.startedAt ? Math.max(0, record.startedAt.getTime() - record.createdAt.getTime()) : undefined;
    const run = tracer.startSpan(
      'agent_request process',
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.operation.type': 'process',
          'messaging.destination.name': 'agent-requests',
          'agentlink.agent_request.id': record.id,
          'agentlink.provider.id': record.providerId,
          'agentlink.agent_request.attempt': record.attempts,
          'agentlink.agent_request.mode': record.mode,
          ...(queuedMs === undefined ? {} : { 'agentlink.queue.wait_ms': queuedMs }),
        },
      },
      contextOfTraceParent(record.traceParent),
    );
    const runContext = trace.setSpan(ROOT_CONTEXT, run);
    let current: { span: Span; context: Context } | null = null;

    return {
      strategy(method) {
        const span = tracer.startSpan(
          `strategy ${method.toLowerCase()}`,
          { attributes: { 'agentlink.strategy': method.toLowerCase() } },
          runContext,
        );
        const mine = { span, context: trace.setSpan(ROOT_CONTEXT, span) };
        current = mine;
        return (outcome) => {
          span.setAttribute('agentlink.strategy.outcome', outcome);
          if (outcome === 'failed' || outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          if (current === mine) current = null;
        };
      },
      step(step: AgentTraceStep) {
        const endMs = Date.now();
        const tool = TOOL_NAME.test(step.tool) ? step.tool : 'other';
        const span = tracer.startSpan(
          `step ${tool}`,
          {
            startTime: endMs - Math.max(0, step.durationMs),
            attributes: { 'agentlink.step.tool': tool, 'agentlink.step.outcome': step.outcome },
          },
          current?.context ?? runContext,
        );
        if (step.outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR });
        span.end(endMs);
      },
      end(outcome: RunEnd) {
        // A strategy cut short by a timeout, cancel or shutdown ends with the run.
        if (current) {
          current.span.setAttribute('agentlink.strategy.outcome', 'aborted');
          current.span.setStatus({ code: SpanStatusCode.ERROR });
          current.span.end();
          current = null;
        }
        run.setAttributes({
          'agentlink.agent_request.status': outcome.status,
          'agentlink.agent_request.method': outcome.method?.toLowerCase() ?? 'none',
          'agentlink.agent_request.ending': outcome.ending,
          ...(outcome.errorCode ? { 'agentlink.error.code': outcome.errorCode } : {}),
        });
        if (outcome.status !== 'COMPLETED') run.setStatus({ code: SpanStatusCode.ERROR });
        run.end();
        if (outcome.ending !== 'written') return;
        metrics.observeAgentRequest({ status: outcome.status, method: outcome.method, provider }, outcome.durationMs / 1000);
        if (outcome.stages) metrics.observeRunStages(outcome.stages);
      },
    };
  }
}
