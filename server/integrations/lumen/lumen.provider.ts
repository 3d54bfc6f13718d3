import { defineProvider } from '../../providers/declaration';
import { type ProviderDefinition, sandboxOrigin, type SandboxOrigins } from '../../providers/provider';
import { sessionCookieName } from '../../sandbox/site-sessions';
import { sandboxLoginStartUrl } from '../sandbox-login.recipe';
import { IDP_SLUG } from './idp/site';
import { LUMEN_LOGO, LUMEN_SLUG } from './site/site';

export const LUMEN_PROVIDER_ID = '8c2e6f0a-3b7d-4e9a-9f21-6a4d2c8b1e53';

/**
 * Lumen: the sandbox's reading list. It has no login recipe: its sign-in goes through the simulated identity
 * provider (an SSO hop) and a visual challenge, so people sign in on the real page in the widget's live view.
 */
export function lumenProvider(o: SandboxOrigins): ProviderDefinition {
  const { origin, host } = sandboxOrigin(LUMEN_SLUG, o);
  const escapedHost = host.replace(/[.]/g, '\\.');
  return defineProvider(
    {
      providerId: LUMEN_PROVIDER_ID,
      name: 'Lumen (sandbox reading list)',
      slug: LUMEN_SLUG,
      category: 'social',
      environment: 'sandbox',
      homeUrl: `${origin}/`,
      loginUrl: `${origin}/login`,
      allowedOrigins: [host],
      identityProviders: [sandboxOrigin(IDP_SLUG, o).host],
      signedIn: {
        cookies: [sessionCookieName(LUMEN_SLUG)],
        urlPattern: `^https?://${escapedHost}(:\\d+)?/(?!login|sso/)`,
      },
      logo: LUMEN_LOGO,
    },
    // The sign-in lands in the organization's own copy of the site, as the recipe providers' do.
    { loginStartUrl: sandboxLoginStartUrl(LUMEN_SLUG, o) },
  );
}
