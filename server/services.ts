import type { AppConfig } from './config';
import type { Clock } from './domain/clock';
import { AgentRequestService } from './domain/agent-requests.service';
import { ConnectionService } from './domain/connections.service';
import { LinkTokenService } from './domain/link-tokens.service';
import { OrganizationService } from './domain/organizations.service';
import { SandboxService } from './domain/sandbox.service';
import { BrowserManager } from './browser/browser-manager';
import { ProviderCatalogue } from './providers/catalogue';
import { SiteSessions } from './sandbox/site-sessions';
import type { Store } from './store';
import type { Vault } from './vault/vault';

/** The composition root: every service built once, from the config, the store, the clock and the vault. */
export function buildServices(deps: { config: AppConfig; store: Store; clock: Clock; vault: Vault }) {
  const { config, store, clock, vault } = deps;
  const catalogue = new ProviderCatalogue({ publicUrl: config.publicUrl, sandboxHostSuffix: config.sandboxHostSuffix });
  const organizations = new OrganizationService(store, clock);
  const connections = new ConnectionService(store, clock, vault, config);
  const siteSessions = new SiteSessions(store, clock, catalogue);
  const browsers = new BrowserManager(config.browser);
  return {
    browsers,
    config,
    store,
    clock,
    vault,
    catalogue,
    organizations,
    connections,
    siteSessions,
    linkTokens: new LinkTokenService(store, clock, catalogue, config),
    agentRequests: new AgentRequestService(store, clock, catalogue, connections),
    sandbox: new SandboxService(catalogue, connections, siteSessions, store),
  };
}

export type Services = ReturnType<typeof buildServices>;
