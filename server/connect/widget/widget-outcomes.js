/*
 * Connect widget, part: the screens after the sign-in: code step, human check, success, errors, closed.
 * server/connect/widget.routes.ts joins the parts, in order, into /link/widget.js inside one function scope,
 * so a name declared in one part is visible in the others (see widget-kit.js).
 */

function renderMfa(opts) {
  opts = opts || {};
  var v = state.view;
  var name = shortName(v.provider);
  var totp = !v.mfa || v.mfa.method === 'totp';
  var errorBox = opts.error ? h('div', { class: 'al-alert', role: 'alert' }, opts.error) : null;
  var code = h('input', {
    class: 'al-input al-code',
    id: 'al-code',
    name: 'code',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    maxlength: '10',
    required: true,
    'aria-invalid': opts.error ? 'true' : null,
    'aria-describedby': 'al-code-hint',
  });
  var form = h(
    'form',
    { class: 'al-form', novalidate: true, 'aria-labelledby': 'al-title' },
    errorBox,
    h('label', { class: 'al-label', for: 'al-code' }, 'Verification code'),
    code,
    sandboxHint(
      v,
      totp ? 'Sandbox: user_mfa’s codes come from the published TOTP secret (see the README).' : 'Sandbox: the SMS code is ',
      totp ? null : h('code', null, '123456'),
    ),
    actions(
      h('button', { type: 'submit', class: 'al-button' }, 'Verify'),
      h(
        'button',
        {
          type: 'button',
          class: 'al-link-button',
          onclick: function () {
            renderCredentials({ keepUsername: false });
          },
        },
        'Use a different account',
      ),
    ),
  );
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var value = code.value.replace(/\s+/g, '');
    if (!value) {
      code.setAttribute('aria-invalid', 'true');
      code.focus();
      return;
    }
    emit('SUBMIT_MFA');
    submitLogin('/mfa', { code: value }, 'Verifying your code…');
  });
  var badge = h('span', { class: 'al-badge-icon al-badge-warn', 'aria-hidden': 'true' });
  badge.appendChild(icon(totp ? 'key' : 'phone'));
  show(
    'verify',
    h(
      'div',
      { class: 'al-grow' },
      h(
        'div',
        { class: 'al-center' },
        badge,
        title(totp ? 'Enter your authenticator code' : 'Enter the code we texted you'),
        h(
          'p',
          { class: 'al-lead', id: 'al-code-hint' },
          totp
            ? name + ' asks for the 6-digit code from your authenticator app.'
            : name + ' sent a text message with a 6-digit code to your phone.',
        ),
      ),
      form,
    ),
    { focus: opts.error ? '#al-code' : null },
  );
}

function renderHuman() {
  var v = state.view;
  var name = shortName(v.provider);
  var box = h('input', { type: 'checkbox', id: 'al-human' });
  var go = h('button', { type: 'submit', class: 'al-button', disabled: true }, 'Continue');
  box.addEventListener('change', function () {
    go.disabled = !box.checked;
  });
  var form = h(
    'form',
    { class: 'al-form', novalidate: true, 'aria-labelledby': 'al-title' },
    h('label', { class: 'al-check', for: 'al-human' }, box, h('span', null, 'I’m a person, not a robot')),
    actions(go),
  );
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    if (!box.checked) return;
    emit('SUBMIT_HUMAN_CHECK');
    submitLogin('/human-check', { confirmed: true }, 'Confirming with ' + name + '…');
  });
  var badge = h('span', { class: 'al-badge-icon al-badge-warn', 'aria-hidden': 'true' });
  badge.appendChild(icon('person'));
  show(
    'verify',
    h(
      'div',
      { class: 'al-grow' },
      h(
        'div',
        { class: 'al-center' },
        badge,
        title('Confirm you’re a person'),
        h('p', { class: 'al-lead' }, name + ' wants to make sure a person is signing in. We pass your answer on to ' + name + '.'),
      ),
      form,
    ),
  );
}

function renderSuccess(success) {
  state.finished = true;
  state.lastError = null;
  var v = state.view;
  var name = shortName(v.provider);
  var badge = h('span', { class: 'al-badge-icon al-badge-ok', 'aria-hidden': 'true' });
  badge.appendChild(icon('check'));
  var closing = mode === 'popup' && state.origin;
  var returning = redirects() && success.redirectUrl;
  show(
    'done',
    h(
      'div',
      { class: 'al-grow al-center' },
      badge,
      title('Connected!'),
      h('p', { class: 'al-lead' }, 'Your ' + name + ' account is now connected to ' + v.organization.name + '.'),
      h(
        'p',
        { class: 'al-muted' },
        returning || closing
          ? 'Returning you to ' + v.organization.name + '…'
          : mode === 'direct' || !state.origin
            ? 'You can close this window.'
            : 'All done.',
      ),
    ),
  );
  el.back.hidden = true;
  say('Connected. Your ' + name + ' account is now connected.');
  emit('HANDOFF', success.metadata);
  post({ type: MSG.success, publicToken: success.publicToken, metadata: success.metadata });
  if (closing)
    window.setTimeout(function () {
      window.close();
    }, 900);
  // A moment on "Connected!" first, so the person sees it worked; replace() keeps this finished page out of history.
  if (returning)
    window.setTimeout(function () {
      location.replace(success.redirectUrl);
    }, 600);
}

var ERROR_COPY = {
  INVALID_CREDENTIALS: function (name) {
    return ['Incorrect username or password', name + ' didn’t accept those details. Check them and try again.', 'Try again'];
  },
  ACCOUNT_LOCKED: function (name) {
    return [
      'Your ' + name + ' account is locked',
      name + ' has locked this account. Unlock it on ' + name + ' first, or sign in with a different account.',
      'Use a different account',
    ];
  },
  MFA_FAILED: function (name) {
    return ['Verification failed', name + ' stopped accepting codes for this sign-in. Sign in again to get a new code.', 'Start again'];
  },
  LOGIN_TIMED_OUT: function () {
    return ['Verification timed out', 'The verification step wasn’t finished in time. Sign in again to get a new code.', 'Start again'];
  },
  PROVIDER_UNAVAILABLE: function (name) {
    return [
      name + ' isn’t responding',
      'We couldn’t complete the sign-in on ' + name + ' right now. This is usually temporary.',
      'Try again',
    ];
  },
  TOO_MANY_LOGIN_ATTEMPTS: function () {
    return ['Too many attempts', 'For your security, this link is locked after too many sign-in attempts. Start again from the app.', null];
  },
  LINK_TOKEN_EXPIRED: function () {
    return [
      'This link has expired',
      'For your security, connection links only work for a short time. Go back to the app and start again.',
      null,
    ];
  },
  LINK_TOKEN_ALREADY_USED: function () {
    return [
      'This link was already used',
      'This connection link has already connected an account. Go back to the app to start a new connection.',
      null,
    ];
  },
  INVALID_LINK_TOKEN: function () {
    return ['This link isn’t valid', 'The connection link is incomplete or unknown. Go back to the app and start again.', null];
  },
  LINK_SESSION_NOT_FOUND: function () {
    return ['This link isn’t valid', 'The connection link is incomplete or unknown. Go back to the app and start again.', null];
  },
  LINK_TOKEN_ENVIRONMENT_MISMATCH: function () {
    return ['Wrong environment', 'This link was made for a different environment (sandbox or production) than the app asked for.', null];
  },
  NO_OPENER: function () {
    return [
      'Open this from your app',
      'This page is opened by an app that connects your account. Go back to the app and start again.',
      null,
    ];
  },
  NETWORK_ERROR: function () {
    return ['You seem to be offline', 'We couldn’t reach AgentLink. Check your connection and try again.', 'Try again'];
  },
};

/** A failure: record it, tell the SDK, and show what the person can do next. */
function onError(err, retry) {
  var code = err && err.code ? err.code : 'INTERNAL_ERROR';
  var details = (err && err.details) || {};
  if (details.linkSessionId && state.view) state.view.status = details.status || state.view.status;
  if (details.linkSessionId && !state.view) state.refusedSessionId = details.linkSessionId;
  state.lastError = {
    code: SDK_ERROR_CODES[code] || 'INTERNAL_ERROR',
    message: err && err.message ? err.message : 'Something went wrong.',
  };
  emit('ERROR');
  if (code === 'MFA_FAILED' && details.retryable && state.view) {
    return renderMfa({ error: err.message || 'That code didn’t work. Try again.' });
  }
  var name = shortName(state.view && state.view.provider);
  var copy = (
    ERROR_COPY[code] ||
    function () {
      return ['Something went wrong', 'That didn’t work on our side. Try again in a moment.', 'Try again'];
    }
  )(name);
  var terminal = TERMINAL[code] || details.status === 'FAILED';
  var primary = null;
  if (!terminal && copy[2]) {
    primary = button(copy[2], function () {
      if (code === 'ACCOUNT_LOCKED') return renderCredentials({ keepUsername: false });
      if (['INVALID_CREDENTIALS', 'MFA_FAILED', 'LOGIN_TIMED_OUT', 'PROVIDER_UNAVAILABLE'].indexOf(code) !== -1) return renderCredentials();
      if (retry) return retry();
      if (state.view) return next();
      return start();
    });
  }
  var org = orgName();
  var leave = button(
    org ? 'Return to ' + org : 'Close window',
    function () {
      exit();
    },
    !!primary,
  );
  var badge = h('span', { class: 'al-badge-icon ' + (terminal ? 'al-badge-warn' : 'al-badge-error'), 'aria-hidden': 'true' });
  badge.appendChild(icon('alert'));
  show(
    'error',
    h(
      'div',
      { class: 'al-grow al-center' },
      badge,
      title(copy[0]),
      h('div', { role: 'alert' }, h('p', { class: 'al-lead' }, copy[1])),
      h('p', { class: 'al-error-code' }, 'Error code: ' + (SDK_ERROR_CODES[code] || code)),
      actions(primary, leave),
    ),
    { back: null },
  );
}

/** The end of an exit; `returning`: the completion redirect is on its way (the exit's answer carries it). */
function renderClosed(returning) {
  state.finished = true;
  var org = orgName();
  show(
    'error',
    h(
      'div',
      { class: 'al-grow al-center' },
      title(returning ? 'Returning you to ' + (org || 'the app') + '…' : 'You can close this window'),
      h('p', { class: 'al-lead' }, 'Your account was not connected.'),
    ),
  );
  el.close.hidden = true;
}
