import { PlaybookRegistry } from '../../server/agent/playbooks';
import { assembleIntegrations, INTEGRATIONS } from '../../server/integrations';
import { ProviderCatalogue } from '../../server/providers/catalogue';

/** The built-in integrations as the composition root assembles them, for tests that need no running server. */
export function builtInIntegrations(publicUrl = 'http://localhost:4000') {
  return assembleIntegrations(INTEGRATIONS, { publicUrl, sandboxHostSuffix: 'sandbox.localhost' });
}

export const builtInCatalogue = (publicUrl?: string) => new ProviderCatalogue(builtInIntegrations(publicUrl).providers);
export const builtInPlaybooks = () => new PlaybookRegistry(builtInIntegrations().playbooks);
