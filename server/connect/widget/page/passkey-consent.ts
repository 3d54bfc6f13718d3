import { h } from './dom';

const BAR_ID = 'al-passkey-consent';

/**
 * The site asks to create a passkey (the organization opted in): the widget asks the person, above the live page and
 * outside it (nothing the page draws can look like it or press it), whether AgentLink may keep a passkey for the
 * site. `done`: the question is over (answered here or elsewhere): the bar goes.
 */
export function passkeyConsent(stage: HTMLElement | null, m: { host: string; done?: boolean }, answer: (allow: boolean) => void): void {
  document.getElementById(BAR_ID)?.remove();
  if (m.done || !stage) return;
  const decide = (allow: boolean) => () => {
    document.getElementById(BAR_ID)?.remove();
    answer(allow);
  };
  const allow = h('button', { type: 'button', class: 'al-button al-button-primary', id: 'al-passkey-allow' }, 'Allow');
  const notNow = h('button', { type: 'button', class: 'al-button', id: 'al-passkey-not-now' }, 'Not now');
  allow.addEventListener('click', decide(true));
  notNow.addEventListener('click', decide(false));
  const text = `Allow AgentLink to keep a passkey for ${m.host}`;
  const bar = h(
    'div',
    { class: 'al-passkey-consent', id: BAR_ID, role: 'alertdialog', 'aria-label': text },
    h('p', null, text, '? It signs you in again when your session ends. You can remove it at any time.'),
    allow,
    notNow,
  );
  stage.before(bar);
  allow.focus();
}
