/**
 * The postMessage protocol between the hosted connect widget (served by AgentLink at /link) and the
 * client SDK (client/react). Shared so both sides agree on names; pure types and constants.
 *
 *  SDK                                   widget (popup or iframe at {backendUrl}/link)
 *   │ open {backendUrl}/link                 │
 *   │ ◄──────────── agentlink:ready ─────────┤ posted to opener/parent with targetOrigin '*' (carries nothing secret)
 *   ├── agentlink:init {linkToken, env} ───► │ only to the backend origin; the widget remembers event.origin
 *   │ ◄──── agentlink:event {eventName} ─────┤ posted only to that remembered origin
 *   │ ◄── agentlink:success {publicToken} ───┤ then the widget closes (popup) or the SDK removes it (iframe)
 *   │ ◄── agentlink:exit {error, metadata} ──┤ the user quit, or the flow failed for good
 *
 * Both sides check event.origin: the SDK accepts messages only from the backend origin; the widget
 * accepts init only once and answers only the origin that sent it. The link token never travels in a URL
 * in this mode. A paused agent run's link token (userAction.linkToken) opens the same widget on the run's own browser;
 * it ends with agentlink:exit, error null and metadata.userActionOutcome, as there is nothing to exchange. (Opening {backendUrl}/link?token=… directly also works: a hosted link, which ends by redirecting to
 * the link token's completionRedirectUri when it has one; in the SDK's popup or iframe it never redirects.)
 */
export const LINK_MESSAGE_TYPES = {
  ready: 'agentlink:ready',
  init: 'agentlink:init',
  event: 'agentlink:event',
  success: 'agentlink:success',
  exit: 'agentlink:exit',
} as const;

export type AgentLinkEnv = 'sandbox' | 'production';

/** Metadata handed to onSuccess (and to onExit/onEvent when known). */
export interface AgentLinkMetadata {
  providerId: string | null;
  providerName: string | null;
  clientUserId: string;
  linkSessionId: string;
  /** Status of the connection that was created or re-authenticated. */
  connectionStatus: 'ACTIVE' | 'LOGIN_REQUIRED' | 'REVOKED' | null;
  /** A widget opened with a paused run's link token (userAction.linkToken): that agent request. */
  agentRequestId?: string | null;
  /** How the person left a paused run: DONE (the page is past the step), APPROVED or DENIED (a held write). */
  userActionOutcome?: 'DONE' | 'APPROVED' | 'DENIED' | null;
}

/** Stable error codes of the connect flow, as the SDK's onError receives them. */
export const LINK_ERROR_CODES = [
  'USER_CLOSED',
  'INVALID_CREDENTIALS',
  'ACCOUNT_LOCKED',
  'MFA_FAILED',
  'LINK_TOKEN_EXPIRED',
  'LINK_TOKEN_ALREADY_USED',
  'INVALID_LINK_TOKEN',
  'ENVIRONMENT_MISMATCH',
  'PROVIDER_UNAVAILABLE',
  'POPUP_BLOCKED',
  'USER_ACTION_EXPIRED',
  'USER_ACTION_ENDED',
  'INTERNAL_ERROR',
] as const;
export type LinkErrorCode = (typeof LINK_ERROR_CODES)[number];

export interface AgentLinkError {
  code: LinkErrorCode;
  message: string;
}

/** Event names of agentlink:event, stable like Plaid Link's. */
export const LINK_EVENT_NAMES = [
  'OPEN',
  'CONSENT_GIVEN',
  'SELECT_PROVIDER',
  'SUBMIT_CREDENTIALS',
  'SUBMIT_MFA',
  'SUBMIT_HUMAN_CHECK',
  'ERROR',
  'HANDOFF',
  /** A paused run's widget (userAction.linkToken) opened on the run's own browser. */
  'OPEN_USER_ACTION',
  /** The person got the page past the step (the run saw it, or they pressed Done): the run resumes. */
  'USER_ACTION_DONE',
  /** The person approved the held write (sent once) or denied it (never sent; the run ends DENIED_BY_USER). */
  'APPROVE_WRITE',
  'DENY_WRITE',
  'EXIT',
] as const;
export type LinkEventName = (typeof LINK_EVENT_NAMES)[number];

export type LinkMessage =
  | { type: typeof LINK_MESSAGE_TYPES.ready }
  | { type: typeof LINK_MESSAGE_TYPES.init; linkToken: string; env: AgentLinkEnv }
  | { type: typeof LINK_MESSAGE_TYPES.event; eventName: LinkEventName; metadata: Partial<AgentLinkMetadata> }
  | { type: typeof LINK_MESSAGE_TYPES.success; publicToken: string; metadata: AgentLinkMetadata }
  | { type: typeof LINK_MESSAGE_TYPES.exit; error: AgentLinkError | null; metadata: Partial<AgentLinkMetadata> };
