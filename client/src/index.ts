/**
 * @agentlink/client: the AgentLink API client for your backend. Webhook verification is its own entry point,
 * @agentlink/client/webhooks.
 */
export { APIPromise, type Page, PagePromise } from './api-promise';
export {
  type AgentLinkClient,
  type AgentLinkClientOptions,
  createAgentLinkClient,
  DEFAULT_TIMEOUT_MS,
  type LegacyClient,
  type OperationArgs,
  type OperationMethod,
} from './client';
export {
  AgentLinkAbortError,
  AgentLinkApiError,
  AgentLinkConnectionError,
  AgentLinkError,
  AgentLinkResponseError,
  AgentLinkTimeoutError,
  AgentLinkWaitTimeoutError,
  type ApiErrorCode,
  AuthenticationError,
  ConflictError,
  type ErrorType,
  InternalServerError,
  InvalidRequestError,
  isAgentLinkApiError,
  NotFoundError,
  RateLimitError,
} from './errors';
export type * from './generated/api';
/** The codes of a failed run's `error.code` (FAILED, TIMED_OUT, CANCELED requests), e.g. DENIED_BY_USER, USER_ACTION_EXPIRED. */
export type { AgentRunErrorCode } from '../../contract/error-codes';
export type { DeprecatedAliases } from './deprecated-aliases';
export type {
  AgentRequestsResource,
  ConnectionsResource,
  CreateAndWaitOptions,
  LinkTokensResource,
  ProvidersResource,
  RedirectUrisResource,
  Resources,
  SandboxResource,
  WebhookDeliveriesResource,
  WebhooksResource,
} from './resources';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';
export type { HttpResponse, RequestOptions } from './transport';
export {
  AGENT_REQUEST_WAIT_MS_MAX,
  DEFAULT_POLL_INTERVAL_MS,
  FINAL_AGENT_REQUEST_STATUSES,
  type FinalAgentRequestStatus,
  isFinalAgentRequestStatus,
  waitForAgentRequest,
  type WaitForAgentRequestOptions,
} from './wait';
