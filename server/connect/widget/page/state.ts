import type { ErrorCode } from '../../../../contract/error-codes';
import type { AgentLinkEnv, AgentLinkError, AgentLinkMetadata, LinkErrorCode } from '../../../../contract/link-messages';
import type { LinkErrorDetails, LinkSessionView } from '../../link-session.service';

/**
 * The connect widget's state: where it was opened from, the link session's view, and the page's fixed parts.
 *
 * Two ways in:
 *  - From the SDK (popup or iframe): post agentlink:ready to the opener/parent (target '*', nothing secret),
 *    wait for agentlink:init {linkToken, env} from it, remember event.origin, and from then on post
 *    agentlink:event / agentlink:success / agentlink:exit to that origin only (contract/link-messages.ts).
 *  - Directly at /link?token=… (a hosted link: e-mail, SMS, a mobile webview): the same flow. When the link token
 *    names a completionRedirectUri and this page is the top-level page, the flow ends by sending the browser there
 *    with the outcome in its query; otherwise it ends on a "You can close this window" page.
 */

/** An error as the widget meets it: the `error` of AgentLink's error envelope, or one of the widget's own. */
export interface WidgetError {
  code: WidgetErrorCode;
  message?: string;
  details?: Partial<LinkErrorDetails>;
}
export type WidgetErrorCode = ErrorCode | 'NETWORK_ERROR' | 'NO_OPENER';

/** The metadata the widget posts: the contract's, with null for what is not known (yet). */
export type WidgetMetadata = { [K in keyof AgentLinkMetadata]?: AgentLinkMetadata[K] | null };

/** AgentLink's error codes as the SDK's onExit receives them (LINK_ERROR_CODES); any other is INTERNAL_ERROR. */
export const SDK_ERROR_CODES: { readonly [K in WidgetErrorCode]?: LinkErrorCode } = {
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  ACCOUNT_LOCKED: 'ACCOUNT_LOCKED',
  MFA_FAILED: 'MFA_FAILED',
  LOGIN_TIMED_OUT: 'MFA_FAILED',
  TOO_MANY_LOGIN_ATTEMPTS: 'INVALID_CREDENTIALS',
  LINK_TOKEN_EXPIRED: 'LINK_TOKEN_EXPIRED',
  USER_ACTION_OVER: 'USER_ACTION_ENDED',
  LINK_TOKEN_ALREADY_USED: 'LINK_TOKEN_ALREADY_USED',
  INVALID_LINK_TOKEN: 'INVALID_LINK_TOKEN',
  LINK_SESSION_NOT_FOUND: 'INVALID_LINK_TOKEN',
  LINK_TOKEN_ENVIRONMENT_MISMATCH: 'ENVIRONMENT_MISMATCH',
  PROVIDER_UNAVAILABLE: 'PROVIDER_UNAVAILABLE',
  LIVE_SESSIONS_FULL: 'PROVIDER_UNAVAILABLE',
  LIVE_SESSION_TIMED_OUT: 'PROVIDER_UNAVAILABLE',
  LIVE_NOT_SIGNED_IN: 'PROVIDER_UNAVAILABLE',
};

/** Errors after which this link can do nothing more: the error screen offers no retry. */
export const TERMINAL: ReadonlySet<WidgetErrorCode> = new Set<WidgetErrorCode>([
  'LINK_TOKEN_EXPIRED',
  'USER_ACTION_OVER',
  'LINK_TOKEN_ALREADY_USED',
  'INVALID_LINK_TOKEN',
  'LINK_SESSION_NOT_FOUND',
  'LINK_TOKEN_ENVIRONMENT_MISMATCH',
  'TOO_MANY_LOGIN_ATTEMPTS',
  'NO_OPENER',
]);

export const apiBase = location.pathname.replace(/\/+$/, '') + '/api';
export const params = new URLSearchParams(location.search);
export const directToken = params.get('token');
const opener = window.opener as Window | null;
/** Where the SDK is (the popup's opener, the iframe's parent); none for a hosted link. */
export const target: Window | null = directToken ? null : opener || (window.parent !== window ? window.parent : null);
export const mode: 'direct' | 'popup' | 'iframe' = directToken
  ? 'direct'
  : opener
    ? 'popup'
    : window.parent !== window
      ? 'iframe'
      : 'direct';

/**
 * Only a hosted link that is the top-level page follows the completion redirect. In the SDK's popup or iframe the app's
 * page gets the outcome by postMessage (its onSuccess / onExit); a redirect there would take the popup or the frame
 * somewhere the app does not expect. A /link?token=… page framed by someone else does not navigate either.
 */
export function redirects(): boolean {
  return mode === 'direct' && window.top === window;
}

export interface WidgetState {
  token: string | null;
  env: AgentLinkEnv | null;
  /** The SDK's origin, learnt from agentlink:init. */
  origin: string | null;
  view: LinkSessionView | null;
  username: string;
  lastError: AgentLinkError | null;
  finished: boolean;
  lastAction: (() => void) | null;
  /** The link session of an opening refused at once (expired or used link): its exit still returns to the app. */
  refusedSessionId: string | null;
  /** A paused run's answer is on its way. */
  answering: boolean;
}

export const state: WidgetState = {
  token: null,
  env: null,
  origin: null,
  view: null,
  username: '',
  lastError: null,
  finished: false,
  lastAction: null,
  refusedSessionId: null,
  answering: false,
};

/** The link session's view: the screens that need it are shown only once the session is open. */
export function currentView(): LinkSessionView {
  if (!state.view) throw new Error('The connect widget has no link session yet.');
  return state.view;
}

function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`widget.html has no #${id}`);
  return node as T;
}

/** The page's fixed parts (widget.html). */
export const el = {
  screen: byId('al-screen'),
  back: byId<HTMLButtonElement>('al-back'),
  close: byId<HTMLButtonElement>('al-close'),
  progress: byId('al-progress'),
  fill: byId('al-progress-fill'),
  live: byId('al-live'),
  card: document.querySelector<HTMLElement>('.al-card') as HTMLElement,
};
