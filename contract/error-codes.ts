/**
 * Every error code the API can answer with: its HTTP status, its envelope type, and what it means.
 * Part of the contract: codes are stable, documented in the OpenAPI description, and mapped here once.
 */
export const ERROR_CATALOGUE = {
  INVALID_FIELD: { status: 400, type: 'INVALID_REQUEST', description: 'A field is missing, unknown or invalid; details lists every path.' },
  MALFORMED_JSON: { status: 400, type: 'INVALID_REQUEST', description: 'The body is not valid JSON.' },
  FORBIDDEN_PROPERTY_NAME: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'The body uses __proto__ or constructor.prototype as a property name.',
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, type: 'INVALID_REQUEST', description: 'The body is not application/json in UTF-8.' },
  PAYLOAD_TOO_LARGE: { status: 413, type: 'INVALID_REQUEST', description: 'The body is over the size limit (256 KiB by default).' },
  ROUTE_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such endpoint.' },
  MISSING_CLIENT_CREDENTIALS: { status: 401, type: 'AUTHENTICATION_ERROR', description: 'x-client-id or x-client-secret is missing.' },
  INVALID_CLIENT_CREDENTIALS: {
    status: 401,
    type: 'AUTHENTICATION_ERROR',
    description: 'The client id and secret do not match an organization.',
  },
  ORGANIZATION_DISABLED: {
    status: 401,
    type: 'AUTHENTICATION_ERROR',
    description:
      'The credentials are right, but an operator disabled the organization (agentlink org disable); nothing it sends is served.',
  },
  AUTHENTICATION_THROTTLED: {
    status: 429,
    type: 'RATE_LIMITED',
    description:
      'Too many failed authentications for this client id or from this address (before any secret is checked); wait Retry-After seconds.',
  },
  UNKNOWN_PROVIDER: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: "providerId is not in the catalogue of the credentials' environment.",
  },
  SANDBOX_ONLY: { status: 400, type: 'INVALID_REQUEST', description: 'The endpoint exists only with sandbox credentials.' },
  UNKNOWN_TEST_USER: { status: 400, type: 'INVALID_REQUEST', description: 'username is not a sandbox test user.' },
  SANDBOX_LOGIN_FAILED: { status: 400, type: 'INVALID_REQUEST', description: 'The sandbox test user cannot log in (user_locked).' },
  PUBLIC_TOKEN_MALFORMED: { status: 400, type: 'INVALID_REQUEST', description: 'publicToken is not shaped like a public token.' },
  PUBLIC_TOKEN_ENVIRONMENT_MISMATCH: { status: 400, type: 'INVALID_REQUEST', description: 'publicToken belongs to the other environment.' },
  INVALID_PUBLIC_TOKEN: { status: 400, type: 'INVALID_REQUEST', description: 'publicToken is not known.' },
  PUBLIC_TOKEN_ORGANIZATION_MISMATCH: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'publicToken was issued to another organization.',
  },
  PUBLIC_TOKEN_EXPIRED: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'publicToken is older than its lifetime (30 minutes by default).',
  },
  PUBLIC_TOKEN_ALREADY_USED: { status: 409, type: 'CONFLICT', description: 'publicToken was already exchanged.' },
  INVALID_ACCESS_TOKEN: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'accessToken is unknown, revoked, or not issued to these credentials.',
  },
  ACCESS_TOKEN_ENVIRONMENT_MISMATCH: { status: 400, type: 'INVALID_REQUEST', description: 'accessToken belongs to the other environment.' },
  CONNECTION_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such connection for these credentials.' },
  CONNECTION_REVOKED: { status: 409, type: 'CONFLICT', description: 'The connection was revoked.' },
  CONNECTION_LOGIN_REQUIRED: { status: 409, type: 'CONFLICT', description: 'The provider session ended; the user must reconnect.' },
  CONNECTION_CHECK_IN_PROGRESS: {
    status: 409,
    type: 'CONFLICT',
    description: 'A health check of this connection is running (scheduled or asked for); read the connection when it ends.',
  },
  CONNECTION_CHECK_RATE_LIMITED: {
    status: 429,
    type: 'RATE_LIMITED',
    description:
      'The connection was checked less than 10 seconds ago, or this AgentLink process already runs its maximum of checks; wait Retry-After seconds.',
  },
  UPSTREAM_PROXY_NOT_ALLOWED: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      'upstreamProxy.url is not http://host:port, carries credentials (send username and password apart), or points a production ' +
      'connection at a local or private host.',
  },
  STARTING_URL_NOT_ALLOWED: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: "startingUrl is not an http(s) URL inside the provider's allowed domains.",
  },
  AGENT_REQUEST_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such agent request for these credentials.' },
  PROVIDER_NOT_FOUND: {
    status: 404,
    type: 'NOT_FOUND',
    description: "providerId is not in the catalogue of the credentials' environment.",
  },
  PROVIDER_DECLARATION_INVALID: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      'The provider declaration breaks a rule beyond its shape: an address that is not public in production, another environment, ' +
      'a providerId the server assigns; details lists each path.',
  },
  PROVIDER_SLUG_TAKEN: {
    status: 409,
    type: 'CONFLICT',
    description: 'A built-in or operator provider (of either environment), or another of yours in this environment, already has this slug.',
  },
  PROVIDER_NOT_EDITABLE: {
    status: 409,
    type: 'CONFLICT',
    description: "The provider is built in or declared by the operator: only your organization's own providers can be changed or deleted.",
  },
  PROVIDER_IN_USE: {
    status: 409,
    type: 'CONFLICT',
    description: 'The provider still has connections that are not revoked (details.connections); revoke them first.',
  },
  PROVIDER_LIMIT: {
    status: 409,
    type: 'CONFLICT',
    description:
      'These credentials already have the most private providers allowed per organization and environment (50); delete one first.',
  },
  UNKNOWN_PLAYBOOK: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      "playbook names no action of the connection's provider; details.available lists them (GET /api/providers/{providerId}/actions).",
  },
  PLAYBOOK_PARAMETERS_MISSING: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      'The named playbook needs a parameter that neither parameters nor the action gives; details lists each path (parameters.text).',
  },
  PLAYBOOK_PARAMETERS_INVALID: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      'A parameter of the named playbook does not fit its schema; details lists each path, and where a value read from the action came from.',
  },
  PLAYBOOK_WRITES_IN_READ_MODE: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'The named playbook changes things on the provider, and the request has mode read.',
  },
  AGENT_REQUEST_ALREADY_FINISHED: {
    status: 409,
    type: 'CONFLICT',
    description: 'The agent request already reached a final status and cannot be canceled.',
  },
  INVALID_CURSOR: { status: 400, type: 'INVALID_REQUEST', description: 'cursor is not a cursor this API returned.' },
  INVALID_LINK_TOKEN: { status: 400, type: 'INVALID_REQUEST', description: 'Connect widget: the link token is malformed or not known.' },
  LINK_TOKEN_ENVIRONMENT_MISMATCH: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'Connect widget: the link token belongs to the other environment than the SDK asked for.',
  },
  LINK_TOKEN_EXPIRED: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'Connect widget: the link token is older than its lifetime (30 minutes by default); create a new one.',
  },
  LINK_TOKEN_ALREADY_USED: {
    status: 409,
    type: 'CONFLICT',
    description: 'Connect widget: the link token already made its one connection; create a new one.',
  },
  LINK_SESSION_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'Connect widget: no such link session for this link token.' },
  LINK_STEP_NOT_ALLOWED: {
    status: 409,
    type: 'CONFLICT',
    description: 'Connect widget: the flow is not at that step, or another step is still running.',
  },
  USER_ACTION_OVER: {
    status: 409,
    type: 'CONFLICT',
    description:
      'A paused agent run: the step is over (answered, expired, or the run ended), or no write is held for a decision now ' +
      "(POST /api/agent-requests/{requestId}/user-action); in the connect widget, or the run's " +
      'browser is not in this process any more.',
  },
  INVALID_CREDENTIALS: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'Connect widget: the provider rejected the username or password.',
  },
  ACCOUNT_LOCKED: { status: 400, type: 'INVALID_REQUEST', description: 'Connect widget: the provider says the account is locked.' },
  MFA_FAILED: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      'Connect widget: the provider rejected the verification code (details.retryable says whether the same step can be retried).',
  },
  LOGIN_TIMED_OUT: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'Connect widget: the verification step was not completed in time; sign in again.',
  },
  TOO_MANY_LOGIN_ATTEMPTS: {
    status: 429,
    type: 'RATE_LIMITED',
    description: 'Connect widget: too many sign-in attempts with this link token (10 over all of its link sessions).',
  },
  TOO_MANY_LINK_SESSIONS: {
    status: 429,
    type: 'RATE_LIMITED',
    description: 'Connect widget: the link token already opened its maximum of 5 link sessions; create a new one.',
  },
  PROVIDER_UNAVAILABLE: {
    status: 502,
    type: 'API_ERROR',
    description: "Connect widget: the provider's sign-in page could not be reached or was not recognised; try again.",
  },
  LIVE_SESSIONS_FULL: {
    status: 429,
    type: 'RATE_LIMITED',
    description: 'Connect widget, live sign-in: this AgentLink process holds its maximum of live browser sessions; try again shortly.',
  },
  LIVE_SESSION_TIMED_OUT: {
    status: 400,
    type: 'INVALID_REQUEST',
    description: 'Connect widget, live sign-in: the live browser was idle for too long and was closed; open it again.',
  },
  LIVE_NOT_SIGNED_IN: {
    status: 409,
    type: 'CONFLICT',
    description: "Connect widget, live sign-in: the provider's signed-in signal has not appeared in the live browser yet.",
  },
  REDIRECT_URI_INVALID: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      'The redirect URI breaks a rule (details.field, details.rule): https only (http only to loopback hosts, in the sandbox), ' +
      'no fragment, no credentials, no spaces, none of the query parameters AgentLink adds, at most 2048 characters.',
  },
  REDIRECT_URI_ALREADY_REGISTERED: {
    status: 409,
    type: 'CONFLICT',
    description: 'This exact URI is already registered in this environment (details.redirectUriId).',
  },
  REDIRECT_URI_LIMIT: {
    status: 409,
    type: 'CONFLICT',
    description: 'These credentials already have the most redirect URIs allowed per organization and environment (20); delete one first.',
  },
  REDIRECT_URI_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such redirect URI for these credentials.' },
  REDIRECT_URI_NOT_ALLOWED: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      'completionRedirectUri is not exactly one of the redirect URIs registered for this organization and environment ' +
      '(details.field; details.rule too when it could not be registered either). Register it with POST /api/redirect-uris.',
  },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such webhook endpoint for these credentials.' },
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    type: 'INVALID_REQUEST',
    description:
      'The webhook url is not https (http only to loopback outside NODE_ENV=production), carries credentials, or points a production endpoint at a local or private host.',
  },
  WEBHOOK_ENDPOINT_LIMIT: {
    status: 409,
    type: 'CONFLICT',
    description:
      'These credentials already have the most webhook endpoints allowed per organization and environment (20); delete one first.',
  },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, type: 'NOT_FOUND', description: 'No such webhook delivery for these credentials.' },
  RATE_LIMITED: {
    status: 429,
    type: 'RATE_LIMITED',
    description: 'Too many requests for the organization and environment; wait Retry-After seconds (RateLimit-* headers show the budget).',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    type: 'CONFLICT',
    description: 'The Idempotency-Key was already used (within 24 hours) for a request with another method, path or body.',
  },
  IDEMPOTENCY_REQUEST_IN_PROGRESS: {
    status: 409,
    type: 'CONFLICT',
    description: 'A request with this Idempotency-Key is still running after 10 seconds of waiting; retry later to get its response.',
  },
  METRICS_UNAUTHORIZED: {
    status: 401,
    type: 'AUTHENTICATION_ERROR',
    description:
      'GET /metrics (operators): the `Authorization: Bearer` token is not AGENTLINK_METRICS_TOKEN, or no token is configured and the caller is not on this machine (loopback, not forwarded by a proxy).',
  },
  INTERNAL_ERROR: { status: 500, type: 'API_ERROR', description: 'A bug on our side; quote the requestId.' },
} as const satisfies Record<string, { status: number; type: string; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Codes an agent run ends with. They are not HTTP answers: they appear in the stored record's
 * `error.code` (GET /api/agent-requests/{requestId}) when the status is FAILED, TIMED_OUT or CANCELED.
 */
export const AGENT_RUN_ERRORS = {
  TIMED_OUT: 'The run did not finish within its timeoutMs (status TIMED_OUT).',
  CANCELED: 'The request was canceled with POST /api/agent-requests/{requestId}/cancel (status CANCELED).',
  WORKER_LOST: 'The worker running the request stopped (crash, kill, lost machine) and the request could not be run again.',
  BROWSER_LOST:
    'The browser running the request went away mid-run (a remote Chromium restarted, a local one crashed). The request runs again ' +
    'by itself when the page had sent nothing that may change the provider and an attempt is left (AGENTLINK_WORKER_MAX_ATTEMPTS); ' +
    'otherwise it ends with this code and the message says why.',
  MODEL_NOT_CONFIGURED:
    'No playbook or replay covers the action and no model is configured for the planner (AGENTLINK_MODEL_BASE_URL + AGENTLINK_MODEL). ' +
    'details.closest lists the nearest actions of the provider with their scores (0 to 1) and the threshold they missed.',
  PLAYBOOK_PARAMETERS_MISSING:
    'A playbook matches the action but a parameter it needs is in neither parameters nor the action, and no model is configured; ' +
    'details.playbook and details.missing name it (parameters.text).',
  PLAYBOOK_PARAMETERS_INVALID:
    'A playbook matches the action but a parameter does not fit its schema (details.issues: path, message, and source when it was ' +
    'read from the action or the starting URL), and no model is configured.',
  PLAYBOOK_NOT_APPLICABLE:
    'The playbook the request names cannot serve it (for example the responseFormat asks for what it does not read).',
  NO_STRATEGY: 'No way of running the action applies (no playbook, replay or planner).',
  CONNECTION_LOGIN_REQUIRED: 'The provider session ended and could not be renewed silently; the connection is now LOGIN_REQUIRED.',
  CONNECTION_REVOKED: 'The connection was revoked before the request ran.',
  NAVIGATION_BLOCKED: "The run tried to navigate outside the provider's allowed domains (details.url); the browser blocked it.",
  STARTING_URL_UNREACHABLE: 'The starting URL could not be loaded.',
  UPSTREAM_PROXY_FAILED:
    "The connection's upstream proxy (its exit) refused or failed the connection to the starting URL: not reachable, an " +
    'authentication it did not accept (407), an address the egress policy does not allow for it. The message says which; the run ' +
    'never goes around it.',
  RESULT_SCHEMA_MISMATCH: 'The result does not match the JSON Schema compiled from responseFormat; details lists every mismatch.',
  PLAYBOOK_FAILED: 'The playbook for this action failed on the page (details.step names where).',
  REPLAY_MISMATCH:
    'The recorded replay of this action ran, but its answer could not be checked on the live page (the list it reads is not the ' +
    'recorded one, its items lost their shape, the answer is poorer than the recording) and no model is configured to take over; ' +
    'the message says what did not match. The trajectory is marked stale: the next run with a model learns it again.',
  MODEL_ERROR: 'The model endpoint failed: an HTTP error, a network error, or no answer within AGENTLINK_MODEL_TIMEOUT_MS.',
  MODEL_BAD_RESPONSE: 'The model endpoint answered with something that is not an OpenAI-compatible chat completion.',
  MAX_STEPS_EXCEEDED: 'The planner did not finish within its step budget.',
  TOO_MANY_FAILURES: 'Several planner actions in a row failed (element missing, blocked navigation …); the agent gave up.',
  ACTION_FAILED: 'The agent reported that the action cannot be done on this page (its reason is the message).',
  DENIED_BY_USER:
    'The end user denied the write the run held for approval (approval on the request): it was never sent, and the run stopped. ' +
    'details.write is what would have been sent.',
  USER_ACTION_EXPIRED:
    'The run waited NEEDS_USER and nobody finished the step before userAction.expiresAt (AGENTLINK_USER_ACTION_TTL_SECONDS).',
  USER_ACTION_EXITED: 'The run waited NEEDS_USER and the end user left the step in the widget ("I can’t do this").',
  USER_ACTION_UNAVAILABLE:
    'The run needed its end user but this worker already holds as many waiting runs as it may (AGENTLINK_MAX_WAITING_RUNS); ' +
    'nothing was retried blindly.',
  USER_ACTION_LOST: 'The run waited NEEDS_USER, and the process holding its browser stopped; its page state went with it.',
  SESSION_UNREADABLE: 'The stored session of the connection could not be opened (wrong or rotated encryption key).',
  INTERNAL_ERROR: 'A bug on our side; the trace shows where.',
} as const satisfies Record<string, string>;

export type AgentRunErrorCode = keyof typeof AGENT_RUN_ERRORS;
