import type { LoginRecipeDeclaration } from '../../../contract/provider-declaration';
import { defineProvider } from '../../providers/declaration';

/**
 * GitHub, a real provider of the production environment: production reaches only its domains; the sandbox
 * never does. The login recipe follows the site's sign-in page as published (labels and headings a person
 * sees); it is not exercised by the test suite, which never leaves loopback.
 */
const GITHUB_LOGIN: LoginRecipeDeclaration = {
  usernameLabel: 'Username or email address',
  form: {
    username: { label: 'Username or email address' },
    password: { label: 'Password' },
    submit: { role: 'button', name: 'Sign in' },
  },
  success: [{ pathNot: { pattern: '^\\/(login|session|sessions)(\\/|$)' }, cookie: 'user_session' }],
  invalidCredentials: [{ alert: { pattern: 'incorrect username or password', flags: 'i' } }],
  locked: [{ heading: { pattern: 'account (has been )?(suspended|locked)', flags: 'i' } }],
  mfa: {
    totp: {
      when: [{ path: { pattern: '^\\/sessions\\/two-factor(\\/app)?\\/?$' } }],
      code: { label: { pattern: 'authentication code', flags: 'i' } },
      submit: { role: 'button', name: 'Verify' },
      rejected: [{ alert: { pattern: 'two-factor authentication failed', flags: 'i' } }],
    },
    sms: {
      when: [{ path: { pattern: '^\\/sessions\\/two-factor\\/sms' } }],
      code: { label: { pattern: 'authentication code|sms code', flags: 'i' } },
      submit: { role: 'button', name: 'Verify' },
      rejected: [{ alert: { pattern: 'two-factor authentication failed', flags: 'i' } }],
    },
  },
};

export const githubProvider = defineProvider({
  providerId: '2f0c6a8e-1d4b-4c9a-9e3f-7b5a1c2d3e01',
  name: 'GitHub',
  slug: 'github',
  category: 'developer',
  environment: 'production',
  homeUrl: 'https://github.com/',
  loginUrl: 'https://github.com/login',
  // Exact hosts: the site, gists, its API, and the asset and avatar hosts its pages load.
  allowedOrigins: ['github.com', 'gist.github.com', 'api.github.com', 'github.githubassets.com', 'avatars.githubusercontent.com'],
  login: GITHUB_LOGIN,
  logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#24292f"/><circle cx="32" cy="30" r="14" fill="#fff"/></svg>',
});
