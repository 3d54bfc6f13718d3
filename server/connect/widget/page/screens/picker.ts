import type { LinkSessionView, WidgetProvider } from '../../../link-session.service';
import { api, run } from '../api';
import { h, icon } from '../dom';
import { nav } from '../nav';
import { emit } from '../sdk';
import { currentView, state } from '../state';
import { logo, say, show, title } from '../ui';

/** The provider picker, with a search field. */
export function renderPicker(): void {
  const v = currentView();
  const list = h('ul', { class: 'al-providers', 'aria-label': 'Providers', id: 'al-provider-list' });
  const empty = h('p', { class: 'al-empty', hidden: true });
  const input = h('input', {
    class: 'al-input',
    id: 'al-search',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-controls': 'al-provider-list',
    placeholder: 'Search by name',
  });
  const fill = () => {
    const q = input.value.trim().toLowerCase();
    const matches = v.providers.filter(
      (p) => !q || p.name.toLowerCase().indexOf(q) !== -1 || p.slug.indexOf(q) !== -1 || p.category.indexOf(q) !== -1,
    );
    list.replaceChildren(
      ...matches.map((p) =>
        h(
          'li',
          null,
          h(
            'button',
            { type: 'button', class: 'al-provider', 'data-provider-id': p.providerId, onclick: () => choose(p) },
            logo(p),
            h(
              'span',
              { class: 'al-provider-text' },
              h('span', { class: 'al-provider-name' }, p.name),
              p.categoryLabel ? h('span', { class: 'al-provider-meta' }, p.categoryLabel) : null,
            ),
            icon('chevron'),
          ),
        ),
      ),
    );
    empty.hidden = matches.length > 0;
    empty.textContent = 'No providers match “' + input.value.trim() + '”.';
    if (q) say(matches.length === 1 ? '1 provider' : matches.length + ' providers');
  };
  input.addEventListener('input', fill);
  fill();
  const content = h(
    'div',
    { class: 'al-grow' },
    title('Select your account provider'),
    h('p', { class: 'al-lead' }, 'Choose where your account is. You will sign in on the next step.'),
    h('div', { class: 'al-search' }, h('label', { class: 'al-sr-only', for: 'al-search' }, 'Search providers'), icon('search'), input),
    list,
    empty,
  );
  show('picker', content, { back: () => nav.consent() });
}

function choose(provider: WidgetProvider): void {
  emit('SELECT_PROVIDER', { providerId: provider.providerId, providerName: provider.name });
  run(
    () => api<LinkSessionView>('/sessions/' + currentView().linkSessionId + '/provider', { providerId: provider.providerId }),
    (view) => {
      state.view = view;
      nav.credentials();
    },
  );
}
