import type { Environment } from '../config';
import type { ProviderDefinition } from './provider';

export type { ProviderDefinition } from './provider';

/**
 * The provider catalogue per environment, built at the composition root from server/integrations/ (one folder
 * per provider). It knows nothing of where the declarations come from.
 */
export class ProviderCatalogue {
  private readonly byEnv: Record<Environment, ProviderDefinition[]>;

  constructor(providers: readonly ProviderDefinition[]) {
    this.byEnv = { sandbox: [], production: [] };
    for (const p of providers) {
      if (this.byEnv[p.environment].some((q) => q.providerId === p.providerId || q.slug === p.slug)) {
        throw new Error(`provider ${p.slug} (${p.providerId}) is declared twice in ${p.environment}`);
      }
      this.byEnv[p.environment].push(p);
    }
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
