import type { ProviderAction } from '../../contract/schemas';
import { describePlaybook } from '../agent/playbooks/catalogue';
import type { PlaybookRegistry } from '../agent/playbooks/registry';
import type { ProviderCatalogue } from '../providers/catalogue';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';

/** The action catalogue: what each provider can run without a model (its playbooks), for the API and the dashboard. */
export class ProviderActionService {
  constructor(
    private readonly catalogue: Pick<ProviderCatalogue, 'find'>,
    private readonly playbooks: Pick<PlaybookRegistry, 'list'>,
  ) {}

  async list(caller: Caller, providerId: string): Promise<Result<{ providerId: string; actions: ProviderAction[] }>> {
    const provider = await this.catalogue.find(providerId, caller);
    if (!provider)
      return fail('PROVIDER_NOT_FOUND', `No provider ${providerId} in the ${caller.environment} catalogue (GET /api/providers).`);
    return ok({ providerId: provider.providerId, actions: this.playbooks.list(provider.slug).map(describePlaybook) });
  }
}
