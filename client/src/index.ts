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
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';
export type { HttpResponse, RequestOptions } from './transport';
