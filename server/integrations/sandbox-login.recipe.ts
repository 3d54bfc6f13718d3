import type { LoginRecipe } from '../providers/login-recipe';
import type { SandboxOrigins } from '../providers/provider';
import { sessionCookieName } from '../sandbox/site-sessions';

/**
 * The login recipe of the simulated sites. Every sandbox site uses the kit's sign-in pages
 * (server/sandbox/kit/site-app.ts), so they share this recipe; only the session cookie's name differs.
 * The login lands in the organization's own copy of the site: the start URL carries a ticket the service signed
 * (?tenant_token=…); the site would not take a bare tenant name from anyone.
 */
export function sandboxLoginRecipe(slug: string, origins: Pick<SandboxOrigins, 'sandboxTenantToken'> = {}): LoginRecipe {
  return {
    startUrl: (loginUrl, { organizationId }) => {
      const url = new URL(loginUrl);
      if (origins.sandboxTenantToken) url.searchParams.set('tenant_token', origins.sandboxTenantToken(organizationId, slug));
      return url.toString();
    },
    usernameLabel: 'Username or email',
    form: {
      username: { label: 'Username or email' },
      password: { label: 'Password' },
      submit: { role: 'button', name: 'Sign in' },
    },
    // The kit answers a failed POST with the form at the POST's own URL, so steps are told apart by what the
    // page shows (fields, headings, alerts), not by its path; only success is a redirect away from /login.
    success: [{ pathNot: /^\/login(\/|$)/, cookie: sessionCookieName(slug) }],
    invalidCredentials: [{ alert: /incorrect username or password/i }],
    locked: [{ heading: /account is locked/i }],
    mfa: {
      totp: {
        when: [{ visible: { label: 'Authentication code' } }],
        code: { label: 'Authentication code' },
        submit: { role: 'button', name: 'Verify' },
        rejected: [{ alert: /not correct/i }],
      },
      sms: {
        when: [{ visible: { label: 'SMS code' } }],
        code: { label: 'SMS code' },
        submit: { role: 'button', name: 'Verify' },
        rejected: [{ alert: /not correct/i }],
      },
    },
    mfaFailed: [{ alert: /too many incorrect codes/i }],
    humanCheck: {
      when: [{ visible: { role: 'checkbox', name: "I'm not a robot" } }],
      checkbox: { role: 'checkbox', name: "I'm not a robot" },
      submit: { role: 'button', name: 'Continue' },
    },
  };
}
