import type { LoginRecipeDeclaration } from '../../contract/provider-declaration';
import type { ProviderDefinition, SandboxOrigins } from '../providers/provider';
import { sessionCookieName } from '../sandbox/site-sessions';

/**
 * The login recipe of the simulated sites, as data. Every sandbox site uses the kit's sign-in pages
 * (server/sandbox/kit/site-app.ts), so they share this recipe; only the session cookie's name differs.
 */
export function sandboxLoginRecipe(slug: string): LoginRecipeDeclaration {
  const notCorrect = [{ alert: { pattern: 'not correct', flags: 'i' } }];
  return {
    usernameLabel: 'Username or email',
    form: {
      username: { label: 'Username or email' },
      password: { label: 'Password' },
      submit: { role: 'button', name: 'Sign in' },
    },
    // The kit answers a failed POST with the form at the POST's own URL, so steps are told apart by what the
    // page shows (fields, headings, alerts), not by its path; only success is a redirect away from /login.
    // user_app signs in to the site's app, whose session is in IndexedDB: its page says so once it has read it.
    success: [
      { pathNot: { pattern: '^/login(/|$)' }, cookie: sessionCookieName(slug) },
      { path: { pattern: '^/app$' }, heading: { pattern: '^Signed in as ' } },
    ],
    invalidCredentials: [{ alert: { pattern: 'incorrect username or password', flags: 'i' } }],
    locked: [{ heading: { pattern: 'account is locked', flags: 'i' } }],
    mfa: {
      totp: {
        when: [{ visible: { label: 'Authentication code' } }],
        code: { label: 'Authentication code' },
        submit: { role: 'button', name: 'Verify' },
        rejected: notCorrect,
      },
      sms: {
        when: [{ visible: { label: 'SMS code' } }],
        code: { label: 'SMS code' },
        submit: { role: 'button', name: 'Verify' },
        rejected: notCorrect,
      },
    },
    mfaFailed: [{ alert: { pattern: 'too many incorrect codes', flags: 'i' } }],
    humanCheck: {
      when: [{ visible: { role: 'checkbox', name: "I'm not a robot" } }],
      checkbox: { role: 'checkbox', name: "I'm not a robot" },
      submit: { role: 'button', name: 'Continue' },
    },
  };
}

/** A signed-in session of a simulated site: its session cookie, on a page that is not the sign-in page. */
export function sandboxSignedIn(slug: string) {
  return { cookies: [sessionCookieName(slug)], urlPattern: '^https?://[^/]+/(?!login(/|$))' };
}

/**
 * The one part of a sandbox sign-in that is not data: the login lands in the organization's own copy of the site,
 * so the start URL carries a ticket the service signed (?tenant_token=…); the site would not take a bare tenant name.
 */
export function sandboxLoginStartUrl(
  slug: string,
  origins: Pick<SandboxOrigins, 'sandboxTenantToken'>,
): ProviderDefinition['loginStartUrl'] {
  return (loginUrl, { organizationId }) => {
    const url = new URL(loginUrl);
    if (origins.sandboxTenantToken) url.searchParams.set('tenant_token', origins.sandboxTenantToken(organizationId, slug));
    return url.toString();
  };
}
