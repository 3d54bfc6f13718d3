import { ErrorEnvelopeSchema } from './common-schemas';
import { c } from './route-kit';
import { agentRequestsRoutes } from './routes/agent-requests';
import { connectionsRoutes } from './routes/connections';
import { linkRoutes } from './routes/link';
import { providersRoutes } from './routes/providers';
import { redirectUrisRoutes } from './routes/redirect-uris';
import { sandboxRoutes } from './routes/sandbox';
import { webhooksRoutes } from './routes/webhooks';

export * from './connection-health';
export * from './error-codes';
export * from './provider-declaration';
export * from './redirect-uri-schemas';
export * from './response-format';
export * from './route-errors';
export type { RouteMetadata } from './route-kit';
export * from './schemas';
export * from './webhook-schemas';

// Every error leaves in the same envelope; listing them once keeps status codes strict everywhere.
const commonResponses = {
  400: ErrorEnvelopeSchema,
  401: ErrorEnvelopeSchema,
  404: ErrorEnvelopeSchema,
  409: ErrorEnvelopeSchema,
  413: ErrorEnvelopeSchema,
  415: ErrorEnvelopeSchema,
  429: ErrorEnvelopeSchema,
  500: ErrorEnvelopeSchema,
  502: ErrorEnvelopeSchema,
};

/**
 * The one contract: server routes, the typed client and the OpenAPI document are built from it. Grouped by resource,
 * one file per group in contract/routes/; each route key is a verb and a noun (the client's method, the operation id).
 */
export const contract = c.router(
  {
    providers: providersRoutes,
    link: linkRoutes,
    redirectUris: redirectUrisRoutes,
    connections: connectionsRoutes,
    agentRequests: agentRequestsRoutes,
    sandbox: sandboxRoutes,
    webhooks: webhooksRoutes,
  },
  { commonResponses, strictStatusCodes: true },
);

export type AgentLinkContract = typeof contract;
