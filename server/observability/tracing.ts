import fs from 'node:fs';
import path from 'node:path';

import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

import type { AppConfig } from '../config';

/**
 * OpenTelemetry traces of one app instance: a TracerProvider of its own (not registered globally, so several apps
 * in one process each export where their config says) exporting OTLP/HTTP JSON in batches. Spans say what
 * happened (routes, statuses, ids, step tools, durations), never what was sent: no tokens, secrets, parameters,
 * actions, URLs or page content. Without a configured endpoint the tracer is a no-op and costs nothing.
 */
export interface Tracing {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  /** Exports what is buffered (tests; shutdown does it too). */
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** This package's version, from its package.json (two folders up from the sources, three from dist/). */
function packageVersion(): string {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'agentlink') return pkg.version ?? 'unknown';
  }
  return 'unknown';
}

let contextManagerSet = false;

/** Parent/child links inside the process follow async calls (AsyncLocalStorage); one manager per process. */
function ensureContextManager() {
  if (contextManagerSet) return;
  contextManagerSet = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

const NOOP: Tracing = {
  enabled: false,
  tracer: trace.getTracerProvider().getTracer('agentlink'),
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

export function startTracing(config: AppConfig['tracing']): Tracing {
  if (!config) return NOOP;
  ensureContextManager();
  const version = packageVersion();
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: version })),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: config.tracesUrl }) })],
  });
  let stopped = false;
  return {
    enabled: true,
    tracer: provider.getTracer('agentlink', version),
    forceFlush: () => provider.forceFlush(),
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      await provider.shutdown();
    },
  };
}
