import { ERROR_CATALOGUE, type ErrorCode } from './error-codes';

/**
 * Which error codes an API operation can answer with: the codes its own service returns (declared per route in the
 * contract, `metadata.errors`) plus those of the layers every request crosses. One rule for every route, so the
 * OpenAPI document (a `code` enum per response), the typed client and the tests all read the same list.
 *
 * The layers, in the order server/app.ts runs them:
 * - body reader (server/http/json-body.ts), for methods that carry a body: MALFORMED_JSON, FORBIDDEN_PROPERTY_NAME,
 *   UNSUPPORTED_MEDIA_TYPE, PAYLOAD_TOO_LARGE, and INVALID_FIELD (unstorable characters, nesting);
 * - client credentials (server/http/auth.ts): MISSING_CLIENT_CREDENTIALS, INVALID_CLIENT_CREDENTIALS,
 *   ORGANIZATION_DISABLED, AUTHENTICATION_THROTTLED, and SANDBOX_ONLY on sandbox routes;
 * - rate limit (server/http/rate-limit.ts): RATE_LIMITED;
 * - Idempotency-Key on POST (server/http/idempotency.ts): INVALID_FIELD, IDEMPOTENCY_KEY_REUSED,
 *   IDEMPOTENCY_REQUEST_IN_PROGRESS;
 * - contract validation (zod, server/http/error-handler.ts): INVALID_FIELD for routes with path parameters, a query or a body;
 * - the last error handler: INTERNAL_ERROR.
 */
export interface RouteErrorFacts {
  method: string;
  /** The contract route's own codes (metadata.errors), and whether it needs sandbox credentials. */
  metadata?: unknown;
  pathParams?: unknown;
  query?: unknown;
  body?: unknown;
}

const CREDENTIAL_CODES: ErrorCode[] = [
  'MISSING_CLIENT_CREDENTIALS',
  'INVALID_CLIENT_CREDENTIALS',
  'ORGANIZATION_DISABLED',
  'AUTHENTICATION_THROTTLED',
  'RATE_LIMITED',
];
const BODY_CODES: ErrorCode[] = [
  'MALFORMED_JSON',
  'FORBIDDEN_PROPERTY_NAME',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'INVALID_FIELD',
];
const IDEMPOTENCY_CODES: ErrorCode[] = ['INVALID_FIELD', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_REQUEST_IN_PROGRESS'];

/** Every code the route can answer, in the order of ERROR_CATALOGUE (stable output for the generated document). */
export function routeErrorCodes(route: RouteErrorFacts): ErrorCode[] {
  const meta = (route.metadata ?? {}) as { auth?: string; sandboxOnly?: boolean; errors?: readonly ErrorCode[] };
  const codes = new Set<ErrorCode>(['INTERNAL_ERROR', ...(meta.errors ?? [])]);
  const add = (list: ErrorCode[]) => list.forEach((c) => codes.add(c));
  if (meta.auth === 'client') add(CREDENTIAL_CODES);
  if (meta.sandboxOnly) codes.add('SANDBOX_ONLY');
  if (route.method !== 'GET') add(BODY_CODES);
  if (route.method === 'POST' && meta.auth === 'client') add(IDEMPOTENCY_CODES);
  if (route.pathParams || route.query || (route.body !== undefined && typeof route.body !== 'symbol')) codes.add('INVALID_FIELD');
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((c) => codes.has(c));
}

/** The codes grouped by the HTTP status they are answered with. */
export function routeErrorCodesByStatus(route: RouteErrorFacts): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrorCodes(route)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/**
 * Codes only the hosted connect widget answers (its own routes under /link, not /api): its errors reach the caller
 * through the React SDK's onExit, never through the API client.
 */
export const WIDGET_ONLY_ERROR_CODES = [
  'INVALID_LINK_TOKEN',
  'LINK_TOKEN_ENVIRONMENT_MISMATCH',
  'LINK_TOKEN_EXPIRED',
  'LINK_TOKEN_ALREADY_USED',
  'LINK_SESSION_NOT_FOUND',
  'LINK_STEP_NOT_ALLOWED',
  'INVALID_CREDENTIALS',
  'ACCOUNT_LOCKED',
  'MFA_FAILED',
  'LOGIN_TIMED_OUT',
  'TOO_MANY_LOGIN_ATTEMPTS',
  'TOO_MANY_LINK_SESSIONS',
  'PROVIDER_UNAVAILABLE',
  'LIVE_SESSIONS_FULL',
  'LIVE_SESSION_TIMED_OUT',
  'LIVE_NOT_SIGNED_IN',
] as const satisfies readonly ErrorCode[];

/** The codes the HTTP API (/api) can answer with: every code except the widget's own. */
export type ApiErrorCode = Exclude<ErrorCode, (typeof WIDGET_ONLY_ERROR_CODES)[number]>;
