import { generateOpenApi } from '@ts-rest/open-api';

import { contract, type RouteMetadata } from '../contract';
import { CONNECTION_CHECK_OUTCOME_DESCRIPTIONS, CONNECTION_STATUS_MODEL } from '../contract/connection-health';
import { AGENT_RUN_ERRORS, ERROR_CATALOGUE } from '../contract/error-codes';
import { type ApiErrorCode, WIDGET_ONLY_ERROR_CODES } from '../contract/route-errors';
import { ErrorResponses } from './error-responses';
import { upgradeDocumentSchemas } from './openapi-31';
import { headerComponents, responseHeaders } from './response-headers';
import { addWebhookEventSchemas, webhookOperations } from './webhooks';

/**
 * The committed openapi.json names the server relatively ("/": wherever the document is served from, since every
 * installation is self-hosted); the running server substitutes its public URL.
 */
export const DEFAULT_SERVER_URL = '/';

const errorTable = [
  '| code | HTTP | type | meaning |',
  '|---|---|---|---|',
  ...Object.entries(ERROR_CATALOGUE).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.type} | ${e.description} |`),
].join('\n');

const runErrorTable = [
  '| error.code | meaning |',
  '|---|---|',
  ...Object.entries(AGENT_RUN_ERRORS).map(([code, description]) => `| \`${code}\` | ${description} |`),
].join('\n');

const checkOutcomeTable = [
  '| outcome | meaning |',
  '|---|---|',
  ...Object.entries(CONNECTION_CHECK_OUTCOME_DESCRIPTIONS).map(([outcome, meaning]) => `| \`${outcome}\` | ${meaning} |`),
].join('\n');

const description = `
AgentLink links an end user's account at a provider to your organization (link token → connect widget →
public token → access token) and runs browser agent actions on that account.

**Authentication.** Every \`/api\` call sends your Client ID in \`x-client-id\` and a Client Secret in
\`x-client-secret\`. Each organization has two secrets; the one you send decides the environment
(\`sandbox\` or \`production\`) of everything the call creates or reads. Tokens of one environment or
organization are never accepted by another.

**Errors.** Every error is \`{ "error": { "type", "code", "message", "requestId", "details"? } }\` and every
response carries \`x-request-id\`. Bodies are JSON, at most 256 KiB. Each operation lists the codes it can answer
with, per status.

**Rate limits.** Each organization has a token bucket per environment (by default a burst of 200, refilled at
100 per second). Responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; over the
limit the answer is 429 \`RATE_LIMITED\` with \`Retry-After\` in seconds.

**Idempotency.** Every POST accepts an \`Idempotency-Key\` header; see the parameter of each POST operation.

**Webhooks.** Registered endpoints receive the events described under \`webhooks\`, signed twice: as the Standard
Webhooks specification says (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`) and with \`AgentLink-Signature\`.

${errorTable}

Connect widget codes (\`${WIDGET_ONLY_ERROR_CODES.join('`, `')}\`) are answered by the widget's own routes and reach
your app through the React SDK's \`onExit\`, never through \`/api\`.

**Connections.** A connection is \`ACTIVE\`, \`LOGIN_REQUIRED\` (its provider session ended and could not be renewed
silently: send the user through update mode, a link token with \`connectionId\`) or \`REVOKED\` (final). Between runs
a scheduler checks each \`ACTIVE\` connection's session (every 4 hours by default, jittered; see
\`PATCH /api/connections/settings\`), read-only and with the cheapest proof first, renews it by a silent re-login when
credentials are stored, and records \`lastCheck\` on the connection. The transitions and the webhook event each fires:

${CONNECTION_STATUS_MODEL}

Outcomes of a check (\`lastCheck.outcome\`):

${checkOutcomeTable}

**Agent runs.** An accepted request is queued and run by a worker: \`PENDING\` → \`RUNNING\` → \`COMPLETED\`,
or \`FAILED\` / \`TIMED_OUT\` / \`CANCELED\` with \`error.code\` in the stored record:

${runErrorTable}
`.trim();

/** One tag per contract group (ts-rest tags each operation with its group), and one for the webhook deliveries. */
const TAGS: Record<keyof typeof contract | 'webhookEvents', string> = {
  providers: 'The catalogue of providers your environment can connect to.',
  link: 'Link tokens: the start of the connect flow (useAgentLink opens the widget with one).',
  redirectUris: 'Where hosted links may send the browser when the connect flow ends (completionRedirectUri).',
  connections:
    "End users' linked accounts: the public token exchange, reading, listing, checking and revoking connections, and the " +
    'health-check schedule of their sessions.',
  agentRequests: 'Agent actions run on a connected account, and their results.',
  sandbox: 'Shortcuts for testing with sandbox credentials.',
  webhooks: 'Webhook endpoints, their signing secrets and delivery logs.',
  webhookEvents: 'The deliveries AgentLink POSTs to your webhook endpoints.',
};

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description:
    'Makes a retry safe: for 24 hours the same key with the same request answers the first response again (Idempotent-Replayed: true); ' +
    'with another request it is 409 IDEMPOTENCY_KEY_REUSED. 1-255 printable ASCII characters, scoped to your organization and environment.',
  schema: { type: 'string' as const, minLength: 1, maxLength: 255 },
};

const API_ERROR_CODES = (Object.keys(ERROR_CATALOGUE) as ApiErrorCode[]).filter(
  (c) => !(WIDGET_ONLY_ERROR_CODES as readonly string[]).includes(c),
);

type Operation = {
  parameters?: unknown[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, { headers?: unknown } & Record<string, unknown>>;
  description?: string;
};

/**
 * The document, generated once per server URL in a process and kept as text: each caller gets its own copy to change.
 * Generating takes hundreds of milliseconds (zod's isOptional/isNullable parse for every schema of every route).
 */
const generated = new Map<string, string>();
export function buildOpenApiDocument(opts: { serverUrl?: string } = {}): Record<string, unknown> {
  const serverUrl = opts.serverUrl ?? DEFAULT_SERVER_URL;
  let text = generated.get(serverUrl);
  if (text === undefined) {
    text = JSON.stringify(generateOpenApiDocument(serverUrl));
    // Bounded: a process serves one public URL; tests use a handful.
    if (generated.size >= 16) generated.clear();
    generated.set(serverUrl, text);
  }
  return JSON.parse(text) as Record<string, unknown>;
}

function generateOpenApiDocument(serverUrl: string) {
  const errors = new ErrorResponses();
  const doc = generateOpenApi(
    contract,
    {
      info: {
        title: 'AgentLink API',
        version: '0.1.0',
        description,
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'AgentLink' },
      },
      servers: [{ url: serverUrl, description: 'This AgentLink installation.' }],
      tags: Object.entries(TAGS).map(([name, tagDescription]) => ({ name, description: tagDescription })),
      components: {
        securitySchemes: {
          clientId: { type: 'apiKey', in: 'header', name: 'x-client-id', description: 'Your Client ID.' },
          clientSecret: { type: 'apiKey', in: 'header', name: 'x-client-secret', description: 'The sandbox or production Client Secret.' },
          clientBasic: {
            type: 'http',
            scheme: 'basic',
            description:
              'The same credentials in one step: your Client ID as the username and the Client Secret as the password ' +
              '(`curl -u "$CLIENT_ID:$CLIENT_SECRET"`). When x-client-id or x-client-secret is sent, the headers alone count.',
          },
        },
      },
    },
    {
      setOperationId: true,
      operationMapper: (operation, appRoute) => {
        const op = operation as unknown as Operation;
        const meta = appRoute.metadata as RouteMetadata | undefined;
        const authenticated = meta?.auth === 'client';
        const idempotent = authenticated && appRoute.method === 'POST';
        const success = Object.fromEntries(
          Object.entries(op.responses)
            .filter(([status]) => Number(status) < 300)
            .map(([status, response]) => [
              status,
              {
                ...response,
                description: response.description === status ? 'OK' : response.description,
                headers: responseHeaders(Number(status), { authenticated, idempotent }),
              },
            ]),
        );
        return {
          ...operation,
          ...(op.requestBody ? { requestBody: { ...op.requestBody, required: true } } : {}),
          ...(authenticated ? { security: [{ clientId: [], clientSecret: [] }, { clientBasic: [] }] } : {}),
          // Idempotency-Key is read by middleware (server/http/idempotency.ts), not declared in the contract, so the typed client stays as it is.
          ...(idempotent ? { parameters: [...(op.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER] } : {}),
          responses: { ...success, ...errors.forRoute(appRoute, { authenticated, idempotent }) },
        } as typeof operation;
      },
    },
  ) as unknown as {
    openapi: string;
    components: {
      schemas: Record<string, unknown>;
      headers?: Record<string, unknown>;
      examples?: Record<string, unknown>;
      responses?: Record<string, unknown>;
    };
    paths: Record<string, Record<string, unknown>>;
    webhooks?: Record<string, unknown>;
  };

  const schemas = doc.components.schemas;
  const error = schemas.Error as { properties: { error: { properties: { code: Record<string, unknown> } } } };
  error.properties.error.properties.code = { ...error.properties.error.properties.code, enum: API_ERROR_CODES };
  addWebhookEventSchemas(schemas);
  upgradeDocumentSchemas(doc);
  doc.components.headers = headerComponents();
  doc.components.responses = errors.components;
  doc.components.examples = errors.examples();
  // Spread first: `openapi` keeps its place at the top of the document.
  const upgraded = { ...doc, openapi: '3.1.0', webhooks: webhookOperations('webhookEvents') };
  return upgraded;
}
