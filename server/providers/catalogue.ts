import type { Environment } from '../config';
import { PRODUCTION_PROVIDERS } from './production.providers';
import type { ProviderDefinition, SandboxOrigins } from './provider';
import { forgehubProvider } from './sandbox-forgehub.provider';
import { orbitProvider } from './sandbox-orbit.provider';

export type { ProviderDefinition } from './provider';

/** The provider catalogue per environment. A new provider is one file plus one line here. */
export class ProviderCatalogue {
  private readonly byEnv: Record<Environment, ProviderDefinition[]>;

  constructor(origins: SandboxOrigins) {
    this.byEnv = {
      sandbox: [orbitProvider(origins), forgehubProvider(origins)],
      production: PRODUCTION_PROVIDERS,
    };
  }

  list(environment: Environment): ProviderDefinition[] {
    return this.byEnv[environment];
  }

  get(providerId: string, environment: Environment): ProviderDefinition | undefined {
    return this.byEnv[environment].find((p) => p.providerId === providerId);
  }

  bySlug(slug: string, environment: Environment): ProviderDefinition | undefined {
    return this.byEnv[environment].find((p) => p.slug === slug);
  }
}
