import { h } from '../dom';
import { nav } from '../nav';
import { emit } from '../sdk';
import { SDK_ERROR_CODES, state, TERMINAL, type WidgetError, type WidgetErrorCode } from '../state';
import { actions, badge, button, orgName, shortName, show, title } from '../ui';

/** An error's heading, what to do, and the label of the button that retries (none: this link can do no more). */
type ErrorCopy = (name: string) => [heading: string, text: string, retry: string | null];

const ERROR_COPY: { readonly [K in WidgetErrorCode]?: ErrorCopy } = {
  INVALID_CREDENTIALS: (name) => [
    'Incorrect username or password',
    name + ' didn’t accept those details. Check them and try again.',
    'Try again',
  ],
  ACCOUNT_LOCKED: (name) => [
    'Your ' + name + ' account is locked',
    name + ' has locked this account. Unlock it on ' + name + ' first, or sign in with a different account.',
    'Use a different account',
  ],
  MFA_FAILED: (name) => [
    'Verification failed',
    name + ' stopped accepting codes for this sign-in. Sign in again to get a new code.',
    'Start again',
  ],
  LOGIN_TIMED_OUT: () => [
    'Verification timed out',
    'The verification step wasn’t finished in time. Sign in again to get a new code.',
    'Start again',
  ],
  PROVIDER_UNAVAILABLE: (name) => [
    name + ' isn’t responding',
    'We couldn’t complete the sign-in on ' + name + ' right now. This is usually temporary.',
    'Try again',
  ],
  TOO_MANY_LOGIN_ATTEMPTS: () => [
    'Too many attempts',
    'For your security, this link is locked after too many sign-in attempts. Start again from the app.',
    null,
  ],
  LINK_TOKEN_EXPIRED: () => [
    'This link has expired',
    'For your security, connection links only work for a short time. Go back to the app and start again.',
    null,
  ],
  // A paused run's link once its step is over (expired, answered, the run ended): never a connection screen.
  USER_ACTION_OVER: () => ['This step is over', 'The task is no longer waiting for you. You can close this window.', null],
  LINK_TOKEN_ALREADY_USED: () => [
    'This link was already used',
    'This connection link has already connected an account. Go back to the app to start a new connection.',
    null,
  ],
  INVALID_LINK_TOKEN: () => [
    'This link isn’t valid',
    'The connection link is incomplete or unknown. Go back to the app and start again.',
    null,
  ],
  LINK_SESSION_NOT_FOUND: () => [
    'This link isn’t valid',
    'The connection link is incomplete or unknown. Go back to the app and start again.',
    null,
  ],
  LINK_TOKEN_ENVIRONMENT_MISMATCH: () => [
    'Wrong environment',
    'This link was made for a different environment (sandbox or production) than the app asked for.',
    null,
  ],
  NO_OPENER: () => [
    'Open this from your app',
    'This page is opened by an app that connects your account. Go back to the app and start again.',
    null,
  ],
  NETWORK_ERROR: () => ['You seem to be offline', 'We couldn’t reach AgentLink. Check your connection and try again.', 'Try again'],
};
const OTHER_ERROR: ErrorCopy = () => ['Something went wrong', 'That didn’t work on our side. Try again in a moment.', 'Try again'];

/** The errors after which the sign-in form is shown again. */
const SIGN_IN_AGAIN: readonly WidgetErrorCode[] = ['INVALID_CREDENTIALS', 'MFA_FAILED', 'LOGIN_TIMED_OUT', 'PROVIDER_UNAVAILABLE'];

/** A failure: record it, tell the SDK, and show what the person can do next. */
export function renderError(err: Partial<WidgetError> | null | undefined, retry?: (() => void) | null): void {
  const code: WidgetErrorCode = err && err.code ? err.code : 'INTERNAL_ERROR';
  const details = (err && err.details) || {};
  if (details.linkSessionId && state.view) state.view.status = details.status || state.view.status;
  if (details.linkSessionId && !state.view) state.refusedSessionId = details.linkSessionId;
  state.lastError = {
    code: SDK_ERROR_CODES[code] || 'INTERNAL_ERROR',
    message: err && err.message ? err.message : 'Something went wrong.',
  };
  emit('ERROR');
  if (code === 'MFA_FAILED' && details.retryable && state.view) {
    return nav.mfa({ error: (err && err.message) || 'That code didn’t work. Try again.' });
  }
  const name = shortName(state.view && state.view.provider);
  const [heading, text, retryLabel] = (ERROR_COPY[code] || OTHER_ERROR)(name);
  const terminal = TERMINAL.has(code) || details.status === 'FAILED';
  let primary: HTMLButtonElement | null = null;
  if (!terminal && retryLabel) {
    primary = button(retryLabel, () => {
      if (code === 'ACCOUNT_LOCKED') return nav.credentials({ keepUsername: false });
      if (SIGN_IN_AGAIN.indexOf(code) !== -1) return nav.credentials();
      if (retry) return retry();
      if (state.view) return nav.next();
      return nav.start();
    });
  }
  const org = orgName();
  const leave = button(org ? 'Return to ' + org : 'Close window', () => nav.exit(), !!primary);
  show(
    'error',
    h(
      'div',
      { class: 'al-grow al-center' },
      badge(terminal ? 'warn' : 'error', 'alert'),
      title(heading),
      h('div', { role: 'alert' }, h('p', { class: 'al-lead' }, text)),
      h('p', { class: 'al-error-code' }, 'Error code: ' + (SDK_ERROR_CODES[code] || code)),
      actions(primary, leave),
    ),
    { back: null },
  );
}
