import { h } from '../dom';
import { openLive, stopLive } from '../live-view';
import { nav } from '../nav';
import { currentView } from '../state';
import { actions, logo, orgName, shortName, show, signInAsHint, title } from '../ui';

/**
 * The live sign-in: the provider's real sign-in page runs in AgentLink's fenced browser and is shown here, live
 * (live-view.ts); AgentLink sees when it is signed in, and the flow goes on.
 */
export function renderLive(): void {
  stopLive();
  const v = currentView();
  const provider = v.provider;
  if (!provider) throw new Error('The live sign-in needs a provider.');
  const name = shortName(provider);
  const status = h('p', { class: 'al-live-status', id: 'al-live-status', role: 'status', 'aria-live': 'polite' });
  const canvas = h('canvas', {
    class: 'al-live-canvas',
    id: 'al-live-canvas',
    tabindex: '0',
    role: 'application',
    'aria-roledescription': 'remote sign-in page',
    'aria-label': name + ' sign-in page. Click or tap to use it; keys you press go to the page. Press Escape, then Tab, to leave it.',
    'aria-describedby': 'al-live-status',
    width: 360,
    height: 540,
  });
  // Soft keyboards (phones) type into a real text field: it relays what it receives, then empties itself.
  const keys = h('textarea', {
    class: 'al-live-keys',
    id: 'al-live-keys',
    tabindex: '-1',
    'aria-label': 'Type on the ' + name + ' page',
    autocapitalize: 'off',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const retry = h(
    'button',
    { type: 'button', class: 'al-button al-button-secondary', id: 'al-live-retry', hidden: true },
    'Open the sign-in page again',
  );
  const lead =
    v.liveReason === 'unknown_step'
      ? name + ' asked for a step AgentLink cannot fill in for you. Finish signing in on ' + name + '’s page below.'
      : 'Sign in on ' + name + '’s own page below. It runs in a secure browser; ' + (orgName() || 'the app') + ' never sees your password.';
  show(
    'credentials',
    h(
      'div',
      { class: 'al-grow al-live' },
      h('div', { class: 'al-live-head' }, logo(provider), title('Sign in to ' + name)),
      h('p', { class: 'al-lead' }, lead),
      status,
      h('div', { class: 'al-live-stage' }, canvas, keys),
      signInAsHint(v, ' on the page above.'),
      actions(retry),
    ),
    {
      back: v.providerFixed
        ? null
        : () => {
            stopLive();
            nav.picker();
          },
    },
  );
  retry.addEventListener('click', () => renderLive());
  openLive({
    ws: null,
    canvas,
    ctx: canvas.getContext('2d'),
    status,
    retry,
    keys,
    viewport: null,
    retries: 0,
    frames: 0,
    stopped: false,
  });
}
