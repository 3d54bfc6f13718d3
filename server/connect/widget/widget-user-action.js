/*
 * Connect widget, part: a paused agent run (a link token from the run's userAction). The person sees the run's own
 * page, live (the canvas and input of widget-live.js), with what the run waits for in words: a step to do on the page
 * ("Done" when it is done; the run also sees it by itself), or a write held at the network to approve or deny, shown
 * field by field. "I can't do this" leaves: the run then ends (USER_ACTION_EXITED). Answered, the widget ends with
 * agentlink:exit, error null and metadata.userActionOutcome (there is nothing to exchange).
 * server/connect/widget.routes.ts joins the parts, in order, into /link/widget.js inside one function scope.
 */

var TASK_COPY = {
  CODE: 'Enter the code on the page below',
  CAPTCHA: 'Finish the check on the page below',
  DEVICE_APPROVAL: 'Approve this sign-in on your device',
  APPROVAL: 'Approve this change?',
  OTHER: 'Finish this step on the page below',
};

function userActionMeta(outcome) {
  var ua = state.view && state.view.userAction;
  return { agentRequestId: ua ? ua.agentRequestId : null, userActionOutcome: outcome || null };
}

function renderUserAction() {
  stopLive();
  var v = state.view;
  var ua = v.userAction;
  var name = shortName(v.provider);
  if (!ua || ua.state !== 'waiting') return renderUserActionOver();
  var approval = ua.reason === 'APPROVAL';
  var status = h('p', { class: 'al-live-status', id: 'al-live-status', role: 'status', 'aria-live': 'polite' });
  // A write to approve needs no hand on the page (it is mid-send): the view is a picture, out of the Tab order.
  var canvas = h('canvas', {
    class: 'al-live-canvas al-run-canvas',
    id: 'al-live-canvas',
    tabindex: approval ? '-1' : '0',
    role: approval ? 'img' : 'application',
    'aria-roledescription': 'remote page',
    'aria-label': approval
      ? name + ' page of the task, as it is now.'
      : name + ' page of the task. Click or tap to use it; keys you press go to the page. Press Escape, then Tab, to leave it.',
    'aria-describedby': 'al-live-status',
    width: 360,
    height: 540,
  });
  var keys = h('textarea', {
    class: 'al-live-keys',
    id: 'al-live-keys',
    tabindex: '-1',
    'aria-label': 'Type on the ' + name + ' page',
    autocapitalize: 'off',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  var buttons = approval
    ? actions(
        button(
          'Approve',
          function () {
            answerUserAction('approve');
          },
          false,
          { id: 'al-approve' },
        ),
        button(
          'Deny',
          function () {
            answerUserAction('deny');
          },
          true,
          { id: 'al-deny' },
        ),
      )
    : actions(
        button(
          'Done',
          function () {
            answerUserAction('done');
          },
          false,
          { id: 'al-done' },
        ),
        button('I can’t do this', exit, true, { id: 'al-cant' }),
      );
  show(
    'task',
    h(
      'div',
      { class: 'al-grow al-live al-task' },
      h('div', { class: 'al-live-head' }, logo(v.provider), title(TASK_COPY[ua.reason] || TASK_COPY.OTHER)),
      h('p', { class: 'al-lead', id: 'al-task-message' }, ua.message || ''),
      h('p', { class: 'al-muted al-task-line' }, (orgName() || 'The app') + ' is doing this for you on ' + name + ': “' + ua.task + '”'),
      approval && ua.write ? writeSummary(ua.write) : null,
      status,
      h('div', { class: 'al-live-stage' }, canvas, keys),
      buttons,
      h('p', { class: 'al-muted', id: 'al-task-expiry' }, expiryText(ua.expiresAt)),
    ),
    // Focus starts on the heading, never on Approve: a stray Enter must not send anything.
  );
  live = {
    ws: null,
    canvas: canvas,
    ctx: canvas.getContext('2d'),
    status: status,
    retry: h('button', { hidden: true }),
    keys: keys,
    viewport: null,
    retries: 0,
    frames: 0,
    stopped: false,
    copy: {
      connecting: 'Connecting to the task’s page…',
      LIVE: 'This is the task’s page, live. Use it as you would on ' + name + '.',
      RUN_WORKING: 'The task is running on.',
    },
    // The run told the view what it does now: answered elsewhere, seen done by the run, or ended.
    onRun: function (m) {
      if (m.state === 'waiting' || state.answering) return;
      finishUserAction(m.state === 'ended' ? 'ENDED' : 'DONE');
    },
  };
  window.__agentlinkLive = { frames: 0, paintedAt: 0 };
  emit('OPEN_USER_ACTION', userActionMeta());
  say(TASK_COPY[ua.reason] || TASK_COPY.OTHER);
  bindLiveInput(live);
  connectLive(live);
}

/** The held write, field by field, masked as the trace masks it (the server sends it so). */
function writeSummary(write) {
  var rows = (write.fields || []).map(function (f) {
    return h('div', { class: 'al-write-row' }, h('dt', null, f.name), h('dd', null, f.value));
  });
  return h(
    'section',
    { class: 'al-write', 'aria-label': 'What would be sent' },
    h('p', { class: 'al-write-target' }, h('strong', null, write.method), ' ', write.url),
    rows.length
      ? h.apply(null, ['dl', { class: 'al-write-fields' }].concat(rows))
      : h('p', { class: 'al-muted' }, write.bodyBytes + ' bytes'),
  );
}

function expiryText(iso) {
  var t = Date.parse(iso);
  if (!t) return '';
  var minutes = Math.max(1, Math.round((t - Date.now()) / 60000));
  return 'The task waits ' + minutes + ' more minute' + (minutes === 1 ? '' : 's') + ' for you.';
}

function answerUserAction(decision) {
  if (state.answering) return;
  state.answering = true;
  emit(decision === 'approve' ? 'APPROVE_WRITE' : decision === 'deny' ? 'DENY_WRITE' : 'USER_ACTION_DONE', userActionMeta());
  run(
    function () {
      return api('/sessions/' + state.view.linkSessionId + '/user-action', { decision: decision });
    },
    function () {
      finishUserAction(decision === 'approve' ? 'APPROVED' : decision === 'deny' ? 'DENIED' : 'DONE');
    },
  );
}

/** The person's part is over: tell the app (exit, no error), show it, and close a popup. */
function finishUserAction(outcome) {
  if (state.finished) return;
  state.finished = true;
  state.lastError = null;
  stopLive();
  if (outcome === 'DONE' && !state.answering) emit('USER_ACTION_DONE', userActionMeta('DONE'));
  // The run ended without this person's answer (canceled, timed out, expired): the app hears why, as an error.
  var ua = state.view.userAction;
  var expired = ua && ua.expiresAt && Date.parse(ua.expiresAt) <= Date.now();
  var error =
    outcome !== 'ENDED'
      ? null
      : expired
        ? { code: 'USER_ACTION_EXPIRED', message: 'The task stopped waiting for you.' }
        : { code: 'USER_ACTION_ENDED', message: 'The task ended before your step was done.' };
  post({ type: MSG.exit, error: error, metadata: metadata(userActionMeta(outcome === 'ENDED' ? null : outcome)) });
  var org = orgName() || 'The app';
  var heading =
    outcome === 'DENIED' ? 'Denied. Nothing was sent.' : outcome === 'ENDED' ? 'The task has finished' : 'Thanks! ' + org + ' carries on.';
  var badge = h('span', { class: 'al-badge-icon al-badge-ok', 'aria-hidden': 'true' });
  badge.appendChild(icon('check'));
  show(
    'done',
    h(
      'div',
      { class: 'al-grow al-center' },
      badge,
      title(heading),
      h('p', { class: 'al-muted' }, mode === 'direct' || !state.origin ? 'You can close this window.' : 'All done.'),
    ),
  );
  say(heading);
  el.close.hidden = true;
  if (mode === 'popup' && state.origin) window.setTimeout(window.close.bind(window), 1200);
}

/** The ask this link was made for is over (answered, expired, or the run went on) before the person came. */
function renderUserActionOver() {
  state.finished = true;
  post({
    type: MSG.exit,
    error: { code: 'USER_ACTION_ENDED', message: 'The task is no longer waiting for you.' },
    metadata: metadata(userActionMeta()),
  });
  show(
    'error',
    h(
      'div',
      { class: 'al-grow al-center' },
      title('This step is over'),
      h('p', { class: 'al-lead' }, 'The task is no longer waiting for you. You can close this window.'),
    ),
  );
  el.close.hidden = true;
}
