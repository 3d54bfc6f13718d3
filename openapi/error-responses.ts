import { ERROR_CATALOGUE } from '../contract/error-codes';
import { type ApiErrorCode, routeErrorCodesByStatus, type RouteErrorFacts } from '../contract/route-errors';
import { responseHeaders } from './response-headers';

/** What each status means in this API, as the response description. */
const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is not valid (INVALID_REQUEST).',
  401: 'The client credentials are missing or wrong (AUTHENTICATION_ERROR).',
  404: 'No such object for these credentials (NOT_FOUND).',
  409: 'The request conflicts with the state of the object (CONFLICT).',
  413: 'The body is over the size limit.',
  415: 'The body is not application/json in UTF-8.',
  429: 'Too many requests; wait Retry-After seconds (RATE_LIMITED).',
  500: 'A bug on our side (API_ERROR); quote the requestId.',
  502: 'An upstream failed (API_ERROR); try again.',
};

/** A realistic answer for every code of the API, shown as the examples of the responses that can carry it. */
const EXAMPLES: Record<ApiErrorCode, { message: string; details?: unknown }> = {
  INVALID_FIELD: {
    message: 'clientUserId: String must contain at least 1 character(s)',
    details: [{ path: 'clientUserId', message: 'String must contain at least 1 character(s)' }],
  },
  MALFORMED_JSON: { message: 'The body is not valid JSON.' },
  FORBIDDEN_PROPERTY_NAME: { message: 'Property names __proto__ and constructor.prototype are not allowed.' },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Send the body as JSON with Content-Type: application/json.' },
  PAYLOAD_TOO_LARGE: { message: 'The body is larger than the limit (see the API description).' },
  ROUTE_NOT_FOUND: { message: 'No route GET /api/nope. See /docs for the API.' },
  MISSING_CLIENT_CREDENTIALS: {
    message:
      'Send your Client ID in x-client-id and your Client Secret in x-client-secret (or both as HTTP Basic: the ID as username, the secret as password).',
  },
  INVALID_CLIENT_CREDENTIALS: { message: 'The client id and secret do not match an organization.' },
  ORGANIZATION_DISABLED: {
    message: 'This organization is disabled: its credentials are refused until an operator enables it again (agentlink org enable).',
  },
  AUTHENTICATION_THROTTLED: { message: 'Too many failed authentications; retry after 30 second(s).', details: { retryAfterSeconds: 30 } },
  UNKNOWN_PROVIDER: { message: 'providerId 5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11 is not a sandbox provider; see GET /api/providers.' },
  SANDBOX_ONLY: { message: 'This endpoint exists only in the sandbox environment; use sandbox credentials.' },
  UNKNOWN_TEST_USER: { message: 'user_nobody is not a sandbox test user (try user_good).' },
  SANDBOX_LOGIN_FAILED: { message: 'user_locked cannot log in: the account is locked.' },
  PUBLIC_TOKEN_MALFORMED: { message: 'publicToken is not a public token (expected public-<environment>-…).' },
  PUBLIC_TOKEN_ENVIRONMENT_MISMATCH: {
    message: 'publicToken belongs to the production environment, but the credentials are sandbox credentials.',
  },
  INVALID_PUBLIC_TOKEN: { message: 'publicToken is not known.' },
  PROVIDER_NOT_FOUND: { message: 'No provider 00000000-0000-4000-8000-000000000000 in the sandbox catalogue; see GET /api/providers.' },
  PROVIDER_DECLARATION_INVALID: {
    message: 'allowedOrigins[1]: 10.0.0.5 is not a public address (refused in production)',
    details: [{ path: 'allowedOrigins[1]', message: '10.0.0.5 is not a public address (refused in production)' }],
  },
  PROVIDER_SLUG_TAKEN: { message: 'slug: acme-crm is already taken (by a built-in or operator provider, or one of yours in production).' },
  PROVIDER_NOT_EDITABLE: { message: 'Orbit (sandbox social network) is built in: only your organization’s own providers can be changed.' },
  PROVIDER_IN_USE: {
    message: 'Acme CRM still has 2 connections that are not revoked; revoke them first (DELETE /api/connections/{connectionId}).',
    details: { connections: 2 },
  },
  PROVIDER_LIMIT: { message: 'At most 50 private providers per organization and environment; delete one first.' },
  UNKNOWN_PLAYBOOK: {
    message: 'playbook: Orbit has no action orbit.fly (it has orbit.create-post, orbit.read-my-profile, …).',
    details: [
      { path: 'playbook', message: 'is not an action of this provider', available: ['orbit.create-post', 'orbit.read-my-profile'] },
    ],
  },
  PLAYBOOK_PARAMETERS_MISSING: {
    message: 'orbit.create-post needs parameters.text: write it in quotes in the action or pass it in parameters.',
    details: [{ path: 'parameters.text', message: 'Required' }],
  },
  PLAYBOOK_PARAMETERS_INVALID: {
    message: 'parameters.text: Orbit posts hold at most 3000 characters',
    details: [{ path: 'parameters.text', message: 'Orbit posts hold at most 3000 characters' }],
  },
  PLAYBOOK_WRITES_IN_READ_MODE: {
    message: 'orbit.create-post changes things, and the request has mode read.',
    details: [{ path: 'playbook', message: 'changes things; the request has mode read' }],
  },
  METRICS_UNAUTHORIZED: { message: 'Send the metrics token as Authorization: Bearer <AGENTLINK_METRICS_TOKEN>.' },
  PUBLIC_TOKEN_ORGANIZATION_MISMATCH: { message: 'publicToken was issued to another organization.' },
  PUBLIC_TOKEN_EXPIRED: { message: 'publicToken expired; run the connect flow again for a new one.' },
  PUBLIC_TOKEN_ALREADY_USED: { message: 'publicToken was already exchanged; each public token is exchangeable once.' },
  INVALID_ACCESS_TOKEN: { message: 'accessToken is not valid (unknown, revoked, or not issued to these credentials).' },
  ACCESS_TOKEN_ENVIRONMENT_MISMATCH: {
    message: 'accessToken belongs to the production environment, but the credentials are sandbox credentials.',
  },
  CONNECTION_NOT_FOUND: { message: 'No connection conn_5f2c0f3a9d0e4b7c1a2b3c4d.' },
  CONNECTION_REVOKED: { message: 'The connection was revoked; create a new one instead (omit connectionId).' },
  CONNECTION_LOGIN_REQUIRED: {
    message: 'The provider session of this connection ended; send the user through the connect flow again (update mode).',
  },
  CONNECTION_CHECK_IN_PROGRESS: {
    message: 'A health check of this connection is running; read the connection when it ends.',
    details: { retryAfterSeconds: 30 },
  },
  CONNECTION_CHECK_RATE_LIMITED: {
    message: 'The connection was checked less than 10 seconds ago; try again in 7 s.',
    details: { retryAfterSeconds: 7 },
  },
  UPSTREAM_PROXY_NOT_ALLOWED: {
    message: 'upstreamProxy.url names 10.0.0.8, a local or private host.',
  },
  STARTING_URL_NOT_ALLOWED: {
    message: "startingUrl host evil.example is not one of Orbit's domains (orbit.sandbox.localhost)",
    details: { field: 'startingUrl' },
  },
  AGENT_REQUEST_NOT_FOUND: { message: 'No agent request areq_5f2c0f3a9d0e4b7c1a2b3c4d.' },
  USER_ACTION_OVER: {
    message: 'Agent request areq_5f2c0f3a9d0e4b7c1a2b3c4d holds no write for a decision now (status RUNNING).',
  },
  AGENT_REQUEST_ALREADY_FINISHED: {
    message: 'Agent request areq_5f2c0f3a9d0e4b7c1a2b3c4d already ended with status COMPLETED.',
    details: { status: 'COMPLETED' },
  },
  INVALID_CURSOR: { message: 'cursor is not a cursor this API returned; pass nextCursor of the previous page.' },
  REDIRECT_URI_INVALID: {
    message: 'uri must use https (production redirect URIs never use plain http).',
    details: { field: 'uri', rule: 'HTTPS_REQUIRED' },
  },
  REDIRECT_URI_ALREADY_REGISTERED: {
    message: 'https://app.example.com/agentlink/done is already registered (ruri_5f2c0f3a9d0e4b7c1a2b3c4d).',
    details: { field: 'uri', redirectUriId: 'ruri_5f2c0f3a9d0e4b7c1a2b3c4d' },
  },
  REDIRECT_URI_LIMIT: { message: 'At most 20 redirect URIs per organization and environment; delete one first.' },
  REDIRECT_URI_NOT_FOUND: { message: 'No redirect URI ruri_5f2c0f3a9d0e4b7c1a2b3c4d.' },
  REDIRECT_URI_NOT_ALLOWED: {
    message: 'completionRedirectUri is not one of your sandbox redirect URIs (matched exactly); register it with POST /api/redirect-uris.',
    details: { field: 'completionRedirectUri' },
  },
  WEBHOOK_ENDPOINT_NOT_FOUND: { message: 'No webhook endpoint whk_5f2c0f3a9d0e4b7c1a2b3c4d.' },
  WEBHOOK_URL_NOT_ALLOWED: { message: 'url must use https' },
  WEBHOOK_ENDPOINT_LIMIT: { message: 'At most 20 webhook endpoints per organization and environment; delete one first.' },
  WEBHOOK_DELIVERY_NOT_FOUND: { message: 'No webhook delivery whdl_5f2c0f3a9d0e4b7c1a2b3c4d.' },
  RATE_LIMITED: { message: 'Too many requests for this organization and environment (burst 200); retry after 1 second(s).' },
  IDEMPOTENCY_KEY_REUSED: { message: 'This Idempotency-Key was already used for a request with another method, path or body.' },
  IDEMPOTENCY_REQUEST_IN_PROGRESS: { message: 'A request with this Idempotency-Key is still running; retry later to get its response.' },
  INTERNAL_ERROR: { message: 'Something went wrong on our side; quote the requestId if you contact support.' },
};

const EXAMPLE_REQUEST_ID = 'req_5f2c0f3a9d0e4b7c1a2b3c4d';

export function errorExample(code: ApiErrorCode) {
  const { type } = ERROR_CATALOGUE[code];
  const { message, details } = EXAMPLES[code];
  return { error: { type, code, message, requestId: EXAMPLE_REQUEST_ID, ...(details === undefined ? {} : { details }) } };
}

/**
 * Statuses whose codes come only from the layers every request crosses (credentials, body reader, rate limit, last
 * error handler): their responses are the same for every operation, so they are declared once in components.responses.
 */
const SHARED_RESPONSES: Record<number, string> = {
  401: 'Unauthorized',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
};

/**
 * Builds the error responses of every operation: one per status its codes are answered with, each narrowing the Error
 * envelope's `code` (and `type`) to the codes of that status, with one named example per code (components.examples).
 */
export class ErrorResponses {
  private readonly shared = new Map<string, string>();
  readonly components: Record<string, unknown> = {};
  readonly usedCodes = new Set<ApiErrorCode>();

  forRoute(route: RouteErrorFacts, opts: { authenticated: boolean; idempotent: boolean }): Record<string, unknown> {
    const responses: Record<string, unknown> = {};
    for (const [status, codes] of routeErrorCodesByStatus(route)) {
      const apiCodes = codes as ApiErrorCode[];
      apiCodes.forEach((c) => this.usedCodes.add(c));
      const response = errorResponse(status, apiCodes, opts);
      const name = SHARED_RESPONSES[status];
      const json = JSON.stringify(response);
      if (name && (!this.shared.has(name) || this.shared.get(name) === json)) {
        this.shared.set(name, json);
        this.components[name] = response;
        responses[String(status)] = { $ref: `#/components/responses/${name}` };
      } else {
        responses[String(status)] = response;
      }
    }
    return responses;
  }

  /** The examples the responses reference. */
  examples(): Record<string, unknown> {
    const codes = (Object.keys(EXAMPLES) as ApiErrorCode[]).filter((c) => this.usedCodes.has(c));
    return Object.fromEntries(codes.map((code) => [code, { summary: ERROR_CATALOGUE[code].description, value: errorExample(code) }]));
  }
}

function errorResponse(status: number, codes: ApiErrorCode[], opts: { authenticated: boolean; idempotent: boolean }) {
  const types = [...new Set(codes.map((c) => ERROR_CATALOGUE[c].type))];
  return {
    description: STATUS_DESCRIPTIONS[status] ?? `HTTP ${status}`,
    headers: responseHeaders(status, opts),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Error' },
            {
              type: 'object',
              properties: {
                error: {
                  type: 'object',
                  // Every property named, not just the narrowed ones: validators that close schemas (Redocly's example check) see the whole envelope.
                  properties: {
                    type: { type: 'string', enum: types },
                    code: { type: 'string', enum: codes },
                    message: { type: 'string' },
                    requestId: { type: 'string' },
                    details: {},
                  },
                },
              },
            },
          ],
        },
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}
