import type { LoginRecipe } from '../../providers/login-recipe';
import type { ProviderDefinition } from '../../providers/provider';

/**
 * GitHub, a real provider of the production environment: production reaches only its domains; the sandbox
 * never does. The login recipe follows the site's sign-in page as published (labels and headings a person
 * sees); it is not exercised by the test suite, which never leaves loopback.
 */
const GITHUB_LOGIN: LoginRecipe = {
  usernameLabel: 'Username or email address',
  form: {
    username: { label: 'Username or email address' },
    password: { label: 'Password' },
    submit: { role: 'button', name: 'Sign in' },
  },
  success: [{ pathNot: /^\/(login|session|sessions)(\/|$)/, cookie: 'user_session' }],
  invalidCredentials: [{ alert: /incorrect username or password/i }],
  locked: [{ heading: /account (has been )?(suspended|locked)/i }],
  mfa: {
    totp: {
      when: [{ path: /^\/sessions\/two-factor(\/app)?\/?$/ }],
      code: { label: /authentication code/i },
      submit: { role: 'button', name: 'Verify' },
      rejected: [{ alert: /two-factor authentication failed/i }],
    },
    sms: {
      when: [{ path: /^\/sessions\/two-factor\/sms/ }],
      code: { label: /authentication code|sms code/i },
      submit: { role: 'button', name: 'Verify' },
      rejected: [{ alert: /two-factor authentication failed/i }],
    },
  },
};

export const githubProvider: ProviderDefinition = {
  providerId: '2f0c6a8e-1d4b-4c9a-9e3f-7b5a1c2d3e01',
  name: 'GitHub',
  slug: 'github',
  category: 'developer',
  environment: 'production',
  homeUrl: 'https://github.com/',
  loginUrl: 'https://github.com/login',
  // Exact hosts: the site, gists, its API, and the asset and avatar hosts its pages load.
  allowedDomains: ['github.com', 'gist.github.com', 'api.github.com', 'github.githubassets.com', 'avatars.githubusercontent.com'],
  login: GITHUB_LOGIN,
  logoSvg:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#24292f"/><circle cx="32" cy="30" r="14" fill="#fff"/></svg>',
};
