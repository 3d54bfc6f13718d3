import { h } from '../dom';
import { liveStage, openLive, stopLive } from '../live-view';
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
  const live = liveStage({
    label: name + ' sign-in page. Click or tap to use it; keys you press go to the page. Press Escape, then Tab, to leave it.',
    keysLabel: 'Type on the ' + name + ' page',
    interactive: true,
    roleDescription: 'remote sign-in page',
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
      live.stage,
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
  openLive({ ...live, status, retry });
}
