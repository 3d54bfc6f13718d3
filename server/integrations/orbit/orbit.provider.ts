import { defineProvider } from '../../providers/declaration';
import { type ProviderDefinition, sandboxOrigin, type SandboxOrigins } from '../../providers/provider';
import { sandboxLoginRecipe, sandboxLoginStartUrl, sandboxSignedIn } from '../sandbox-login.recipe';

export const ORBIT_PROVIDER_ID = '5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11';

/** Orbit: the simulated social network (LinkedIn / X style) of the sandbox environment; its host comes from where the service runs. */
export function orbitProvider(o: SandboxOrigins): ProviderDefinition {
  const { origin, host } = sandboxOrigin('orbit', o);
  return defineProvider(
    {
      providerId: ORBIT_PROVIDER_ID,
      name: 'Orbit (sandbox social network)',
      slug: 'orbit',
      category: 'social',
      environment: 'sandbox',
      homeUrl: `${origin}/`,
      loginUrl: `${origin}/login`,
      allowedOrigins: [host],
      login: sandboxLoginRecipe('orbit'),
      signedIn: sandboxSignedIn('orbit'),
      logo:
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#4f46e5"/>' +
        '<circle cx="32" cy="32" r="11" fill="#fff"/><ellipse cx="32" cy="32" rx="24" ry="9" fill="none" stroke="#fff" stroke-width="3" transform="rotate(-25 32 32)"/></svg>',
    },
    { loginStartUrl: sandboxLoginStartUrl('orbit', o) },
  );
}
