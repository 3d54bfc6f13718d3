import type { AppConfig } from './config';
import type { Clock } from './domain/clock';
import { AgentRequestService } from './domain/agent-requests.service';
import { ConnectionService } from './domain/connections.service';
import { LinkTokenService } from './domain/link-tokens.service';
import { OrganizationService } from './domain/organizations.service';
import { SandboxService } from './domain/sandbox.service';
import { BrowserManager } from './browser/browser-manager';
import { LinkSessionService } from './connect/link-session.service';
import { LoginEngine } from './connect/login-engine';
import { ProviderCatalogue } from './providers/catalogue';
import { SiteSessions } from './sandbox/site-sessions';
import { AgentRequestEvents } from './domain/agent-request-events';
import { buildQueue } from './agent/queue';
import { defaultPlaybookRegistry } from './agent/playbooks';
import { createLogger } from './logger';
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
  const loginEngine = new LoginEngine(browsers);
  // Agent runs: the queue (built here, started only by a worker), in-process run signals, the playbooks.
  const agentEvents = new AgentRequestEvents();
  const queueLogger = createLogger(config.logLevel).child({ component: 'queue' });
  const queue = buildQueue({ config, store, clock, events: agentEvents, logger: queueLogger });
  const playbooks = defaultPlaybookRegistry();
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
    agentRequests: new AgentRequestService(store, clock, catalogue, connections, queue, agentEvents, (err, requestId) =>
      queueLogger.error({ err, requestId }, 'enqueue failed; the request stays PENDING and is picked up by the sweep'),
    ),
    agentEvents,
    queue,
    playbooks,
    sandbox: new SandboxService(catalogue, connections, siteSessions, store),
    loginEngine,
    linkSessions: new LinkSessionService({ store, clock, catalogue, connections, engine: loginEngine }),
  };
}

export type Services = ReturnType<typeof buildServices>;
