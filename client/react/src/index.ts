/**
 * @agentlink/react — the React SDK of AgentLink's connect flow. See useAgentLink for the lifecycle.
 *
 *   import { useAgentLink } from '@agentlink/react';
 *
 * Types of the postMessage protocol come from contract/link-messages.ts, shared with the hosted widget; the build
 * bundles them, so the published package imports nothing but React.
 */
export type {
  AgentLinkEnv,
  AgentLinkError,
  AgentLinkMetadata,
  LinkErrorCode,
  LinkEventName,
  LinkMessage,
} from '../../../contract/link-messages';
export { LINK_ERROR_CODES, LINK_EVENT_NAMES, LINK_MESSAGE_TYPES } from '../../../contract/link-messages';
export type { UseAgentLinkOptions, UseAgentLinkResult, UserActionOutcome } from './use-agent-link';
export { POPUP_CLOSE_GRACE_MS, POPUP_HEIGHT, POPUP_POLL_MS, POPUP_WIDTH, useAgentLink } from './use-agent-link';
