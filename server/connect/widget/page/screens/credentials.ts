import { h } from '../dom';
import { type CredentialsOptions, nav } from '../nav';
import { emit } from '../sdk';
import { currentView, state } from '../state';
import { actions, logo, orgName, shortName, show, signInAsHint, title } from '../ui';
import { renderLive } from './live-sign-in';
import { submitLogin } from './working';

/** The username and password form (or the provider's live page, when the sign-in is live). */
export function renderCredentials(opts: CredentialsOptions = {}): void {
  const v = currentView();
  if (v.signIn === 'live' && v.provider) return renderLive();
  const p = v.provider;
  if (!p) throw new Error('The sign-in needs a provider.');
  const name = shortName(p);
  const fieldError = h('p', { class: 'al-field-error', id: 'al-form-error', role: 'alert', hidden: true });
  const user = h('input', {
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
  const pass = h('input', {
    class: 'al-input',
    id: 'al-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    'aria-describedby': 'al-form-error',
  });
  const form = h(
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
        : h('button', { type: 'button', class: 'al-link-button', onclick: () => nav.picker() }, 'Choose a different provider'),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const u = user.value.trim();
    const pw = pass.value;
    user.removeAttribute('aria-invalid');
    pass.removeAttribute('aria-invalid');
    if (!u || !pw) {
      const missing = !u ? user : pass;
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
  const content = h(
    'div',
    { class: 'al-grow' },
    h('div', { class: 'al-center' }, logo(p, true), title('Sign in to ' + name)),
    h(
      'p',
      { class: 'al-lead al-center' },
      'Enter your ' + name + ' credentials. AgentLink signs in for you; ' + (orgName() || 'the app') + ' never sees your password.',
    ),
    form,
  );
  show('credentials', content, {
    back: v.providerFixed ? null : () => nav.picker(),
    focus: user.value ? '#al-password' : null,
  });
}
