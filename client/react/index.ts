/**
 * @agentlink/react — the React SDK of AgentLink's connect flow. See useAgentLink for the lifecycle.
 *
 *   import { useAgentLink } from './client/react';
 *
 * Types of the postMessage protocol come from contract/link-messages.ts, shared with the hosted widget.
 */
export { useAgentLink, POPUP_WIDTH, POPUP_HEIGHT, POPUP_POLL_MS, POPUP_CLOSE_GRACE_MS } from './use-agent-link';
export type { UseAgentLinkOptions, UseAgentLinkResult } from './use-agent-link';
export { LINK_ERROR_CODES, LINK_EVENT_NAMES, LINK_MESSAGE_TYPES } from '../../contract/link-messages';
export type {
  AgentLinkEnv,
  AgentLinkError,
  AgentLinkMetadata,
  LinkErrorCode,
  LinkEventName,
  LinkMessage,
} from '../../contract/link-messages';
