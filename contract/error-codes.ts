/**
 * Every error code the API can answer with: its HTTP status, its envelope type, and what it means.
 * Part of the contract: codes are stable, documented in the OpenAPI description, and mapped here once.
 */
export const ERROR_CATALOGUE = {
  INVALID_FIELD: { status: 400, type: 'INVALID_REQUEST', description: 'A field is missing, unknown or invalid; details lists every path.' },
  MALFORMED_JSON: { status: 400, type: 'INVALID_REQUEST', description: 'The body is not valid JSON.' },
  FORBIDDEN_PROPERTY_NAME: { status: 400, type: 'INVALID_REQUEST', description: 'The body uses __proto__ or constructor.prototype as a property name.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, type: 'INVALID_REQUEST', description: 'The body is not application/json in UTF-8.' },
  PAYLOAD_TOO_LARGE: { status: 413, type: 'INVALID_REQUEST', description: 'The body is over the size limit (256 KiB by default).' },
  ROUTE_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such endpoint.' },
  MISSING_CLIENT_CREDENTIALS: { status: 401, type: 'AUTHENTICATION_ERROR', description: 'x-client-id or x-client-secret is missing.' },
  INVALID_CLIENT_CREDENTIALS: { status: 401, type: 'AUTHENTICATION_ERROR', description: 'The client id and secret do not match an organization.' },
  UNKNOWN_PROVIDER: { status: 400, type: 'INVALID_REQUEST', description: "providerId is not in the catalogue of the credentials' environment." },
  SANDBOX_ONLY: { status: 400, type: 'INVALID_REQUEST', description: 'The endpoint exists only with sandbox credentials.' },
  UNKNOWN_TEST_USER: { status: 400, type: 'INVALID_REQUEST', description: 'username is not a sandbox test user.' },
  SANDBOX_LOGIN_FAILED: { status: 400, type: 'INVALID_REQUEST', description: 'The sandbox test user cannot log in (user_locked).' },
  PUBLIC_TOKEN_MALFORMED: { status: 400, type: 'INVALID_REQUEST', description: 'publicToken is not shaped like a public token.' },
  PUBLIC_TOKEN_ENVIRONMENT_MISMATCH: { status: 400, type: 'INVALID_REQUEST', description: 'publicToken belongs to the other environment.' },
  INVALID_PUBLIC_TOKEN: { status: 400, type: 'INVALID_REQUEST', description: 'publicToken is not known.' },
  PUBLIC_TOKEN_ORGANIZATION_MISMATCH: { status: 400, type: 'INVALID_REQUEST', description: 'publicToken was issued to another organization.' },
  PUBLIC_TOKEN_EXPIRED: { status: 400, type: 'INVALID_REQUEST', description: 'publicToken is older than its lifetime (30 minutes by default).' },
  PUBLIC_TOKEN_ALREADY_USED: { status: 409, type: 'CONFLICT', description: 'publicToken was already exchanged.' },
  INVALID_ACCESS_TOKEN: { status: 400, type: 'INVALID_REQUEST', description: 'accessToken is unknown, revoked, or not issued to these credentials.' },
  ACCESS_TOKEN_ENVIRONMENT_MISMATCH: { status: 400, type: 'INVALID_REQUEST', description: 'accessToken belongs to the other environment.' },
  CONNECTION_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such connection for these credentials.' },
  CONNECTION_REVOKED: { status: 409, type: 'CONFLICT', description: 'The connection was revoked.' },
  CONNECTION_LOGIN_REQUIRED: { status: 409, type: 'CONFLICT', description: 'The provider session ended; the user must reconnect.' },
  STARTING_URL_NOT_ALLOWED: { status: 400, type: 'INVALID_REQUEST', description: "startingUrl is not an http(s) URL inside the provider's allowed domains." },
  AGENT_REQUEST_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such agent request for these credentials.' },
  INTERNAL_ERROR: { status: 500, type: 'API_ERROR', description: 'A bug on our side; quote the requestId.' },
} as const satisfies Record<string, { status: number; type: string; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
