import { LINK_MESSAGE_TYPES } from '../../../../contract/link-messages';
import type { LinkExitResult, LinkSessionView, LinkStepResult } from '../../link-session.service';
import { api, run } from './api';
import { stopLive } from './live-view';
import type { Navigation } from './nav';
import { renderConsent } from './screens/consent';
import { renderCredentials } from './screens/credentials';
import { renderClosed, renderSuccess } from './screens/done';
import { renderError } from './screens/error';
import { renderPicker } from './screens/picker';
import { renderUserAction } from './screens/user-action';
import { renderHuman, renderMfa } from './screens/verify';
import { emit, metadata, post } from './sdk';
import { apiBase, currentView, mode, redirects, state } from './state';
import { renderLoading } from './ui';

/** The flow: which screen shows where the link session stands, its start, a sign-in step's answer, and the exit. */

/** Shows the screen for where the flow stands. */
export function next(): void {
  const v = currentView();
  if (v.mode === 'user_action') return renderUserAction();
  if (v.status === 'CONSENT') return renderConsent();
  if (v.status === 'PROVIDER' || (!v.provider && v.status === 'CREDENTIALS')) return renderPicker();
  if (v.status === 'MFA_TOTP' || v.status === 'MFA_SMS') return renderMfa();
  if (v.status === 'HUMAN_CHECK') return renderHuman();
  return renderCredentials();
}

/** Opens a link session with the link token. */
export function start(): void {
  renderLoading('Loading…');
  run(
    () => api<LinkSessionView>('/sessions', state.env ? { env: state.env } : {}),
    (view) => {
      state.view = view;
      emit('OPEN');
      next();
    },
  );
}

/** A sign-in step's answer: connected, or the next step. */
export function step(result: LinkStepResult): void {
  stopLive();
  state.view = result.view;
  if (result.success) return renderSuccess(result.success);
  next();
}

/** The person leaves: tell the SDK (agentlink:exit) and AgentLink (the session's end), then close or say so. */
export function exit(): void {
  if (state.finished) {
    if (mode === 'popup') window.close();
    return;
  }
  state.finished = true;
  stopLive();
  const error = state.lastError || { code: 'USER_CLOSED' as const, message: 'The user closed the connect flow.' };
  emit('EXIT');
  post({ type: LINK_MESSAGE_TYPES.exit, error, metadata: metadata() });
  const sessionId = state.view ? state.view.linkSessionId : state.refusedSessionId;
  // A hosted link whose token names a completionRedirectUri (or whose opening was refused: the answer tells) waits
  // for the exit's answer, which carries the redirect with status=exited and error_code.
  const returning = redirects() && !!sessionId && (!state.view || state.view.completionRedirect);
  if (sessionId && state.token) {
    fetch(apiBase + '/sessions/' + sessionId + '/exit', {
      method: 'POST',
      keepalive: true,
      credentials: 'omit',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + state.token },
      body: JSON.stringify({ errorCode: error.code }),
    })
      .then((res) => (res.ok ? (res.json() as Promise<LinkExitResult>) : null))
      .then((answer) => {
        if (redirects() && answer && typeof answer.redirectUrl === 'string') location.replace(answer.redirectUrl);
        else if (returning) renderClosed(false);
      })
      .catch(() => {
        if (returning) renderClosed(false);
      });
  }
  if (mode === 'popup') window.close();
  if (mode !== 'iframe') renderClosed(returning && !!state.view);
}

/** The screens, for nav.ts. */
export const navigation: Navigation = {
  next,
  start,
  step,
  exit,
  consent: renderConsent,
  picker: renderPicker,
  credentials: renderCredentials,
  mfa: renderMfa,
  failure: renderError,
};
