import fs from 'node:fs';
import path from 'node:path';

import { context, trace, type Tracer } from '@opentelemetry/api';
import type * as ContextAsyncHooks from '@opentelemetry/context-async-hooks';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTrace from '@opentelemetry/sdk-trace';
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

/**
 * The SDK and its OTLP exporter, loaded only when tracing is configured: together about 0.3 s of module loading (the
 * exporter pulls in the metrics SDK and the OTLP transformer), which every process without an endpoint paid at start.
 * Synchronous, as startTracing is: the app is built synchronously around its tracer.
 */
function tracingSdk() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    hooks: require('@opentelemetry/context-async-hooks') as typeof ContextAsyncHooks,
    otlp: require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp,
    resources: require('@opentelemetry/resources') as typeof Resources,
    sdk: require('@opentelemetry/sdk-trace') as typeof SdkTrace,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

let contextManagerSet = false;

/** Parent/child links inside the process follow async calls (AsyncLocalStorage); one manager per process. */
function ensureContextManager(hooks: typeof ContextAsyncHooks) {
  if (contextManagerSet) return;
  contextManagerSet = context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
}

const NOOP: Tracing = {
  enabled: false,
  tracer: trace.getTracerProvider().getTracer('agentlink'),
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

export function startTracing(config: AppConfig['tracing']): Tracing {
  if (!config) return NOOP;
  const { hooks, otlp, resources, sdk } = tracingSdk();
  ensureContextManager(hooks);
  const version = packageVersion();
  const provider = new sdk.TracerProvider({
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: version })),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new otlp.OTLPTraceExporter({ url: config.tracesUrl }) })],
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
