import type { ProviderAction } from '../../contract/schemas';
import type { ProviderCatalogue } from '../providers/catalogue';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';

/**
 * The actions a provider runs without a model, as the catalogue shows them: the agent's playbooks, described (declared
 * here; server/services.ts wires the agent's playbook registry in: domain/ imports nothing of server/agent/).
 */
export interface ProviderActions {
  list(providerSlug: string): ProviderAction[];
}

/** The action catalogue: what each provider can run without a model (its playbooks), for the API and the dashboard. */
export class ProviderActionService {
  constructor(
    private readonly catalogue: Pick<ProviderCatalogue, 'find'>,
    private readonly actions: ProviderActions,
  ) {}

  async list(caller: Caller, providerId: string): Promise<Result<{ providerId: string; actions: ProviderAction[] }>> {
    const provider = await this.catalogue.find(providerId, caller);
    if (!provider)
      return fail('PROVIDER_NOT_FOUND', `No provider ${providerId} in the ${caller.environment} catalogue (GET /api/providers).`);
    return ok({ providerId: provider.providerId, actions: this.actions.list(provider.slug) });
  }
}
