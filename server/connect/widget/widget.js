/*
 * AgentLink connect widget (served at /link). Plain JavaScript, no framework, no build step.
 *
 * Two ways in:
 *  - From the SDK (popup or iframe): post agentlink:ready to the opener/parent (target '*', nothing secret),
 *    wait for agentlink:init {linkToken, env} from it, remember event.origin, and from then on post
 *    agentlink:event / agentlink:success / agentlink:exit to that origin only (contract/link-messages.ts).
 *  - Directly at /link?token=…: the same flow; it ends on a "You can close this window" page.
 *
 * The widget never signs in by itself: it sends the credentials to AgentLink, which drives the provider's
 * real sign-in page and relays any code or human check back here. Every call carries the link token in
 * the Authorization header; the token is removed from the address bar at once.
 */
(function () {
  'use strict';

  var MSG = {
    ready: 'agentlink:ready',
    init: 'agentlink:init',
    event: 'agentlink:event',
    success: 'agentlink:success',
    exit: 'agentlink:exit',
  };
  var SDK_ERROR_CODES = {
    INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
    ACCOUNT_LOCKED: 'ACCOUNT_LOCKED',
    MFA_FAILED: 'MFA_FAILED',
    LOGIN_TIMED_OUT: 'MFA_FAILED',
    TOO_MANY_LOGIN_ATTEMPTS: 'INVALID_CREDENTIALS',
    LINK_TOKEN_EXPIRED: 'LINK_TOKEN_EXPIRED',
    LINK_TOKEN_ALREADY_USED: 'LINK_TOKEN_ALREADY_USED',
    INVALID_LINK_TOKEN: 'INVALID_LINK_TOKEN',
    LINK_SESSION_NOT_FOUND: 'INVALID_LINK_TOKEN',
    LINK_TOKEN_ENVIRONMENT_MISMATCH: 'ENVIRONMENT_MISMATCH',
    PROVIDER_UNAVAILABLE: 'PROVIDER_UNAVAILABLE',
  };
  var TERMINAL = {
    LINK_TOKEN_EXPIRED: true,
    LINK_TOKEN_ALREADY_USED: true,
    INVALID_LINK_TOKEN: true,
    LINK_SESSION_NOT_FOUND: true,
    LINK_TOKEN_ENVIRONMENT_MISMATCH: true,
    TOO_MANY_LOGIN_ATTEMPTS: true,
    NO_OPENER: true,
  };

  var apiBase = location.pathname.replace(/\/+$/, '') + '/api';
  var params = new URLSearchParams(location.search);
  var directToken = params.get('token');
  var target = directToken ? null : window.opener || (window.parent !== window ? window.parent : null);
  var mode = directToken ? 'direct' : window.opener ? 'popup' : window.parent !== window ? 'iframe' : 'direct';

  var state = {
    token: null,
    env: null,
    origin: null, // the SDK's origin, learnt from agentlink:init
    view: null,
    username: '',
    lastError: null,
    finished: false,
    lastAction: null,
  };

  var el = {
    screen: document.getElementById('al-screen'),
    back: document.getElementById('al-back'),
    close: document.getElementById('al-close'),
    progress: document.getElementById('al-progress'),
    fill: document.getElementById('al-progress-fill'),
    live: document.getElementById('al-live'),
    card: document.querySelector('.al-card'),
  };

  // ---------- tiny DOM helpers (text only: nothing from the server is parsed as HTML) ----------
  function h(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) return;
        if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), v);
        else if (k === 'class') node.className = v;
        else if (k === 'text') node.textContent = v;
        else node.setAttribute(k, v === true ? '' : String(v));
      });
    }
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child))
      return child.forEach(function (c) {
        append(node, c);
      });
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  var ICONS = {
    check:
      '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M5 12.5l4.5 4.5L19 7.5" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
    eye: '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z" fill="none" stroke="currentColor" stroke-width="1.8"/><circle cx="12" cy="12" r="3" fill="none" stroke="currentColor" stroke-width="1.8"/></svg>',
    bolt: '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M13 2L4 14h7l-1 8 9-12h-7z" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/></svg>',
    clock:
      '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" stroke-width="1.8"/><path d="M12 7v5l3 2" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/></svg>',
    shield:
      '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M12 3l8 3v6c0 4.5-3.4 8.3-8 9-4.6-.7-8-4.5-8-9V6z" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/><path d="M8.5 12l2.5 2.5 4.5-5" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"/></svg>',
    lock: '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M7 11V8a5 5 0 0 1 10 0v3M6 11h12v9H6z" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"/></svg>',
    search:
      '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><circle cx="11" cy="11" r="6.5" fill="none" stroke="currentColor" stroke-width="1.8"/><path d="M16 16l4 4" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/></svg>',
    chevron:
      '<svg class="al-chevron" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
    alert:
      '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M12 8v5M12 16.5v.5" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/><circle cx="12" cy="12" r="9.5" fill="none" stroke="currentColor" stroke-width="1.8"/></svg>',
    phone:
      '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><rect x="7" y="2.5" width="10" height="19" rx="2.5" fill="none" stroke="currentColor" stroke-width="1.8"/><path d="M11 18.5h2" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/></svg>',
    key: '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><circle cx="8" cy="15" r="4" fill="none" stroke="currentColor" stroke-width="1.8"/><path d="M11 12l8-8M16 7l2 2M14 9l2 2" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/></svg>',
    person:
      '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><circle cx="12" cy="8" r="4" fill="none" stroke="currentColor" stroke-width="1.8"/><path d="M4 21c1.5-4 4.5-6 8-6s6.5 2 8 6" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/></svg>',
    link: '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/></svg>',
  };
  function icon(name) {
    var t = document.createElement('template');
    t.innerHTML = ICONS[name]; // constant markup only
    return t.content.firstChild;
  }
  function say(text) {
    el.live.textContent = '';
    window.setTimeout(function () {
      el.live.textContent = text;
    }, 30);
  }
  function shortName(provider) {
    return provider ? provider.name.replace(/\s*\(.*\)$/, '') : 'your provider';
  }
  function orgName() {
    return state.view && state.view.organization ? state.view.organization.name : null;
  }
  function logo(provider, large) {
    return h('img', {
      class: 'al-logo' + (large ? ' al-logo-lg' : ''),
      src: provider.logo,
      alt: '',
      width: large ? 72 : 56,
      height: large ? 72 : 56,
    });
  }
  function avatar(name) {
    return h('span', { class: 'al-avatar', 'aria-hidden': 'true' }, (name || '?').trim().charAt(0).toUpperCase());
  }
  function brandMark() {
    var m = h('span', { class: 'al-brand-mark', 'aria-hidden': 'true' });
    m.appendChild(icon('link'));
    return m;
  }
  function dots() {
    return h('span', { class: 'al-link-dots', 'aria-hidden': 'true' }, h('span'), h('span'), h('span'));
  }

  // ---------- screens ----------
  var PROGRESS = {
    loading: [5, 'Loading'],
    consent: [20, 'Review access'],
    picker: [40, 'Choose a provider'],
    credentials: [60, 'Sign in'],
    working: [70, 'Signing in'],
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
    var a = Object.assign(
      { type: 'button', class: 'al-button' + (secondary ? ' al-button-secondary' : ''), onclick: onclick },
      attrs || {},
    );
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
      v.environment === 'sandbox'
        ? h(
            'p',
            { class: 'al-sandbox' },
            icon('bolt'),
            h(
              'span',
              null,
              'Sandbox: sign in as ',
              h('code', null, 'user_good'),
              ' / ',
              h('code', null, 'pass_good'),
              ' (or user_mfa, user_sms, user_locked, user_captcha).',
            ),
          )
        : null,
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
    state.view = result.view;
    if (result.success) return renderSuccess(result.success);
    next();
  }

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
      v.environment === 'sandbox'
        ? h(
            'p',
            { class: 'al-sandbox' },
            icon('bolt'),
            h(
              'span',
              null,
              totp ? 'Sandbox: user_mfa’s codes come from the published TOTP secret (see the README).' : 'Sandbox: the SMS code is ',
              totp ? null : h('code', null, '123456'),
            ),
          )
        : null,
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
          mode === 'direct' || !state.origin
            ? 'You can close this window.'
            : closing
              ? 'Returning you to ' + v.organization.name + '…'
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
      return [
        'Too many attempts',
        'For your security, this link is locked after too many sign-in attempts. Start again from the app.',
        null,
      ];
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
        if (['INVALID_CREDENTIALS', 'MFA_FAILED', 'LOGIN_TIMED_OUT', 'PROVIDER_UNAVAILABLE'].indexOf(code) !== -1)
          return renderCredentials();
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

  function renderClosed() {
    state.finished = true;
    show(
      'error',
      h(
        'div',
        { class: 'al-grow al-center' },
        title('You can close this window'),
        h('p', { class: 'al-lead' }, 'Your account was not connected.'),
      ),
    );
    el.close.hidden = true;
  }

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
    var error = state.lastError || { code: 'USER_CLOSED', message: 'The user closed the connect flow.' };
    emit('EXIT');
    post({ type: MSG.exit, error: error, metadata: metadata() });
    if (state.view && state.token) {
      fetch(apiBase + '/sessions/' + state.view.linkSessionId + '/exit', {
        method: 'POST',
        keepalive: true,
        credentials: 'omit',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + state.token },
        body: JSON.stringify({ errorCode: error.code }),
      }).catch(function () {});
    }
    if (mode === 'popup') window.close();
    if (mode !== 'iframe') renderClosed();
  }

  el.close.addEventListener('click', exit);
  window.addEventListener('pagehide', function () {
    if (!state.finished && state.origin) exit();
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
})();
