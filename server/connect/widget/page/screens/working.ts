import type { LinkStepResult } from '../../../link-session.service';
import { api, run } from '../api';
import { h } from '../dom';
import { nav } from '../nav';
import { currentView, state } from '../state';
import { logo, say, shortName, show, title } from '../ui';

/** AgentLink is signing in on the provider's page (a few seconds). */
export function renderWorking(text: string): void {
  const p = state.view && state.view.provider;
  show(
    'working',
    h(
      'div',
      { class: 'al-center' },
      h('div', { class: 'al-working' }, h('span', { class: 'al-spinner', 'aria-hidden': 'true' }), p ? logo(p) : null),
      title(text),
      h('p', { class: 'al-lead' }, 'This usually takes a few seconds.'),
      h(
        'ul',
        { class: 'al-steps', 'aria-label': 'What is happening' },
        h('li', null, 'Opening ' + shortName(p) + '’s sign-in page in a secure browser'),
        h('li', null, 'Signing in with your details'),
        h('li', null, 'Saving your encrypted session'),
      ),
    ),
  );
  say(text);
}

/** Sends a sign-in step (credentials, code, human check), showing the working screen until its answer. */
export function submitLogin(path: string, body: object, workingText: string): void {
  renderWorking(workingText);
  run(
    () => api<LinkStepResult>('/sessions/' + currentView().linkSessionId + path, body),
    (result) => nav.step(result),
  );
}
