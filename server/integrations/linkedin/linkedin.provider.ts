import type { LoginRecipe } from '../../providers/login-recipe';
import type { ProviderDefinition } from '../../providers/provider';

/**
 * LinkedIn, a real provider of the production environment: production reaches only its domains; the sandbox
 * never does. The login recipe follows the site's sign-in page as published (labels and headings a person
 * sees); it is not exercised by the test suite, which never leaves loopback.
 */
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

export const linkedinProvider: ProviderDefinition = {
  providerId: '7a3d9e21-5b8c-4f06-a1d2-c3e4f5a6b702',
  name: 'LinkedIn',
  slug: 'linkedin',
  category: 'social',
  environment: 'production',
  homeUrl: 'https://www.linkedin.com/',
  loginUrl: 'https://www.linkedin.com/login',
  // Exact hosts: the site (and its bare name, which redirects to www), and the static and media hosts its pages load.
  allowedDomains: ['www.linkedin.com', 'linkedin.com', 'static.licdn.com', 'media.licdn.com'],
  login: LINKEDIN_LOGIN,
  logoSvg:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0a66c2"/><text x="14" y="46" font-family="Arial" font-weight="700" font-size="34" fill="#fff">in</text></svg>',
};
