/*
 * AgentLink connect widget (served at /link). Plain JavaScript, no framework, no build step.
 *
 * Two ways in:
 *  - From the SDK (popup or iframe): post agentlink:ready to the opener/parent (target '*', nothing secret),
 *    wait for agentlink:init {linkToken, env} from it, remember event.origin, and from then on post
 *    agentlink:event / agentlink:success / agentlink:exit to that origin only (contract/link-messages.ts).
 *  - Directly at /link?token=… (a hosted link: e-mail, SMS, a mobile webview): the same flow. When the link token
 *    names a completionRedirectUri and this page is the top-level page, the flow ends by sending the browser there
 *    with the outcome in its query; otherwise it ends on a "You can close this window" page.
 *
 * The widget never signs in by itself: it sends the credentials to AgentLink, which drives the provider's
 * real sign-in page and relays any code or human check back here. Every call carries the link token in
 * the Authorization header; the token is removed from the address bar at once.
 */

// Parts: this file (constants, state, DOM helpers), widget-sign-in.js, widget-outcomes.js, widget-bridge.js;
// server/connect/widget.routes.ts joins them, in that order, into /link/widget.js inside one function scope
// (with 'use strict'), so a name declared in one part is visible in the others.

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
  LIVE_SESSIONS_FULL: 'PROVIDER_UNAVAILABLE',
  LIVE_SESSION_TIMED_OUT: 'PROVIDER_UNAVAILABLE',
  LIVE_NOT_SIGNED_IN: 'PROVIDER_UNAVAILABLE',
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
/**
 * Only a hosted link that is the top-level page follows the completion redirect. In the SDK's popup or iframe the app's
 * page gets the outcome by postMessage (its onSuccess / onExit); a redirect there would take the popup or the frame
 * somewhere the app does not expect. A /link?token=… page framed by someone else does not navigate either.
 */
function redirects() {
  return mode === 'direct' && window.top === window;
}

var state = {
  token: null,
  env: null,
  origin: null, // the SDK's origin, learnt from agentlink:init
  view: null,
  username: '',
  lastError: null,
  finished: false,
  lastAction: null,
  // The link session of an opening refused at once (expired or used link): its exit still returns to the app.
  refusedSessionId: null,
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
/** The sandbox's hint under a step (test users, codes); nothing in production. Arguments after `v`: the hint's parts. */
function sandboxHint(v) {
  if (v.environment !== 'sandbox') return null;
  var span = h('span', null);
  for (var i = 1; i < arguments.length; i++) append(span, arguments[i]);
  return h('p', { class: 'al-sandbox' }, icon('bolt'), span);
}
/** "Sandbox: sign in as user_good / pass_good" and what follows it. */
function signInAsHint(v, tail) {
  return sandboxHint(v, 'Sandbox: sign in as ', h('code', null, 'user_good'), ' / ', h('code', null, 'pass_good'), tail);
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
