/*
 * Connect widget, part: talking to AgentLink and to the SDK, and the boot.
 * server/connect/widget.routes.ts joins the parts, in order, into /link/widget.js inside one function scope,
 * so a name declared in one part is visible in the others (see widget-kit.js).
 */

// ---------- talking to AgentLink ----------
function api(path, body) {
  return fetch(apiBase + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + state.token },
    body: JSON.stringify(body || {}),
    credentials: 'omit',
    cache: 'no-store',
  }).then(
    function (res) {
      return res
        .json()
        .catch(function () {
          return null;
        })
        .then(function (json) {
          if (res.ok) return json;
          throw (json && json.error) || { code: 'INTERNAL_ERROR', message: 'Something went wrong.' };
        });
    },
    function () {
      throw { code: 'NETWORK_ERROR', message: 'We could not reach AgentLink.' };
    },
  );
}

var inFlight = false;
function run(call, then) {
  if (inFlight) return;
  inFlight = true;
  state.lastAction = function () {
    run(call, then);
  };
  call().then(
    function (value) {
      inFlight = false;
      then(value);
    },
    function (err) {
      inFlight = false;
      onError(err, state.lastAction);
    },
  );
}

// ---------- talking to the SDK (only to the origin that sent agentlink:init) ----------
function post(message) {
  if (!target || !state.origin) return;
  try {
    target.postMessage(message, state.origin);
  } catch (e) {
    /* the opener went away */
  }
}
function metadata(extra) {
  var v = state.view;
  var m = {
    linkSessionId: v ? v.linkSessionId : null,
    providerId: v && v.provider ? v.provider.providerId : null,
    providerName: v && v.provider ? v.provider.name : null,
  };
  if (v && v.userAction) m.agentRequestId = v.userAction.agentRequestId;
  return Object.assign(m, extra || {});
}
function emit(eventName, extra) {
  post({ type: MSG.event, eventName: eventName, metadata: metadata(extra) });
}

function exit() {
  if (state.finished) {
    if (mode === 'popup') window.close();
    return;
  }
  state.finished = true;
  stopLive();
  var error = state.lastError || { code: 'USER_CLOSED', message: 'The user closed the connect flow.' };
  emit('EXIT');
  post({ type: MSG.exit, error: error, metadata: metadata() });
  var sessionId = state.view ? state.view.linkSessionId : state.refusedSessionId;
  // A hosted link whose token names a completionRedirectUri (or whose opening was refused: the answer tells) waits
  // for the exit's answer, which carries the redirect with status=exited and error_code.
  var returning = redirects() && !!sessionId && (!state.view || state.view.completionRedirect);
  if (sessionId && state.token) {
    var call = fetch(apiBase + '/sessions/' + sessionId + '/exit', {
      method: 'POST',
      keepalive: true,
      credentials: 'omit',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + state.token },
      body: JSON.stringify({ errorCode: error.code }),
    });
    call
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (answer) {
        if (redirects() && answer && typeof answer.redirectUrl === 'string') location.replace(answer.redirectUrl);
        else if (returning) renderClosed(false);
      })
      .catch(function () {
        if (returning) renderClosed(false);
      });
  }
  if (mode === 'popup') window.close();
  if (mode !== 'iframe') renderClosed(returning && !!state.view);
}

el.close.addEventListener('click', exit);
// Leaving the page ends the flow: in the SDK's popup or iframe, and for a hosted link too (its token left the address
// bar, so the page cannot be opened again; the session's end is reported at once rather than never). A page kept in
// the back/forward cache (persisted) may come back as it was, so it stays open.
window.addEventListener('pagehide', function (event) {
  if (!state.finished && (state.origin || (mode === 'direct' && state.view && !event.persisted))) exit();
});

function start() {
  renderLoading('Loading…');
  run(
    function () {
      return api('/sessions', state.env ? { env: state.env } : {});
    },
    function (view) {
      state.view = view;
      emit('OPEN');
      next();
    },
  );
}

// ---------- boot ----------
if (directToken) {
  state.token = directToken;
  state.env = params.get('env') === 'sandbox' || params.get('env') === 'production' ? params.get('env') : null;
  // Keep the token out of the address bar, the history and any Referer.
  history.replaceState(null, '', location.pathname);
  start();
  return;
}
if (!target) {
  onError({ code: 'NO_OPENER' });
  return;
}
var initialised = false;
window.addEventListener('message', function (event) {
  if (initialised || event.source !== target) return;
  var data = event.data;
  if (!data || data.type !== MSG.init || typeof data.linkToken !== 'string' || !data.linkToken) return;
  if (!event.origin || event.origin === 'null') return;
  initialised = true;
  state.origin = event.origin;
  state.token = data.linkToken;
  state.env = data.env === 'sandbox' || data.env === 'production' ? data.env : null;
  start();
});
var tries = 0;
(function ready() {
  if (initialised) return;
  if (tries++ >= 40) return onError({ code: 'NO_OPENER' });
  try {
    target.postMessage({ type: MSG.ready }, '*');
  } catch (e) {
    /* ignore */
  }
  window.setTimeout(ready, 250);
})();
