import { type Context, context, ROOT_CONTEXT, type Span, trace } from '@opentelemetry/api';

/**
 * W3C Trace Context's `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header), the form in which a
 * span's context crosses the queue on the agent request row. Only @opentelemetry/api: with tracing off there is
 * no span, and these answer null / the root context.
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function traceParentOf(span: Span | undefined): string | null {
  const sc = span?.spanContext();
  if (!sc || !trace.isSpanContextValid(sc)) return null;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The traceparent of the span active here (e.g. the API request being handled), or null. */
export function activeTraceParent(): string | null {
  return traceParentOf(trace.getSpan(context.active()));
}

/** A context whose parent is the remote span a traceparent names; the root context when there is none or it is malformed. */
export function contextOfTraceParent(traceParent: string | null | undefined): Context {
  const m = traceParent ? TRACEPARENT.exec(traceParent) : null;
  if (!m) return ROOT_CONTEXT;
  const spanContext = { traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16), isRemote: true };
  return trace.isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}
