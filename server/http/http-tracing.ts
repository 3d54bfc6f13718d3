import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { Request, RequestHandler } from 'express';

import { routeLabel } from './route-label';

/** Not traced: probes and scrapes every few seconds would bury the requests worth looking at. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * A SERVER span per request, active while it is handled (so an agent request's publish span is its child). Named
 * and labelled by route pattern, never by URL: paths and query strings carry link tokens, ids and filters.
 * Every request starts a new trace: a public API does not let its callers choose trace ids or sampling through a
 * `traceparent` header.
 */
export function httpTracing(tracer: Tracer, isSandboxSite: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    if (UNTRACED.has(req.path)) return next();
    const span = tracer.startSpan(
      `${req.method}`,
      { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method } },
      ROOT_CONTEXT,
    );
    const ctx = trace.setSpan(ROOT_CONTEXT, span);
    // Body-parser and socket callbacks run in the context of the emitter, not of this middleware: bind them.
    context.bind(ctx, req);
    context.bind(ctx, res);
    const end = () => {
      const route = routeLabel(req, isSandboxSite);
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({
        [ATTR_HTTP_ROUTE]: route,
        [ATTR_HTTP_RESPONSE_STATUS_CODE]: res.statusCode,
        'agentlink.request_id': String(res.getHeader('x-request-id') ?? ''),
      });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', () => {
      if (!res.writableFinished) {
        span.setAttribute('agentlink.aborted', true);
        end();
      }
    });
    context.with(ctx, next);
  };
}
