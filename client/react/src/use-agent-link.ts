import { useCallback, useEffect, useRef, useState } from 'react';

import {
  type AgentLinkEnv,
  type AgentLinkError,
  type AgentLinkMetadata,
  LINK_MESSAGE_TYPES,
  type LinkErrorCode,
  type LinkEventName,
  type LinkMessage,
} from '../../../contract/link-messages';

/** How the person left a paused agent run's widget: past the step (DONE), or the held write APPROVED or DENIED. */
export type UserActionOutcome = NonNullable<AgentLinkMetadata['userActionOutcome']>;

export interface UseAgentLinkOptions {
  /**
   * Link token from POST /api/link-token (made by your backend), or a paused agent run's `userAction.linkToken` (the
   * widget then shows that run's page: see onExit). Pass "" while it loads: `ready` stays false.
   */
  linkToken: string;
  /** Base address of AgentLink, e.g. "http://localhost:4000" (no /api). The widget is `${backendUrl}/link`. */
  backendUrl: string;
  /** Must match the link token's environment (`link-sandbox-…` / `link-production-…`), else `error` says so. */
  env: AgentLinkEnv;
  /**
   * The user connected an account: exchange `publicToken` on your backend (POST /api/connections/public_token/exchange).
   * Never called for a paused run's link token (there is nothing to exchange).
   */
  onSuccess: (publicToken: string, metadata: AgentLinkMetadata) => void;
  /**
   * The flow ended without a connection: a failure, or the user closed the widget (code USER_CLOSED). For a paused run:
   * USER_ACTION_ENDED (the step was already over), or USER_CLOSED (they left: the run ends USER_ACTION_EXITED); not
   * called when they did their part (see onExit).
   */
  onError: (error: AgentLinkError) => void;
  /**
   * Optional, Plaid-style: called whenever the flow ends without success, after onError, with the error the
   * widget reported (null when the user simply quit) and what is known of the session so far.
   * A paused run's widget (userAction.linkToken) ends with onExit(null, metadata) alone when the person did their part:
   * `metadata.userActionOutcome` is DONE, APPROVED or DENIED and `metadata.agentRequestId` names the run, which goes on
   * by itself (read it, or wait for its webhook).
   */
  onExit?: (error: AgentLinkError | null, metadata: Partial<AgentLinkMetadata>) => void;
  /** Optional stream of the widget's events (OPEN, SELECT_PROVIDER, SUBMIT_CREDENTIALS, …). */
  onEvent?: (eventName: LinkEventName, metadata: Partial<AgentLinkMetadata>) => void;
  /**
   * Optional, Plaid-style: the widget has loaded and is talking to the SDK (its `agentlink:ready`), once per open().
   * Until then the user sees the popup or overlay loading.
   */
  onLoad?: () => void;
}

export interface UseAgentLinkResult {
  /** Opens the connect widget. Use it only when `ready`; before that it warns and does nothing. */
  open: () => void;
  /**
   * Closes an open widget from your code (Plaid's exit()): the flow ends as if the user had closed it, so onError
   * gets USER_CLOSED and onExit(null, metadata) follows. Does nothing when no widget is open.
   */
  exit: () => void;
  /** True when `linkToken` is set and matches `env` and `backendUrl` is a valid address. */
  ready: boolean;
  /**
   * Why the hook is not ready (ENVIRONMENT_MISMATCH, INVALID_LINK_TOKEN, INTERNAL_ERROR for a bad backendUrl),
   * or else the error of the last flow (then `ready` stays true and the user may try again); null otherwise.
   */
  error: AgentLinkError | null;
}

/** Size of the popup window. */
export const POPUP_WIDTH = 420;
export const POPUP_HEIGHT = 720;
/** How often the SDK checks whether the user closed the popup, and how long it then waits for a late success. */
export const POPUP_POLL_MS = 500;
export const POPUP_CLOSE_GRACE_MS = 250;
export const OVERLAY_ATTRIBUTE = 'data-agentlink-overlay';

type Config =
  { ok: true; linkToken: string; env: AgentLinkEnv; origin: string; widgetUrl: string } | { ok: false; error: AgentLinkError | null };

const linkError = (code: LinkErrorCode, message: string): AgentLinkError => ({ code, message });

/** Pure: checks the options and derives the widget URL and the origin every message must come from. */
function resolveConfig(linkToken: string, backendUrl: string, env: AgentLinkEnv): Config {
  if (!linkToken) return { ok: false, error: null };
  if (env !== 'sandbox' && env !== 'production') {
    return { ok: false, error: linkError('ENVIRONMENT_MISMATCH', `env must be "sandbox" or "production", not ${JSON.stringify(env)}.`) };
  }
  const tokenEnv = /^link-(sandbox|production)-/.exec(linkToken)?.[1];
  if (!tokenEnv)
    return {
      ok: false,
      error: linkError('INVALID_LINK_TOKEN', 'linkToken is not a link token (expected "link-sandbox-…" or "link-production-…").'),
    };
  if (tokenEnv !== env) {
    return {
      ok: false,
      error: linkError('ENVIRONMENT_MISMATCH', `The link token belongs to the ${tokenEnv} environment, but env is "${env}".`),
    };
  }
  let url: URL;
  try {
    url = new URL(backendUrl);
  } catch {
    url = new URL('about:blank');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      error: linkError('INTERNAL_ERROR', `backendUrl must be an absolute http(s) address, got ${JSON.stringify(backendUrl)}.`),
    };
  }
  const base = url.href.split(/[?#]/)[0].replace(/\/+$/, '');
  return { ok: true, linkToken, env, origin: url.origin, widgetUrl: `${base}/link` };
}

interface Session {
  kind: 'popup' | 'iframe';
  /** The widget's window: the popup, or the iframe's contentWindow. */
  target: () => Window | null;
  metadata: Partial<AgentLinkMetadata>;
  finished: boolean;
  /** The widget said ready (onLoad was called). */
  loaded: boolean;
  /** Ends the flow as a user close (exit()). */
  close: () => void;
  /** Removes listeners, timers and the overlay; closes the popup. Idempotent; calls no callback. */
  dispose: () => void;
}

function isLinkMessage(data: unknown): data is LinkMessage {
  return typeof data === 'object' && data !== null && typeof (data as { type?: unknown }).type === 'string';
}

function popupFeatures(): string {
  const w = window.outerWidth || window.innerWidth || POPUP_WIDTH;
  const h = window.outerHeight || window.innerHeight || POPUP_HEIGHT;
  const left = Math.max(0, Math.round((window.screenX || 0) + (w - POPUP_WIDTH) / 2));
  const top = Math.max(0, Math.round((window.screenY || 0) + (h - POPUP_HEIGHT) / 2));
  return `popup=yes,width=${POPUP_WIDTH},height=${POPUP_HEIGHT},left=${left},top=${top}`;
}

/** The in-page fallback when the popup is blocked: a full-screen modal overlay holding the widget in an iframe. */
function mountOverlay(widgetUrl: string, onClose: () => void): { overlay: HTMLElement; iframe: HTMLIFrameElement; remove: () => void } {
  const doc = document;
  const overlay = doc.createElement('div');
  overlay.setAttribute(OVERLAY_ATTRIBUTE, '');
  overlay.setAttribute('role', 'dialog');
  overlay.setAttribute('aria-modal', 'true');
  overlay.setAttribute('aria-label', 'Connect your account');
  Object.assign(overlay.style, {
    position: 'fixed',
    inset: '0',
    zIndex: '2147483647',
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
    background: 'rgba(15, 23, 42, 0.55)',
  });
  const iframe = doc.createElement('iframe');
  iframe.src = widgetUrl;
  iframe.title = 'AgentLink: connect your account';
  Object.assign(iframe.style, {
    width: `min(${POPUP_WIDTH}px, 100vw)`,
    height: `min(${POPUP_HEIGHT}px, 100vh)`,
    border: '0',
    borderRadius: '12px',
    background: '#fff',
    boxShadow: '0 20px 60px rgba(0, 0, 0, 0.35)',
  });
  const close = doc.createElement('button');
  close.type = 'button';
  close.setAttribute('aria-label', 'Close');
  close.textContent = '×';
  Object.assign(close.style, {
    position: 'absolute',
    top: '12px',
    right: '16px',
    font: '28px/1 system-ui, sans-serif',
    color: '#fff',
    background: 'transparent',
    border: '0',
    cursor: 'pointer',
  });
  close.addEventListener('click', onClose);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') onClose();
  };
  doc.addEventListener('keydown', onKey);
  overlay.append(iframe, close);
  doc.body.appendChild(overlay);
  iframe.focus();
  return {
    overlay,
    iframe,
    remove: () => {
      doc.removeEventListener('keydown', onKey);
      close.removeEventListener('click', onClose);
      overlay.remove();
    },
  };
}

/**
 * useAgentLink — the client side of AgentLink's connect flow (spec 4.4), in the manner of Plaid's usePlaidLink.
 *
 *   const { open, exit, ready, error } = useAgentLink({ linkToken, backendUrl, env: 'sandbox', onSuccess, onError });
 *   <button onClick={() => open()} disabled={!ready}>Connect account</button>
 *
 * Lifecycle:
 * - `linkToken` may be "" while your backend makes it; `ready` is false until it is set. The link token must
 *   belong to `env` (`link-sandbox-…` with env "sandbox"), else `ready` stays false and `error` is
 *   ENVIRONMENT_MISMATCH. Nothing touches `window` during render, so server rendering is safe.
 * - The link handler is re-created only when `linkToken` (or `backendUrl` / `env`) changes; a widget that is
 *   open then is closed without callbacks. Everything (listeners, timers, popup, overlay) is cleaned up on
 *   unmount. The callbacks are read at call time, so passing new functions on each render is fine.
 * - `open()` before `ready` warns and does nothing. While a widget is open, `open()` focuses it, and `exit()` closes
 *   it as the user would (onError USER_CLOSED, then onExit).
 * - onLoad is called when the opened widget has loaded and said ready; onEvent for each of its events; onExit after
 *   onError, as react-plaid-link's callbacks are.
 * - `open()` opens `${backendUrl}/link` in a popup (420×720). When the browser blocks the popup, the widget
 *   opens instead in an in-page modal iframe (role="dialog", Escape or the × closes it).
 * - Protocol (contract/link-messages.ts): the SDK waits for `agentlink:ready` from the widget's window and
 *   the backend origin only, answers `agentlink:init {linkToken, env}` to that origin only (the token never
 *   travels in a URL), then relays `agentlink:event` to onEvent, `agentlink:success` to onSuccess, and
 *   `agentlink:exit` to onError (USER_CLOSED when the widget reports no error) and onExit. A popup the user
 *   closes ends the flow with onError({ code: 'USER_CLOSED' }). Exactly one of onSuccess / onError per open(),
 *   except for a paused agent run's link token (userAction.linkToken) whose person did their part: the widget's
 *   exit carries no error and metadata.userActionOutcome (DONE, APPROVED, DENIED), and only onExit(null, metadata)
 *   is called; `error` stays null.
 *
 * Works with React 18 and 19 (uses only useState, useEffect, useRef and useCallback) and has no dependency
 * beyond React.
 */
export function useAgentLink(options: UseAgentLinkOptions): UseAgentLinkResult {
  const { linkToken, backendUrl, env } = options;
  const config = resolveConfig(linkToken, backendUrl, env);

  const callbacks = useRef(options);
  useEffect(() => {
    callbacks.current = options;
  });

  const session = useRef<Session | null>(null);
  // The error of the last flow, kept with the configuration it belongs to: a new link token starts clean.
  const configKey = config.ok ? `${config.linkToken}\n${config.env}\n${config.widgetUrl}` : '';
  const [flow, setFlow] = useState<{ key: string; error: AgentLinkError | null }>({ key: '', error: null });
  const setFlowError = (error: AgentLinkError | null) => setFlow({ key: configKey, error });
  const flowError = flow.key === configKey ? flow.error : null;

  useEffect(
    () => () => {
      session.current?.dispose();
      session.current = null;
    },
    [configKey],
  );

  const open = useCallback(() => {
    if (!config.ok) {
      console.warn('useAgentLink: open() was called before ready; it does nothing until ready is true.');
      return;
    }
    const current = session.current;
    if (current && !current.finished) {
      current.target()?.focus();
      return;
    }
    const { origin, widgetUrl } = config;
    setFlowError(null);

    let popup: Window | null = null;
    let frame: ReturnType<typeof mountOverlay> | null = null;
    let pollTimer: ReturnType<typeof setInterval> | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;

    const s: Session = {
      kind: 'popup',
      target: () => (frame ? frame.iframe.contentWindow : popup),
      metadata: {},
      finished: false,
      loaded: false,
      close: () => fail(null),
      dispose: () => {
        window.removeEventListener('message', onMessage);
        if (pollTimer !== undefined) clearInterval(pollTimer);
        if (graceTimer !== undefined) clearTimeout(graceTimer);
        pollTimer = graceTimer = undefined;
        frame?.remove();
        frame = null;
        if (popup && !popup.closed) popup.close();
      },
    };

    const finish = () => {
      s.finished = true;
      s.dispose();
      if (session.current === s) session.current = null;
    };

    // A paused run's widget whose person did their part (userActionOutcome): an end, not an error.
    const answered = () => {
      if (s.finished) return;
      finish();
      setFlowError(null);
      callbacks.current.onExit?.(null, s.metadata);
    };

    const fail = (reported: AgentLinkError | null) => {
      if (s.finished) return;
      finish();
      const error = reported ?? linkError('USER_CLOSED', 'The user closed the connect widget.');
      setFlowError(error);
      callbacks.current.onError(error);
      callbacks.current.onExit?.(reported, s.metadata);
    };

    function onMessage(event: MessageEvent) {
      if (s.finished || event.origin !== origin) return;
      const target = s.target();
      if (!target || event.source !== target) return;
      const msg = event.data;
      if (!isLinkMessage(msg)) return;
      switch (msg.type) {
        case LINK_MESSAGE_TYPES.ready:
          target.postMessage({ type: LINK_MESSAGE_TYPES.init, linkToken: config.ok ? config.linkToken : '', env }, origin);
          if (!s.loaded) {
            s.loaded = true;
            callbacks.current.onLoad?.();
          }
          return;
        case LINK_MESSAGE_TYPES.event:
          s.metadata = { ...s.metadata, ...msg.metadata };
          callbacks.current.onEvent?.(msg.eventName, msg.metadata ?? {});
          return;
        case LINK_MESSAGE_TYPES.success:
          s.metadata = { ...s.metadata, ...msg.metadata };
          finish();
          callbacks.current.onSuccess(msg.publicToken, msg.metadata);
          return;
        case LINK_MESSAGE_TYPES.exit:
          s.metadata = { ...s.metadata, ...msg.metadata };
          if (!msg.error && s.metadata.userActionOutcome) answered();
          else fail(msg.error ?? null);
          return;
        default:
          return;
      }
    }

    window.addEventListener('message', onMessage);
    session.current = s;
    popup = window.open(widgetUrl, 'agentlink', popupFeatures());
    if (popup) {
      pollTimer = setInterval(() => {
        if (!popup || !popup.closed || graceTimer !== undefined) return;
        clearInterval(pollTimer);
        pollTimer = undefined;
        // The widget posts success and then closes itself: give a message already on its way time to land.
        graceTimer = setTimeout(() => fail(null), POPUP_CLOSE_GRACE_MS);
      }, POPUP_POLL_MS);
    } else {
      s.kind = 'iframe';
      frame = mountOverlay(widgetUrl, () => fail(null));
    }
  }, [configKey]); // config and env are functions of configKey

  const exit = useCallback(() => {
    const current = session.current;
    if (current && !current.finished) current.close();
  }, []);

  return {
    open,
    exit,
    ready: config.ok,
    error: config.ok ? flowError : config.error,
  };
}
