import type { Environment } from '../config';
import type { ProviderDefinition } from './provider';

export type { ProviderDefinition } from './provider';

/** Whose catalogue: an organization sees the shared providers of its environment and its own. */
export interface ProviderScope {
  organizationId: string;
  environment: Environment;
}

/** An organization's private providers, in their runtime form (kept in the store; see domain/organization-providers). */
export interface PrivateProviders {
  list(scope: ProviderScope): Promise<ProviderDefinition[]>;
  get(providerId: string, scope: ProviderScope): Promise<ProviderDefinition | undefined>;
}

/**
 * The provider catalogue per environment: the shared providers (built-ins from server/integrations/ and the
 * operator's file), built at the composition root, plus each organization's private ones, read from the store on
 * each lookup so that every process sees a change at once. It knows nothing of where the declarations come from.
 */
export class ProviderCatalogue {
  private readonly byEnv: Record<Environment, ProviderDefinition[]>;

  constructor(
    providers: readonly ProviderDefinition[],
    private readonly privateProviders?: PrivateProviders,
  ) {
    this.byEnv = { sandbox: [], production: [] };
    for (const p of providers) {
      if (this.byEnv[p.environment].some((q) => q.providerId === p.providerId || q.slug === p.slug)) {
        throw new Error(`provider ${p.slug} (${p.providerId}) is declared twice in ${p.environment}`);
      }
      this.byEnv[p.environment].push(p);
    }
  }

  /** The shared providers of an environment (no organization's own). */
  list(environment: Environment): ProviderDefinition[] {
    return this.byEnv[environment];
  }

  /** A shared provider of an environment (no organization's own). */
  get(providerId: string, environment: Environment): ProviderDefinition | undefined {
    return this.byEnv[environment].find((p) => p.providerId === providerId);
  }

  bySlug(slug: string, environment: Environment): ProviderDefinition | undefined {
    return this.byEnv[environment].find((p) => p.slug === slug);
  }

  /** What an organization can connect to in an environment: the shared providers, then its own. */
  async listFor(scope: ProviderScope): Promise<ProviderDefinition[]> {
    const own = this.privateProviders ? await this.privateProviders.list(scope) : [];
    return [...this.byEnv[scope.environment], ...own];
  }

  /** A provider as the organization sees it: shared, or its own in that environment (never another organization's). */
  async find(providerId: string, scope: ProviderScope): Promise<ProviderDefinition | undefined> {
    return this.get(providerId, scope.environment) ?? (await this.privateProviders?.get(providerId, scope));
  }
}
