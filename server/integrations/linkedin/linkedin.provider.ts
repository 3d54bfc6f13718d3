import type { LoginRecipeDeclaration } from '../../../contract/provider-declaration';
import { defineProvider } from '../../providers/declaration';

/**
 * LinkedIn, a real provider of the production environment: production reaches only its domains; the sandbox
 * never does. The login recipe follows the site's sign-in page as published (labels and headings a person
 * sees); it is not exercised by the test suite, which never leaves loopback.
 */
const LINKEDIN_LOGIN: LoginRecipeDeclaration = {
  usernameLabel: 'Email or phone',
  form: {
    username: { label: 'Email or phone' },
    password: { label: 'Password' },
    submit: { role: 'button', name: 'Sign in' },
  },
  success: [{ pathNot: { pattern: '^\\/(login|checkpoint|uas)(\\/|$)' }, cookie: 'li_at' }],
  invalidCredentials: [{ alert: { pattern: 'wrong (email|password)|couldn.t find a linkedin account', flags: 'i' } }],
  locked: [{ heading: { pattern: '(account (is |has been )?(restricted|locked))|temporarily restricted', flags: 'i' } }],
  mfa: {
    totp: {
      when: [
        { path: { pattern: '^\\/checkpoint\\/challenge' }, heading: { pattern: 'authenticator app|two-step verification', flags: 'i' } },
      ],
      code: { label: { pattern: 'verification code|enter code', flags: 'i' } },
      submit: { role: 'button', name: { pattern: 'submit|verify', flags: 'i' } },
      rejected: [{ alert: { pattern: '(code|verification).*(not valid|incorrect|wrong)', flags: 'i' } }],
    },
    sms: {
      when: [{ path: { pattern: '^\\/checkpoint\\/challenge' }, heading: { pattern: '(text|sms|phone)', flags: 'i' } }],
      code: { label: { pattern: 'verification code|enter code', flags: 'i' } },
      submit: { role: 'button', name: { pattern: 'submit|verify', flags: 'i' } },
      rejected: [{ alert: { pattern: '(code|verification).*(not valid|incorrect|wrong)', flags: 'i' } }],
    },
  },
};

export const linkedinProvider = defineProvider({
  providerId: '7a3d9e21-5b8c-4f06-a1d2-c3e4f5a6b702',
  name: 'LinkedIn',
  slug: 'linkedin',
  category: 'social',
  environment: 'production',
  homeUrl: 'https://www.linkedin.com/',
  loginUrl: 'https://www.linkedin.com/login',
  // Exact hosts: the site (and its bare name, which redirects to www), and the static and media hosts its pages load.
  allowedOrigins: ['www.linkedin.com', 'linkedin.com', 'static.licdn.com', 'media.licdn.com'],
  login: LINKEDIN_LOGIN,
  logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0a66c2"/><text x="14" y="46" font-family="Arial" font-weight="700" font-size="34" fill="#fff">in</text></svg>',
});
