import type { LinkSessionView } from '../../../link-session.service';
import { api, run } from '../api';
import { h, icon } from '../dom';
import { nav } from '../nav';
import { emit } from '../sdk';
import { currentView, state } from '../state';
import { actions, avatar, brandMark, button, dots, logo, shortName, show, title } from '../ui';

/** What the organization will be able to do, and how the account stays safe; Continue gives consent. */
export function renderConsent(): void {
  const v = currentView();
  const provider = v.providerFixed ? v.provider : null;
  const org = v.organization.name;
  const heading =
    v.mode === 'update'
      ? 'Reconnect your ' + shortName(v.provider) + ' account'
      : org + ' uses AgentLink to connect your ' + (provider ? shortName(provider) + ' ' : '') + 'account';
  const bullets = v.capabilities.map((c) => h('li', null, icon('check'), h('span', null, c)));
  const content = h(
    'div',
    { class: 'al-grow' },
    h('div', { class: 'al-logos' }, avatar(org), dots(), brandMark(), provider ? [dots(), logo(provider)] : null),
    h('div', { class: 'al-center' }, title(heading), v.environment === 'sandbox' ? h('span', { class: 'al-tag' }, 'Sandbox') : null),
    h('p', { class: 'al-lead', id: 'al-consent-lead' }, 'When you connect, ' + org + ' will be able to:'),
    h('ul', { class: 'al-bullets', 'aria-labelledby': 'al-consent-lead' }, bullets),
    h(
      'div',
      { class: 'al-panel' },
      h('p', { class: 'al-panel-title' }, 'How your account stays safe'),
      h(
        'ul',
        { class: 'al-notes' },
        h('li', null, icon('shield'), h('span', null, 'AgentLink signs in for you. ' + org + ' never sees your password.')),
        h(
          'li',
          null,
          icon('lock'),
          h(
            'span',
            null,
            v.rememberCredentials
              ? 'Your session and password are stored encrypted, so AgentLink can sign you back in when the session ends.'
              : 'Your session is stored encrypted; your password is not stored.',
          ),
        ),
        h('li', null, icon('clock'), h('span', null, 'You can disconnect at any time from ' + org + '.')),
      ),
    ),
    actions(button('Continue', onConsent)),
  );
  show('consent', content);
}

function onConsent(): void {
  emit('CONSENT_GIVEN');
  run(
    () => api<LinkSessionView>('/sessions/' + currentView().linkSessionId + '/consent'),
    (view) => {
      state.view = view;
      nav.next();
    },
  );
}
