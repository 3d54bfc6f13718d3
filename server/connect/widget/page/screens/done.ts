import { LINK_MESSAGE_TYPES } from '../../../../../contract/link-messages';
import type { LinkStepResult } from '../../../link-session.service';
import { h } from '../dom';
import { emit, post } from '../sdk';
import { currentView, el, mode, redirects, state } from '../state';
import { badge, orgName, say, shortName, show, title } from '../ui';

/** Connected: tell the SDK (agentlink:success), then close the popup or, for a hosted link, go to the completion redirect. */
export function renderSuccess(success: NonNullable<LinkStepResult['success']>): void {
  state.finished = true;
  state.lastError = null;
  const v = currentView();
  const name = shortName(v.provider);
  const closing = mode === 'popup' && state.origin;
  const returning = redirects() && success.redirectUrl;
  show(
    'done',
    h(
      'div',
      { class: 'al-grow al-center' },
      badge('ok', 'check'),
      title('Connected!'),
      h('p', { class: 'al-lead' }, 'Your ' + name + ' account is now connected to ' + v.organization.name + '.'),
      h(
        'p',
        { class: 'al-muted' },
        returning || closing
          ? 'Returning you to ' + v.organization.name + '…'
          : mode === 'direct' || !state.origin
            ? 'You can close this window.'
            : 'All done.',
      ),
    ),
  );
  el.back.hidden = true;
  say('Connected. Your ' + name + ' account is now connected.');
  emit('HANDOFF', success.metadata);
  post({ type: LINK_MESSAGE_TYPES.success, publicToken: success.publicToken, metadata: success.metadata });
  if (closing) window.setTimeout(() => window.close(), 900);
  // A moment on "Connected!" first, so the person sees it worked; replace() keeps this finished page out of history.
  const redirectUrl = returning ? success.redirectUrl : undefined;
  if (redirectUrl) window.setTimeout(() => location.replace(redirectUrl), 600);
}

/** The end of an exit; `returning`: the completion redirect is on its way (the exit's answer carries it). */
export function renderClosed(returning: boolean): void {
  state.finished = true;
  const org = orgName();
  show(
    'error',
    h(
      'div',
      { class: 'al-grow al-center' },
      title(returning ? 'Returning you to ' + (org || 'the app') + '…' : 'You can close this window'),
      h('p', { class: 'al-lead' }, 'Your account was not connected.'),
    ),
  );
  el.close.hidden = true;
}
