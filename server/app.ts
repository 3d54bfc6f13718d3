import { createExpressEndpoints } from '@ts-rest/express';
import express, { type Express, type Request } from 'express';
import type { Logger } from 'pino';
import type { JsonObject } from 'swagger-ui-express';

import { contract } from '../contract';
import { buildOpenApiDocument } from '../openapi/document';
import { QueueUnavailable } from './agent/queue/queue';
import { connectWidget } from './connect/widget.routes';
import { dashboardRouter } from './dashboard/dashboard.routes';
import { apiDocs } from './http/api-docs';
import { clientAuth } from './http/auth';
import { finalErrorHandler, notFoundHandler, validationErrorHandler } from './http/error-handler';
import { httpMetrics } from './http/http-metrics';
import { httpTracing } from './http/http-tracing';
import { idempotency } from './http/idempotency';
import { jsonBody } from './http/json-body';
import { opsRoutes } from './http/ops.routes';
import { rateLimit } from './http/rate-limit';
import { requestId } from './http/request-id';
import { requestLog } from './http/request-log';
import { signatureDirectoryRoutes } from './http/signature-directory.routes';
import { mcpRouter } from './mcp/mcp.routes';
import { Readiness, readinessChecks } from './observability/readiness';
import { apiRouter } from './routes/api.routes';
import { sandboxSitesMiddleware } from './sandbox/sites';
import type { Services } from './services';

export interface AppOptions {
  /** This process also runs an agent worker: /readyz then checks the browser too. */
  worker?: boolean;
}

/** /healthz, /readyz and /metrics of this process. */
function ops(services: Services, logger: Logger, opts: AppOptions) {
  const log = logger.child({ component: 'readiness' });
  const readiness = new Readiness(
    readinessChecks({
      store: services.store,
      queue: services.queue,
      ...(opts.worker ? { browsers: services.browsers } : {}),
      isSafeQueueError: (err) => err instanceof QueueUnavailable,
    }),
    (part, err) => log.warn({ err, part }, 'readiness check failed'),
  );
  return opsRoutes({ readiness, metrics: services.metrics, metricsToken: services.config.metricsToken });
}

/**
 * The base of every process's app: request id → metrics → traces → request log → the simulated provider sites,
 * which answer on their own host names before anything else. Every process serves them (they live in the shared
 * database), so a worker in a container of its own still reaches the sandbox sites at http://<slug>.<suffix>:PORT/.
 */
function baseApp(services: Services, logger: Logger): Express {
  const sandboxHosts = new Set(services.sites.map((s) => `${s.slug}.${services.config.sandboxHostSuffix}`));
  const isSandboxSite = (req: Request) => sandboxHosts.has((req.headers.host ?? '').toLowerCase().replace(/:\d+$/, ''));
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', services.config.trustProxy);
  app.set('etag', false);
  app.use(requestId);
  app.use(httpMetrics(services.metrics, isSandboxSite));
  if (services.tracing.enabled) app.use(httpTracing(services.tracing.tracer, isSandboxSite));
  app.use(requestLog(logger));
  app.use(
    sandboxSitesMiddleware(services.sites, {
      store: services.store,
      clock: services.clock,
      sessions: services.siteSessions,
      tenantTokens: services.tenantTokens,
      hostSuffix: services.config.sandboxHostSuffix,
    }),
  );
  return app;
}

/**
 * Builds the Express app without listening (main listens; tests drive it with supertest).
 * Order: request id → metrics → traces → request log → sandbox sites (by host) → ops endpoints → JSON body → contract routes
 * (auth from route metadata, rate limit per organization + environment, Idempotency-Key on POST, then zod
 * validation) → docs → widget, dashboard → 404 → error envelope.
 */
export function createApp(services: Services, logger: Logger, opts: AppOptions = {}): Express {
  const app = baseApp(services, logger);
  app.use(ops(services, logger, opts));
  app.use(signatureDirectoryRoutes({ keys: services.signingKeys, publicUrl: services.config.publicUrl }));
  // People who open the service's address land in the dashboard (the API lives under /api, described at /docs).
  app.get('/', (_req, res) => res.redirect(302, '/dashboard'));

  // Generated at its first request, then kept: generating takes most of a second (zod to JSON Schema for every
  // route), which every start of a process and every test app paid whether or not anyone read the document.
  let openapi: JsonObject | undefined;
  const document = () => (openapi ??= buildOpenApiDocument({ serverUrl: services.config.publicUrl }) as JsonObject);
  app.get('/openapi.json', (_req, res) => {
    res.json(document());
  });
  app.use('/docs', apiDocs(document));

  app.use('/api', ...jsonBody(services.config.bodyLimitBytes));
  createExpressEndpoints(contract, apiRouter(services), app, {
    globalMiddleware: [clientAuth(services.organizations), rateLimit(services.rateLimits), idempotency(services.idempotency)],
    responseValidation: true,
    requestValidationErrorHandler: validationErrorHandler,
    logInitialization: false,
  });

  // The same operations as MCP tools, for AI agents (Streamable HTTP; server/mcp/).
  app.use('/mcp', mcpRouter(services));
  app.use('/link', connectWidget(services));
  app.use('/dashboard', dashboardRouter(services));

  app.use(notFoundHandler);
  app.use(finalErrorHandler(logger));
  return app;
}

/** A worker process's HTTP surface: /healthz, /readyz (with the browser), /metrics, and the sandbox sites (see baseApp). */
export function createWorkerOpsApp(services: Services, logger: Logger): Express {
  const app = baseApp(services, logger);
  app.use(ops(services, logger, { worker: true }));
  // The widget's calls for a run paused in this worker are relayed here by the API processes (its browser is here).
  app.use('/link', connectWidget(services));
  app.use(notFoundHandler);
  app.use(finalErrorHandler(logger));
  return app;
}
