import { defineProvider } from '../../providers/declaration';
import { type ProviderDefinition, sandboxOrigin, type SandboxOrigins } from '../../providers/provider';
import { sandboxLoginRecipe, sandboxLoginStartUrl, sandboxSignedIn } from '../sandbox-login.recipe';

export const FORGEHUB_PROVIDER_ID = '9b2e7a40-3c6d-4f7e-8b1a-2e5c9d4f6a02';

/** ForgeHub: the simulated developer platform (GitHub style) of the sandbox environment; its host comes from where the service runs. */
export function forgehubProvider(o: SandboxOrigins): ProviderDefinition {
  const { origin, host } = sandboxOrigin('forgehub', o);
  return defineProvider(
    {
      providerId: FORGEHUB_PROVIDER_ID,
      name: 'ForgeHub (sandbox developer platform)',
      slug: 'forgehub',
      category: 'developer',
      environment: 'sandbox',
      homeUrl: `${origin}/`,
      loginUrl: `${origin}/login`,
      allowedOrigins: [host],
      login: sandboxLoginRecipe('forgehub'),
      signedIn: sandboxSignedIn('forgehub'),
      logo:
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#111827"/>' +
        '<path d="M20 40 L32 16 L44 40 Z" fill="none" stroke="#f97316" stroke-width="4" stroke-linejoin="round"/><rect x="18" y="42" width="28" height="6" rx="2" fill="#f97316"/></svg>',
    },
    { loginStartUrl: sandboxLoginStartUrl('forgehub', o) },
  );
}
