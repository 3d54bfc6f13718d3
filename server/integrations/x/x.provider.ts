import type { LoginRecipeDeclaration } from '../../../contract/provider-declaration';
import { defineProvider } from '../../providers/declaration';

/**
 * X, a real provider of the production environment: production reaches only its domains; the sandbox
 * never does. The login recipe follows the site's sign-in page as published (labels and headings a person
 * sees); it is not exercised by the test suite, which never leaves loopback.
 */
const X_LOGIN: LoginRecipeDeclaration = {
  usernameLabel: 'Phone, email, or username',
  form: {
    username: { label: { pattern: 'phone, email,? or username', flags: 'i' } },
    next: { role: 'button', name: 'Next' },
    password: { label: 'Password' },
    submit: { role: 'button', name: 'Log in' },
  },
  success: [{ pathNot: { pattern: '^\\/i\\/flow\\/' }, cookie: 'auth_token' }],
  invalidCredentials: [{ alert: { pattern: 'wrong password|could not find your account', flags: 'i' } }],
  locked: [{ heading: { pattern: 'account (is )?(locked|suspended)', flags: 'i' } }],
  mfa: {
    totp: {
      when: [{ heading: { pattern: 'enter your verification code', flags: 'i' } }],
      code: { css: 'input[data-testid="ocfEnterTextTextInput"]' },
      submit: { role: 'button', name: 'Next' },
      rejected: [{ alert: { pattern: '(code|verification).*(not correct|incorrect|try again)', flags: 'i' } }],
    },
    sms: {
      when: [{ heading: { pattern: '(check your phone|we sent you a code)', flags: 'i' } }],
      code: { css: 'input[data-testid="ocfEnterTextTextInput"]' },
      submit: { role: 'button', name: 'Next' },
      rejected: [{ alert: { pattern: '(code|verification).*(not correct|incorrect|try again)', flags: 'i' } }],
    },
  },
};

export const xProvider = defineProvider({
  providerId: 'c8e1f2a3-4b5c-4d6e-8f70-91a2b3c4d503',
  name: 'X',
  slug: 'x',
  category: 'social',
  environment: 'production',
  homeUrl: 'https://x.com/',
  loginUrl: 'https://x.com/i/flow/login',
  // Exact hosts: the site under both names, its API, and the script and media hosts its pages load.
  allowedOrigins: ['x.com', 'twitter.com', 'api.x.com', 'abs.twimg.com', 'pbs.twimg.com'],
  login: X_LOGIN,
  logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#000"/><path d="M18 16 L46 48 M46 16 L18 48" stroke="#fff" stroke-width="5"/></svg>',
});
