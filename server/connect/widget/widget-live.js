/*
 * Connect widget, part: the live sign-in view. The provider's real sign-in page runs in AgentLink's fenced browser;
 * its frames (JPEG) arrive on a WebSocket and are painted on a canvas, and the person's pointer, wheel, keys, paste
 * and touch go back as small JSON events in the page's own coordinates (the canvas is scaled to fit the widget, so
 * every position is mapped). Protocol: server/connect/live/live-protocol.ts.
 * server/connect/widget.routes.ts joins the parts, in order, into /link/widget.js inside one function scope.
 */

var LIVE_COPY = {
  connecting: 'Connecting to the sign-in page…',
  reconnecting: 'Connection lost. Reconnecting…',
  LIVE: 'Sign in on the page below.',
  NAVIGATION_BLOCKED: 'That page is outside this sign-in and was blocked.',
  POPUP_BLOCKED: 'The page tried to open another window; it was closed.',
  SIGNED_IN: 'Signed in. Saving your session…',
  LIVE_SESSION_TIMED_OUT: 'The sign-in page was closed after a few minutes without activity.',
  LIVE_SESSIONS_FULL: 'Too many people are signing in right now. Try again in a minute.',
  LIVE_SESSION_CLOSED: 'The sign-in page was closed.',
  LIVE_REPLACED: 'The sign-in page was opened in another window.',
  LIVE_UNAUTHORIZED: 'This sign-in is no longer available. Go back to the app and start again.',
  LIVE_UNAVAILABLE: 'The sign-in page could not be opened right now.',
  LIVE_PROTOCOL_ERROR: 'The connection to the sign-in page failed.',
  RUN_ENDED: 'The task has finished.',
};
/** Close codes after which reconnecting cannot help (see live-socket.ts). */
var LIVE_FINAL = { 1000: true, 1008: true, 1013: true, 4401: true, 4408: true, 4409: true };
var LIVE_MAX_RETRIES = 6;

var live = null;

function stopLive() {
  if (!live) return;
  live.stopped = true;
  if (live.ws) live.ws.close(1000);
  live = null;
}

function renderLive() {
  stopLive();
  var v = state.view;
  var name = shortName(v.provider);
  var status = h('p', { class: 'al-live-status', id: 'al-live-status', role: 'status', 'aria-live': 'polite' });
  var canvas = h('canvas', {
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
  var keys = h('textarea', {
    class: 'al-live-keys',
    id: 'al-live-keys',
    tabindex: '-1',
    'aria-label': 'Type on the ' + name + ' page',
    autocapitalize: 'off',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  var retry = h(
    'button',
    { type: 'button', class: 'al-button al-button-secondary', id: 'al-live-retry', hidden: true },
    'Open the sign-in page again',
  );
  var stage = h('div', { class: 'al-live-stage' }, canvas, keys);
  var lead =
    v.liveReason === 'unknown_step'
      ? name + ' asked for a step AgentLink cannot fill in for you. Finish signing in on ' + name + '’s page below.'
      : 'Sign in on ' + name + '’s own page below. It runs in a secure browser; ' + (orgName() || 'the app') + ' never sees your password.';
  show(
    'credentials',
    h(
      'div',
      { class: 'al-grow al-live' },
      h('div', { class: 'al-live-head' }, logo(v.provider), title('Sign in to ' + name)),
      h('p', { class: 'al-lead' }, lead),
      status,
      stage,
      signInAsHint(v, ' on the page above.'),
      actions(retry),
    ),
    {
      back: v.providerFixed
        ? null
        : function () {
            stopLive();
            renderPicker();
          },
    },
  );
  live = {
    ws: null,
    canvas: canvas,
    ctx: canvas.getContext('2d'),
    status: status,
    retry: retry,
    keys: keys,
    viewport: null,
    retries: 0,
    frames: 0,
    stopped: false,
  };
  window.__agentlinkLive = { frames: 0, paintedAt: 0 };
  retry.addEventListener('click', function () {
    renderLive();
  });
  bindLiveInput(live);
  connectLive(live);
}

function liveStatus(l, code, message, host) {
  // A view of a paused run has its own words for some states (l.copy); the sign-in's otherwise.
  l.status.textContent = (l.copy && l.copy[code]) || LIVE_COPY[code] || message || '';
  if (host && code === 'NAVIGATION_BLOCKED') l.status.textContent = 'Blocked: ' + host + ' is outside this sign-in.';
  l.status.setAttribute('data-code', code);
  l.status.className =
    'al-live-status' + (/BLOCKED|TIMED_OUT|FULL|UNAUTHORIZED|UNAVAILABLE|ERROR|CLOSED|REPLACED/.test(code) ? ' al-live-warn' : '');
}

function liveSize() {
  var width = Math.max(320, Math.min(el.screen.clientWidth || 360, 480));
  var height = Math.max(480, Math.min(Math.round(width * 1.5), Math.max(480, window.innerHeight - 120)));
  return { width: width, height: height };
}

function connectLive(l) {
  if (l.stopped) return;
  liveStatus(l, l.retries ? 'reconnecting' : 'connecting');
  var url =
    (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + apiBase + '/sessions/' + state.view.linkSessionId + '/live';
  var ws = new WebSocket(url);
  ws.binaryType = 'blob';
  l.ws = ws;
  ws.onopen = function () {
    var size = liveSize();
    ws.send(JSON.stringify({ t: 'hello', linkToken: state.token, width: size.width, height: size.height }));
  };
  ws.onmessage = function (event) {
    if (typeof event.data !== 'string') return paintFrame(l, event.data);
    var m;
    try {
      m = JSON.parse(event.data);
    } catch (e) {
      return;
    }
    if (m.type === 'viewport') {
      l.viewport = { width: m.width, height: m.height };
      l.canvas.width = m.width;
      l.canvas.height = m.height;
      l.retries = 0;
    } else if (m.type === 'run') {
      if (l.onRun) l.onRun(m);
      if (m.state === 'working') liveStatus(l, 'RUN_WORKING');
    } else if (m.type === 'status') {
      liveStatus(l, m.code, m.message, m.host);
      // A paused run's view: the run ended, or is no longer there to show (its step is over).
      if ((m.code === 'RUN_ENDED' || m.code === 'LIVE_UNAUTHORIZED') && l.onRun) l.onRun({ state: 'ended' });
      if (m.code === 'SIGNED_IN') finishLive(l);
      if (m.code === 'LIVE_SESSION_TIMED_OUT' || m.code === 'LIVE_SESSIONS_FULL' || m.code === 'LIVE_UNAVAILABLE') {
        l.retry.hidden = false;
        state.lastError = { code: 'PROVIDER_UNAVAILABLE', message: LIVE_COPY[m.code] };
      }
    }
  };
  ws.onclose = function (event) {
    if (l.ws !== ws || l.stopped) return;
    l.ws = null;
    if (LIVE_FINAL[event.code] || l.done) return;
    if (l.retries >= LIVE_MAX_RETRIES) {
      liveStatus(l, 'LIVE_PROTOCOL_ERROR');
      l.retry.hidden = false;
      return;
    }
    l.retries++;
    liveStatus(l, 'reconnecting');
    window.setTimeout(
      function () {
        connectLive(l);
      },
      Math.min(4000, 250 * Math.pow(2, l.retries)),
    );
  };
}

function paintFrame(l, blob) {
  createImageBitmap(blob).then(
    function (bitmap) {
      if (l.stopped) return;
      l.ctx.drawImage(bitmap, 0, 0, l.canvas.width, l.canvas.height);
      bitmap.close();
      l.frames++;
      window.__agentlinkLive.frames = l.frames;
      window.__agentlinkLive.paintedAt = performance.now();
    },
    function () {},
  );
}

function finishLive(l) {
  if (l.done) return;
  l.done = true;
  emit('SUBMIT_CREDENTIALS');
  run(
    function () {
      return api('/sessions/' + state.view.linkSessionId + '/live/finish');
    },
    function (result) {
      stopLive();
      onStep(result);
    },
  );
}

function liveSend(l, message) {
  if (l.ws && l.ws.readyState === 1) l.ws.send(JSON.stringify(message));
}

/** The page's own coordinates of a point on the (scaled) canvas. */
function livePoint(l, clientX, clientY) {
  var r = l.canvas.getBoundingClientRect();
  var vw = l.viewport ? l.viewport.width : l.canvas.width;
  var vh = l.viewport ? l.viewport.height : l.canvas.height;
  return {
    x: Math.round(((clientX - r.left) * vw) / Math.max(1, r.width)),
    y: Math.round(((clientY - r.top) * vh) / Math.max(1, r.height)),
  };
}

function liveMods(e) {
  return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
}

var LIVE_BUTTONS = ['left', 'middle', 'right'];

function bindLiveInput(l) {
  var c = l.canvas;
  var pendingMove = null;
  var touches = {};
  function touchList() {
    return Object.keys(touches).map(function (k) {
      return touches[k];
    });
  }
  c.addEventListener('pointerdown', function (e) {
    c.focus();
    var p = livePoint(l, e.clientX, e.clientY);
    if (e.pointerType === 'touch') {
      touches[e.pointerId] = p;
      liveSend(l, { t: 'touch', phase: 'start', points: touchList().slice(0, 5) });
    } else {
      liveSend(l, {
        t: 'down',
        x: p.x,
        y: p.y,
        button: LIVE_BUTTONS[e.button] || 'left',
        clickCount: Math.min(3, Math.max(1, e.detail || 1)),
        mods: liveMods(e),
      });
    }
    try {
      c.setPointerCapture(e.pointerId);
    } catch (err) {
      /* not capturable */
    }
    e.preventDefault();
  });
  c.addEventListener('pointermove', function (e) {
    var p = livePoint(l, e.clientX, e.clientY);
    if (e.pointerType === 'touch') {
      if (!touches[e.pointerId]) return;
      touches[e.pointerId] = p;
      liveSend(l, { t: 'touch', phase: 'move', points: touchList().slice(0, 5) });
      return;
    }
    // One move per animation frame is all the page can show.
    var first = !pendingMove;
    pendingMove = { t: 'move', x: p.x, y: p.y, buttons: e.buttons & 7, mods: liveMods(e) };
    if (first)
      window.requestAnimationFrame(function () {
        if (pendingMove) liveSend(l, pendingMove);
        pendingMove = null;
      });
  });
  function up(e) {
    var p = livePoint(l, e.clientX, e.clientY);
    if (e.pointerType === 'touch') {
      if (!touches[e.pointerId]) return;
      delete touches[e.pointerId];
      liveSend(l, { t: 'touch', phase: e.type === 'pointercancel' ? 'cancel' : 'end', points: touchList().slice(0, 5) });
      return;
    }
    if (e.type === 'pointercancel') return;
    if (pendingMove) {
      liveSend(l, pendingMove);
      pendingMove = null;
    }
    liveSend(l, {
      t: 'up',
      x: p.x,
      y: p.y,
      button: LIVE_BUTTONS[e.button] || 'left',
      clickCount: Math.min(3, Math.max(1, e.detail || 1)),
      mods: liveMods(e),
    });
  }
  c.addEventListener('pointerup', up);
  c.addEventListener('pointercancel', up);
  c.addEventListener('contextmenu', function (e) {
    e.preventDefault();
  });
  c.addEventListener(
    'wheel',
    function (e) {
      var p = livePoint(l, e.clientX, e.clientY);
      var scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      liveSend(l, { t: 'wheel', x: p.x, y: p.y, dx: e.deltaX * scale, dy: e.deltaY * scale, mods: liveMods(e) });
      e.preventDefault();
    },
    { passive: false },
  );
  // Escape hands the keyboard back to the widget for one Tab (so a keyboard user can leave the page).
  var released = false;
  function onKey(e) {
    if (released && e.key === 'Tab') return;
    if (e.type === 'keydown') released = e.key === 'Escape';
    // Pasting goes through the paste event (text only); the page never reads the clipboard itself.
    if ((e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V')) return;
    // Composition (IME, some soft keyboards): the text arrives as input on the text field.
    if (e.isComposing || e.key === 'Process' || e.key === 'Unidentified' || e.key === 'Dead') return;
    liveSend(l, { t: e.type, key: e.key, code: e.code, mods: liveMods(e) });
    e.preventDefault();
  }
  [c, l.keys].forEach(function (target) {
    target.addEventListener('keydown', onKey);
    target.addEventListener('keyup', onKey);
    target.addEventListener('paste', function (e) {
      var text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
      if (text) liveSend(l, { t: 'text', text: text.slice(0, 2000) });
      e.preventDefault();
    });
  });
  l.keys.addEventListener('input', function () {
    if (l.keys.value) liveSend(l, { t: 'text', text: l.keys.value.slice(0, 2000) });
    l.keys.value = '';
  });
  // On touch screens the page's fields need the phone's keyboard: tapping the view opens it.
  c.addEventListener('pointerup', function (e) {
    if (e.pointerType === 'touch') l.keys.focus({ preventScroll: true });
  });
}
