import { h } from '../dom';
import { type MfaOptions, nav } from '../nav';
import { emit } from '../sdk';
import { currentView } from '../state';
import { actions, badge, sandboxHint, shortName, show, title } from '../ui';
import { submitLogin } from './working';

/** The provider asks for a code (authenticator app or text message). */
export function renderMfa(opts: MfaOptions = {}): void {
  const v = currentView();
  const name = shortName(v.provider);
  const totp = !v.mfa || v.mfa.method === 'totp';
  const errorBox = opts.error ? h('div', { class: 'al-alert', role: 'alert' }, opts.error) : null;
  const code = h('input', {
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
  const form = h(
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
        { type: 'button', class: 'al-link-button', onclick: () => nav.credentials({ keepUsername: false }) },
        'Use a different account',
      ),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = code.value.replace(/\s+/g, '');
    if (!value) {
      code.setAttribute('aria-invalid', 'true');
      code.focus();
      return;
    }
    emit('SUBMIT_MFA');
    submitLogin('/mfa', { code: value }, 'Verifying your code…');
  });
  show(
    'verify',
    h(
      'div',
      { class: 'al-grow' },
      h(
        'div',
        { class: 'al-center' },
        badge('warn', totp ? 'key' : 'phone'),
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

/** The provider wants to make sure a person is signing in. */
export function renderHuman(): void {
  const v = currentView();
  const name = shortName(v.provider);
  const box = h('input', { type: 'checkbox', id: 'al-human' });
  const go = h('button', { type: 'submit', class: 'al-button', disabled: true }, 'Continue');
  box.addEventListener('change', () => {
    go.disabled = !box.checked;
  });
  const form = h(
    'form',
    { class: 'al-form', novalidate: true, 'aria-labelledby': 'al-title' },
    h('label', { class: 'al-check', for: 'al-human' }, box, h('span', null, 'I’m a person, not a robot')),
    actions(go),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!box.checked) return;
    emit('SUBMIT_HUMAN_CHECK');
    submitLogin('/human-check', { confirmed: true }, 'Confirming with ' + name + '…');
  });
  show(
    'verify',
    h(
      'div',
      { class: 'al-grow' },
      h(
        'div',
        { class: 'al-center' },
        badge('warn', 'person'),
        title('Confirm you’re a person'),
        h('p', { class: 'al-lead' }, name + ' wants to make sure a person is signing in. We pass your answer on to ' + name + '.'),
      ),
      form,
    ),
  );
}
