import type { Playbook } from '../agent/playbooks/registry';
import type { ProviderDefinition, SandboxOrigins } from '../providers/provider';
import type { SiteDefinition } from '../sandbox/kit/site';

/**
 * Everything AgentLink knows of one provider, kept in one folder (server/integrations/<slug>/) and listed once
 * in server/integrations/index.ts: its declaration, its simulated site (sandbox providers) and its playbooks.
 */
export interface Integration {
  slug: string;
  /** The provider's declaration. Simulated sites live on the service's own host, so it is built from where that is. */
  provider(origins: SandboxOrigins): ProviderDefinition;
  /** The simulated website (sandbox providers only), served on `<slug>.<sandbox host suffix>`. */
  site?: SiteDefinition;
  /**
   * Simulated identity providers its sign-in passes through (sandbox only), served like sites on
   * `<slug>.<sandbox host suffix>`; the provider lists their hosts in identityProviders. They are no providers.
   */
  identitySites?: SiteDefinition[];
  /** Tested routines for the actions people ask for most on this provider. */
  playbooks: Playbook<unknown>[];
}
