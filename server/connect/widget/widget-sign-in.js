/*
 * Connect widget, part: the screens up to the sign-in: consent, provider picker, credentials, working.
 * server/connect/widget.routes.ts joins the parts, in order, into /link/widget.js inside one function scope,
 * so a name declared in one part is visible in the others (see widget-kit.js).
 */

// ---------- screens ----------
var PROGRESS = {
  loading: [5, 'Loading'],
  consent: [20, 'Review access'],
  picker: [40, 'Choose a provider'],
  credentials: [60, 'Sign in'],
  working: [70, 'Signing in'],
  task: [50, 'Your help is needed'],
  verify: [80, 'Verify it is you'],
  done: [100, 'Connected'],
  error: [null, 'Problem'],
};

function show(step, content, opts) {
  opts = opts || {};
  var p = PROGRESS[step];
  if (p[0] !== null) {
    el.fill.style.width = p[0] + '%';
    el.progress.setAttribute('aria-valuenow', String(p[0]));
  }
  el.progress.setAttribute('aria-valuetext', p[1]);
  el.back.hidden = !opts.back;
  el.back.onclick = opts.back || null;
  el.card.setAttribute('aria-busy', step === 'working' || step === 'loading' ? 'true' : 'false');
  el.screen.replaceChildren(content);
  el.screen.setAttribute('data-step', step);
  var title = el.screen.querySelector('h1');
  var focus = opts.focus ? el.screen.querySelector(opts.focus) : title;
  if (focus) focus.focus();
}

function title(text) {
  return h('h1', { id: 'al-title', class: 'al-title', tabindex: '-1' }, text);
}

function actions() {
  return h.apply(null, ['div', { class: 'al-actions' }].concat(Array.prototype.slice.call(arguments)));
}

function button(label, onclick, secondary, attrs) {
  var a = Object.assign({ type: 'button', class: 'al-button' + (secondary ? ' al-button-secondary' : ''), onclick: onclick }, attrs || {});
  return h('button', a, label);
}

function renderLoading(text) {
  show('loading', h('div', { class: 'al-center' }, h('span', { class: 'al-spinner', 'aria-hidden': 'true' }), title(text || 'Loading…')));
}

function renderConsent() {
  var v = state.view;
  var provider = v.providerFixed ? v.provider : null;
  var org = v.organization.name;
  var heading =
    v.mode === 'update'
      ? 'Reconnect your ' + shortName(v.provider) + ' account'
      : org + ' uses AgentLink to connect your ' + (provider ? shortName(provider) + ' ' : '') + 'account';
  var bullets = v.capabilities.map(function (c) {
    return h('li', null, icon('check'), h('span', null, c));
  });
  var content = h(
    'div',
    { class: 'al-grow', style: null },
    h('div', { class: 'al-logos' }, avatar(org), dots(), brandMark(), provider ? [dots(), logo(provider)] : null),
    h('div', { class: 'al-center' }, title(heading), v.environment === 'sandbox' ? h('span', { class: 'al-tag' }, 'Sandbox') : null),
    h('p', { class: 'al-lead', id: 'al-consent-lead' }, 'When you connect, ' + org + ' will be able to:'),
    h('ul', { class: 'al-bullets', 'aria-labelledby': 'al-consent-lead' }, bullets),
    h(
      'div',
      { class: 'al-panel' },
      h('p', { class: 'al-panel-title' }, 'How your account stays safe'),
      h(
        'ul',
        { class: 'al-notes' },
        h('li', null, icon('shield'), h('span', null, 'AgentLink signs in for you. ' + org + ' never sees your password.')),
        h(
          'li',
          null,
          icon('lock'),
          h(
            'span',
            null,
            v.rememberCredentials
              ? 'Your session and password are stored encrypted, so AgentLink can sign you back in when the session ends.'
              : 'Your session is stored encrypted; your password is not stored.',
          ),
        ),
        h('li', null, icon('clock'), h('span', null, 'You can disconnect at any time from ' + org + '.')),
      ),
    ),
    actions(button('Continue', onConsent)),
  );
  show('consent', content);
}

function onConsent() {
  emit('CONSENT_GIVEN');
  run(
    function () {
      return api('/sessions/' + state.view.linkSessionId + '/consent');
    },
    function (view) {
      state.view = view;
      next();
    },
  );
}

/** Shows the screen for where the flow stands. */
function next() {
  var v = state.view;
  if (v.mode === 'user_action') return renderUserAction();
  if (v.status === 'CONSENT') return renderConsent();
  if (v.status === 'PROVIDER' || (!v.provider && v.status === 'CREDENTIALS')) return renderPicker();
  if (v.status === 'MFA_TOTP' || v.status === 'MFA_SMS') return renderMfa();
  if (v.status === 'HUMAN_CHECK') return renderHuman();
  return renderCredentials();
}

function renderPicker() {
  var v = state.view;
  var list = h('ul', { class: 'al-providers', 'aria-label': 'Providers', id: 'al-provider-list' });
  var empty = h('p', { class: 'al-empty', hidden: true });
  var input = h('input', {
    class: 'al-input',
    id: 'al-search',
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-controls': 'al-provider-list',
    placeholder: 'Search by name',
  });
  function fill() {
    var q = input.value.trim().toLowerCase();
    var matches = v.providers.filter(function (p) {
      return !q || p.name.toLowerCase().indexOf(q) !== -1 || p.slug.indexOf(q) !== -1 || p.category.indexOf(q) !== -1;
    });
    list.replaceChildren.apply(
      list,
      matches.map(function (p) {
        return h(
          'li',
          null,
          h(
            'button',
            {
              type: 'button',
              class: 'al-provider',
              'data-provider-id': p.providerId,
              onclick: function () {
                choose(p);
              },
            },
            logo(p),
            h(
              'span',
              { class: 'al-provider-text' },
              h('span', { class: 'al-provider-name' }, p.name),
              h('span', { class: 'al-provider-meta' }, p.category === 'social' ? 'Social network' : 'Developer platform'),
            ),
            icon('chevron'),
          ),
        );
      }),
    );
    empty.hidden = matches.length > 0;
    empty.textContent = 'No providers match “' + input.value.trim() + '”.';
    if (q) say(matches.length === 1 ? '1 provider' : matches.length + ' providers');
  }
  input.addEventListener('input', fill);
  fill();
  var content = h(
    'div',
    { class: 'al-grow' },
    title('Select your account provider'),
    h('p', { class: 'al-lead' }, 'Choose where your account is. You will sign in on the next step.'),
    h('div', { class: 'al-search' }, h('label', { class: 'al-sr-only', for: 'al-search' }, 'Search providers'), icon('search'), input),
    list,
    empty,
  );
  show('picker', content, {
    back: function () {
      renderConsent();
    },
  });
}

function choose(provider) {
  emit('SELECT_PROVIDER', { providerId: provider.providerId, providerName: provider.name });
  run(
    function () {
      return api('/sessions/' + state.view.linkSessionId + '/provider', { providerId: provider.providerId });
    },
    function (view) {
      state.view = view;
      renderCredentials();
    },
  );
}

function renderCredentials(opts) {
  opts = opts || {};
  var v = state.view;
  if (v.signIn === 'live' && v.provider) return renderLive();
  var p = v.provider;
  var name = shortName(p);
  var fieldError = h('p', { class: 'al-field-error', id: 'al-form-error', role: 'alert', hidden: true });
  var user = h('input', {
    class: 'al-input',
    id: 'al-username',
    name: 'username',
    autocomplete: 'username',
    autocapitalize: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'al-form-error',
  });
  user.value = opts.keepUsername === false ? '' : state.username;
  var pass = h('input', {
    class: 'al-input',
    id: 'al-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    'aria-describedby': 'al-form-error',
  });
  var form = h(
    'form',
    { class: 'al-form', novalidate: true, 'aria-labelledby': 'al-title' },
    h('label', { class: 'al-label', for: 'al-username' }, p.usernameLabel || 'Username'),
    user,
    h('label', { class: 'al-label', for: 'al-password' }, 'Password'),
    pass,
    fieldError,
    signInAsHint(v, ' (or user_mfa, user_sms, user_locked, user_captcha).'),
    actions(
      h('button', { type: 'submit', class: 'al-button' }, 'Sign in'),
      v.providerFixed
        ? null
        : h(
            'button',
            {
              type: 'button',
              class: 'al-link-button',
              onclick: function () {
                renderPicker();
              },
            },
            'Choose a different provider',
          ),
    ),
  );
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var u = user.value.trim();
    var pw = pass.value;
    user.removeAttribute('aria-invalid');
    pass.removeAttribute('aria-invalid');
    if (!u || !pw) {
      var missing = !u ? user : pass;
      missing.setAttribute('aria-invalid', 'true');
      fieldError.hidden = false;
      fieldError.textContent = !u ? 'Enter your ' + (p.usernameLabel || 'username').toLowerCase() + '.' : 'Enter your password.';
      missing.focus();
      return;
    }
    state.username = u;
    pass.value = '';
    emit('SUBMIT_CREDENTIALS');
    submitLogin('/credentials', { username: u, password: pw }, 'Signing in to ' + name + '…');
  });
  var content = h(
    'div',
    { class: 'al-grow', style: null },
    h('div', { class: 'al-center' }, logo(p, true), title('Sign in to ' + name)),
    h(
      'p',
      { class: 'al-lead al-center' },
      'Enter your ' + name + ' credentials. AgentLink signs in for you; ' + (orgName() || 'the app') + ' never sees your password.',
    ),
    form,
  );
  show('credentials', content, {
    back: v.providerFixed
      ? null
      : function () {
          renderPicker();
        },
    focus: user.value ? '#al-password' : null,
  });
}

function renderWorking(text) {
  var p = state.view && state.view.provider;
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

function submitLogin(path, body, workingText) {
  renderWorking(workingText);
  run(function () {
    return api('/sessions/' + state.view.linkSessionId + path, body);
  }, onStep);
}

function onStep(result) {
  stopLive();
  state.view = result.view;
  if (result.success) return renderSuccess(result.success);
  next();
}
