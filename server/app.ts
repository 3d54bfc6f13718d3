import { createExpressEndpoints } from '@ts-rest/express';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { JsonObject } from 'swagger-ui-express';

import { contract } from '../contract';
import { buildOpenApiDocument } from '../openapi/document';
import { connectWidget } from './connect/widget.routes';
import { dashboardRouter } from './dashboard/dashboard.routes';
import { apiDocs } from './http/api-docs';
import { clientAuth } from './http/auth';
import { finalErrorHandler, notFoundHandler, validationErrorHandler } from './http/error-handler';
import { idempotency } from './http/idempotency';
import { jsonBody } from './http/json-body';
import { rateLimit } from './http/rate-limit';
import { requestId } from './http/request-id';
import { requestLog } from './http/request-log';
import { apiRouter } from './routes/api.routes';
import { sandboxSitesMiddleware } from './sandbox/sites';
import type { Services } from './services';

/**
 * Builds the Express app without listening (main listens; tests drive it with supertest).
 * Order: request id → request log → sandbox sites (by host) → JSON body → contract routes (auth from route metadata, rate
 * limit per organization + environment, Idempotency-Key on POST, then zod validation) → docs → 404 → error envelope.
 */
export function createApp(services: Services, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', services.config.trustProxy);
  app.set('etag', false);

  app.use(requestId);
  app.use(requestLog(logger));

  // The simulated provider sites answer on their own host names, before anything of the API.
  app.use(
    sandboxSitesMiddleware(services.sites, {
      store: services.store,
      clock: services.clock,
      sessions: services.siteSessions,
      tenantTokens: services.tenantTokens,
      hostSuffix: services.config.sandboxHostSuffix,
    }),
  );

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const openapi = buildOpenApiDocument({ serverUrl: services.config.publicUrl });
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  app.use('/docs', apiDocs(openapi as unknown as JsonObject));

  app.use('/api', ...jsonBody(services.config.bodyLimitBytes));
  createExpressEndpoints(contract, apiRouter(services), app, {
    globalMiddleware: [clientAuth(services.organizations), rateLimit(services.rateLimits), idempotency(services.idempotency)],
    responseValidation: true,
    requestValidationErrorHandler: validationErrorHandler,
    logInitialization: false,
  });

  app.use('/link', connectWidget(services));
  app.use('/dashboard', dashboardRouter(services));

  app.use(notFoundHandler);
  app.use(finalErrorHandler(logger));
  return app;
}
