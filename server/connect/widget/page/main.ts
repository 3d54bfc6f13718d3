'use strict';

/*
 * AgentLink connect widget (served at /link): the page's script, /link/widget.js. TypeScript modules with no framework,
 * bundled into one IIFE (server/page-code/page-bundle.ts; its entry is PAGE_ENTRIES.widget in page-code/entries.ts); widget.html is
 * served as it is, /link/widget.css joined from the files of widget/styles/ (widget.routes.ts). The modules import one way only: state.ts and dom.ts at the bottom, then ui.ts, sdk.ts,
 * api.ts, live-view.ts, the screens (screens/, which reach one another through nav.ts), flow.ts, and this boot.
 *
 * The widget never signs in by itself: it sends the credentials to AgentLink, which drives the provider's
 * real sign-in page and relays any code or human check back here. Every call carries the link token in
 * the Authorization header; the token is removed from the address bar at once.
 */

import { LINK_MESSAGE_TYPES } from '../../../../contract/link-messages';
import { exit, navigation, start } from './flow';
import { nav, setNavigation } from './nav';
import { directToken, el, mode, params, state, target } from './state';

setNavigation(navigation);

el.close.addEventListener('click', () => exit());
// Leaving the page ends the flow: in the SDK's popup or iframe, and for a hosted link too (its token left the address
// bar, so the page cannot be opened again; the session's end is reported at once rather than never). A page kept in
// the back/forward cache (persisted) may come back as it was, so it stays open.
window.addEventListener('pagehide', (event) => {
  if (!state.finished && (state.origin || (mode === 'direct' && state.view && !event.persisted))) exit();
});

boot();

function boot(): void {
  if (directToken) {
    state.token = directToken;
    const env = params.get('env');
    state.env = env === 'sandbox' || env === 'production' ? env : null;
    // Keep the token out of the address bar, the history and any Referer.
    history.replaceState(null, '', location.pathname);
    start();
    return;
  }
  const sdk = target;
  if (!sdk) {
    nav.failure({ code: 'NO_OPENER' });
    return;
  }
  let initialised = false;
  window.addEventListener('message', (event) => {
    if (initialised || event.source !== sdk) return;
    const data = event.data as { type?: unknown; linkToken?: unknown; env?: unknown } | null;
    if (!data || data.type !== LINK_MESSAGE_TYPES.init || typeof data.linkToken !== 'string' || !data.linkToken) return;
    if (!event.origin || event.origin === 'null') return;
    initialised = true;
    state.origin = event.origin;
    state.token = data.linkToken;
    state.env = data.env === 'sandbox' || data.env === 'production' ? data.env : null;
    start();
  });
  let tries = 0;
  // agentlink:ready until the SDK answers (10 s): carries nothing secret, so to any origin.
  const ready = () => {
    if (initialised) return;
    if (tries++ >= 40) return nav.failure({ code: 'NO_OPENER' });
    try {
      sdk.postMessage({ type: LINK_MESSAGE_TYPES.ready }, '*');
    } catch {
      /* ignore */
    }
    window.setTimeout(ready, 250);
  };
  ready();
}
