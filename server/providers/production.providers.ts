import type { LoginRecipe } from './login-recipe';
import type { ProviderDefinition } from './provider';

/**
 * Real providers of the production environment. Production reaches only these domains; the
 * sandbox never does. The login recipes follow each site's sign-in pages as published (labels and
 * headings a person sees); they are not exercised by the test suite, which never leaves loopback.
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

const LINKEDIN_LOGIN: LoginRecipe = {
  usernameLabel: 'Email or phone',
  form: {
    username: { label: 'Email or phone' },
    password: { label: 'Password' },
    submit: { role: 'button', name: 'Sign in' },
  },
  success: [{ pathNot: /^\/(login|checkpoint|uas)(\/|$)/, cookie: 'li_at' }],
  invalidCredentials: [{ alert: /wrong (email|password)|couldn.t find a linkedin account/i }],
  locked: [{ heading: /(account (is |has been )?(restricted|locked))|temporarily restricted/i }],
  mfa: {
    totp: {
      when: [{ path: /^\/checkpoint\/challenge/, heading: /authenticator app|two-step verification/i }],
      code: { label: /verification code|enter code/i },
      submit: { role: 'button', name: /submit|verify/i },
      rejected: [{ alert: /(code|verification).*(not valid|incorrect|wrong)/i }],
    },
    sms: {
      when: [{ path: /^\/checkpoint\/challenge/, heading: /(text|sms|phone)/i }],
      code: { label: /verification code|enter code/i },
      submit: { role: 'button', name: /submit|verify/i },
      rejected: [{ alert: /(code|verification).*(not valid|incorrect|wrong)/i }],
    },
  },
};

const X_LOGIN: LoginRecipe = {
  usernameLabel: 'Phone, email, or username',
  form: {
    username: { label: /phone, email,? or username/i },
    next: { role: 'button', name: 'Next' },
    password: { label: 'Password' },
    submit: { role: 'button', name: 'Log in' },
  },
  success: [{ pathNot: /^\/i\/flow\//, cookie: 'auth_token' }],
  invalidCredentials: [{ alert: /wrong password|could not find your account/i }],
  locked: [{ heading: /account (is )?(locked|suspended)/i }],
  mfa: {
    totp: {
      when: [{ heading: /enter your verification code/i }],
      code: { css: 'input[data-testid="ocfEnterTextTextInput"]' },
      submit: { role: 'button', name: 'Next' },
      rejected: [{ alert: /(code|verification).*(not correct|incorrect|try again)/i }],
    },
    sms: {
      when: [{ heading: /(check your phone|we sent you a code)/i }],
      code: { css: 'input[data-testid="ocfEnterTextTextInput"]' },
      submit: { role: 'button', name: 'Next' },
      rejected: [{ alert: /(code|verification).*(not correct|incorrect|try again)/i }],
    },
  },
};
export const PRODUCTION_PROVIDERS: ProviderDefinition[] = [
  {
    providerId: '2f0c6a8e-1d4b-4c9a-9e3f-7b5a1c2d3e01',
    name: 'GitHub',
    slug: 'github',
    category: 'developer',
    environment: 'production',
    homeUrl: 'https://github.com/',
    loginUrl: 'https://github.com/login',
    allowedDomains: ['github.com'],
    login: GITHUB_LOGIN,
    logoSvg:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#24292f"/><circle cx="32" cy="30" r="14" fill="#fff"/></svg>',
  },
  {
    providerId: '7a3d9e21-5b8c-4f06-a1d2-c3e4f5a6b702',
    name: 'LinkedIn',
    slug: 'linkedin',
    category: 'social',
    environment: 'production',
    homeUrl: 'https://www.linkedin.com/',
    loginUrl: 'https://www.linkedin.com/login',
    allowedDomains: ['linkedin.com'],
    login: LINKEDIN_LOGIN,
    logoSvg:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0a66c2"/><text x="14" y="46" font-family="Arial" font-weight="700" font-size="34" fill="#fff">in</text></svg>',
  },
  {
    providerId: 'c8e1f2a3-4b5c-4d6e-8f70-91a2b3c4d503',
    name: 'X',
    slug: 'x',
    category: 'social',
    environment: 'production',
    homeUrl: 'https://x.com/',
    loginUrl: 'https://x.com/i/flow/login',
    allowedDomains: ['x.com', 'twitter.com'],
    login: X_LOGIN,
    logoSvg:
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#000"/><path d="M18 16 L46 48 M46 16 L18 48" stroke="#fff" stroke-width="5"/></svg>',
  },
];
