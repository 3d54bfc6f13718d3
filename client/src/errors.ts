import type { ApiErrorCode } from '../../contract/route-errors';
import type { AgentRequest, ErrorEnvelope } from './generated/api';

export type { ApiErrorCode };
export type ErrorType = ErrorEnvelope['error']['type'];

/**
 * Everything the client throws is an AgentLinkError:
 *
 *   AgentLinkError
 *   ├─ AgentLinkApiError            AgentLink answered with its error envelope: status, code, type, requestId, details
 *   │   ├─ InvalidRequestError      400, 413, 415
 *   │   ├─ AuthenticationError      401
 *   │   ├─ NotFoundError            404
 *   │   ├─ ConflictError            409
 *   │   ├─ RateLimitError           429 (retryAfterSeconds)
 *   │   └─ InternalServerError      5xx
 *   ├─ AgentLinkResponseError       an answer that is not AgentLink's JSON (wrong baseUrl, a proxy's HTML page …)
 *   ├─ AgentLinkConnectionError     no answer at all (DNS, refused, reset), after the retries
 *   │   └─ AgentLinkTimeoutError    no answer within timeoutMs, after the retries
 *   ├─ AgentLinkWaitTimeoutError    waitForAgentRequest: the request had not settled within its timeoutMs (agentRequest)
 *   └─ AgentLinkAbortError          the caller's AbortSignal fired
 *
 * `instanceof` works for every class, and `error.code` of an AgentLinkApiError is typed as the union of the codes the
 * API documents.
 */
export class AgentLinkError extends Error {
  override name = 'AgentLinkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface ApiErrorInit {
  status: number;
  envelope: ErrorEnvelope['error'];
  headers: Headers;
}

export class AgentLinkApiError<Code extends ApiErrorCode = ApiErrorCode> extends AgentLinkError {
  override name = 'AgentLinkApiError';
  /** HTTP status. */
  readonly status: number;
  /** Stable error code, e.g. CONNECTION_NOT_FOUND (the error table of the API reference). */
  readonly code: Code;
  /** The error family: INVALID_REQUEST, AUTHENTICATION_ERROR, NOT_FOUND, CONFLICT, RATE_LIMITED, API_ERROR. */
  readonly type: ErrorType;
  /** The x-request-id of the failed call; quote it when asking for support. */
  readonly requestId: string | null;
  /** More about the error, e.g. every invalid field of an INVALID_FIELD. */
  readonly details: unknown;
  readonly headers: Headers;

  constructor(init: ApiErrorInit) {
    super(`${init.envelope.code}: ${init.envelope.message}`);
    this.status = init.status;
    this.code = init.envelope.code as Code;
    this.type = init.envelope.type;
    this.requestId = init.envelope.requestId || init.headers.get('x-request-id');
    this.details = init.envelope.details;
    this.headers = init.headers;
  }
}

export class InvalidRequestError extends AgentLinkApiError {
  override name = 'InvalidRequestError';
}
export class AuthenticationError extends AgentLinkApiError {
  override name = 'AuthenticationError';
}
export class NotFoundError extends AgentLinkApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends AgentLinkApiError {
  override name = 'ConflictError';
}
export class RateLimitError extends AgentLinkApiError {
  override name = 'RateLimitError';
  /** Seconds to wait, from Retry-After (null when the answer had none). */
  readonly retryAfterSeconds: number | null;
  constructor(init: ApiErrorInit) {
    super(init);
    const value = Number(init.headers.get('retry-after'));
    this.retryAfterSeconds = init.headers.has('retry-after') && Number.isFinite(value) ? value : null;
  }
}
export class InternalServerError extends AgentLinkApiError {
  override name = 'InternalServerError';
}

/** The error class of an envelope answered with `status`. */
export function apiError(init: ApiErrorInit): AgentLinkApiError {
  const { status } = init;
  if (status === 401) return new AuthenticationError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new InternalServerError(init);
  return new InvalidRequestError(init);
}

/** An answer that is not AgentLink's JSON: usually a wrong baseUrl (an HTML page) or a proxy in the way. */
export class AgentLinkResponseError extends AgentLinkError {
  override name = 'AgentLinkResponseError';
  constructor(
    message: string,
    readonly status: number,
    readonly contentType: string | null,
    /** The first characters of the body, to see what answered. */
    readonly bodySnippet: string,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

export class AgentLinkConnectionError extends AgentLinkError {
  override name = 'AgentLinkConnectionError';
}

export class AgentLinkTimeoutError extends AgentLinkConnectionError {
  override name = 'AgentLinkTimeoutError';
}

/** waitForAgentRequest gave up: the request had not settled within its timeoutMs. `agentRequest` is the last read. */
export class AgentLinkWaitTimeoutError extends AgentLinkError {
  override name = 'AgentLinkWaitTimeoutError';
  constructor(
    message: string,
    readonly agentRequest: AgentRequest,
  ) {
    super(message);
  }
}

export class AgentLinkAbortError extends AgentLinkError {
  override name = 'AgentLinkAbortError';
}

/** True when `err` is an API error, narrowed to one code when `code` is given. */
export function isAgentLinkApiError<C extends ApiErrorCode>(err: unknown, code?: C): err is AgentLinkApiError<C> {
  return err instanceof AgentLinkApiError && (code === undefined || err.code === code);
}
