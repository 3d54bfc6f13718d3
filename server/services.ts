import { HandoffRegistry } from './agent/handoff/handoff-registry';
import { BrowserSessionProbe } from './agent/health/session-probe';
import { PlaybookRegistry } from './agent/playbooks';
import { providerActions } from './agent/playbooks/catalogue';
import { modelPlaybookRouter } from './agent/playbooks/model-router';
import { buildQueue, newWorkerId } from './agent/queue';
import type { UserActionDesk } from './agent/worker/deps';
import { LoginEngineRelogin } from './agent/worker/silent-relogin';
import { WarmContexts } from './agent/worker/warm-contexts';
import { BrowserManager } from './browser/browser-manager';
import type { AppConfig } from './config';
import { LinkSessionService } from './connect/link-session.service';
import { LiveSignIn } from './connect/live/live-sign-in';
import { liveViews } from './connect/live/live-socket';
import { RunLiveViews } from './connect/live/run-live-views';
import { LoginEngine } from './connect/login-engine';
import { UserActionLinks } from './connect/user-action-link';
import { DashboardAccountService } from './dashboard/accounts.service';
import { InvitationService } from './dashboard/invitations.service';
import { OrganizationMembersService } from './dashboard/members.service';
import { AgentRequestEvents } from './domain/agent-request-events';
import { AgentRequestService } from './domain/agent-requests.service';
import { AgentSigningKeys } from './domain/agent-signing-keys';
import type { Clock } from './domain/clock';
import { systemClock } from './domain/clock';
import { ConnectionHealthService } from './domain/connection-health.service';
import { ConnectionPasskeys } from './domain/connection-passkeys.service';
import { ConnectionSettingsService } from './domain/connection-settings.service';
import { ConnectionService } from './domain/connections.service';
import { IdempotencyService } from './domain/idempotency.service';
import { LinkTokenService } from './domain/link-tokens.service';
import { OrganizationProviderService } from './domain/organization-providers.service';
import { OrganizationService } from './domain/organizations.service';
import { ProviderActionService } from './domain/provider-actions.service';
import { RateLimitService } from './domain/rate-limits.service';
import { RedirectUriService } from './domain/redirect-uris/redirect-uris.service';
import { SandboxService } from './domain/sandbox.service';
import { signatureDirectoryUrl, SignedAgent } from './domain/signed-agent';
import { UserActionSeal } from './domain/user-action-seal';
import { WebhookDispatcher } from './domain/webhooks/dispatcher';
import { EventPayloadSeal } from './domain/webhooks/event-payload';
import { WebhookEvents } from './domain/webhooks/events.service';
import { WebhookEndpointService } from './domain/webhooks/webhook-endpoints.service';
import { configureHostNetwork, hostNetworkOf } from './egress/egress-policy';
import { assembleIntegrations, INTEGRATIONS } from './integrations';
import { createLogger } from './logger';
import { AgentRunTelemetry } from './observability/agent-run-telemetry';
import { AppMetrics, providerMetricLabel, type QueueStats } from './observability/metrics';
import { startTracing } from './observability/tracing';
import { ProviderCatalogue } from './providers/catalogue';
import { loadProvidersFile } from './providers/providers-file';
import { SimulatedSites } from './sandbox/simulated-sites';
import { SiteSessions } from './sandbox/site-sessions';
import { TenantTokens } from './sandbox/tenant-tokens';
import type { Store } from './store';
import type { Vault } from './vault/vault';

/** The waiting agent requests, for the queue gauges (the rows are the queue, whatever the engine). */
async function queueStats(store: Store, clock: Clock): Promise<QueueStats> {
  const { depth, oldestCreatedAt } = await store.repos.agentRequests.pendingStats();
  const oldestAgeSeconds = oldestCreatedAt ? Math.max(0, (clock.now().getTime() - oldestCreatedAt.getTime()) / 1000) : 0;
  return { depth, oldestAgeSeconds };
}

/** The composition root: every service built once, from the config, the store, the clock and the vault. */
export function buildServices(deps: { config: AppConfig; store: Store; clock: Clock; vault: Vault }) {
  const { config, store, clock, vault } = deps;
  // What the egress policy must know of this machine: the service's own ports, and whether organizations' sandbox providers may reach private networks.
  configureHostNetwork(hostNetworkOf(config));
  // One folder per provider (server/integrations/): the catalogue, the playbooks and the simulated sites come from that list.
  // Tickets into an organization's copy of the sandbox sites, signed with a key derived from the vault's (the kit
  // is handed the signer here, so it imports nothing of domain/ or providers/).
  const tenantTokens = new TenantTokens(vault.deriveKey('sandbox-tenant-tokens'), clock);
  const integrations = assembleIntegrations(INTEGRATIONS, {
    publicUrl: config.publicUrl,
    sandboxHostSuffix: config.sandboxHostSuffix,
    sandboxTenantToken: (organizationId, siteSlug) => tenantTokens.issue(organizationId, siteSlug),
  });
  // The shared providers: built-ins, then the operator's file (read and checked at start-up; a bad one stops the start).
  const shared = [
    ...integrations.providers,
    ...(config.providersFile ? loadProvidersFile(config.providersFile, integrations.providers) : []),
  ];
  const organizationProviders = new OrganizationProviderService(store, clock, shared);
  const catalogue = new ProviderCatalogue(shared, organizationProviders);
  const organizations = new OrganizationService(store, clock, config.authFailures);
  const redirectUris = new RedirectUriService(store, clock);
  // Webhooks: events are written where state changes; a dispatcher (started by the worker role) delivers them.
  const webhookLogger = createLogger(config.logLevel).child({ component: 'webhooks' });
  const onWebhookError = (err: unknown, context: Record<string, unknown>) =>
    webhookLogger.error({ err, ...context }, 'webhook event or delivery failed');
  // Bodies that carry a secret (a public token) are sealed at rest and opened by the dispatcher.
  const webhookPayloads = new EventPayloadSeal(vault);
  const userActions = new UserActionSeal(vault);
  const webhookEvents = new WebhookEvents(store, clock, onWebhookError, webhookPayloads);
  const webhookEndpoints = new WebhookEndpointService(store, clock, vault, config, () => webhookDispatcher.wake());
  const browserLogger = createLogger(config.logLevel).child({ component: 'browser' });
  const browsers = new BrowserManager(config.browser, {
    onBrowserLost: (info) => {
      browserLogger.error(info, 'the browser went away (crashed or was killed): its sessions ended; the next one starts a fresh browser');
      // The metrics are built below; a browser is launched only on first use, long after.
      metrics.countBrowserLost();
    },
  });
  // The worker's contexts kept warm between runs of a connection (its pool; counted in the metrics below).
  const warmContexts = new WarmContexts({
    idleMs: config.worker.warmContexts.idleSeconds * 1000,
    max: config.worker.warmContexts.max,
    mode: config.worker.warmContexts.mode,
  });
  // Traces only when an OTLP endpoint is configured (a no-op tracer otherwise).
  const tracing = startTracing(config.tracing);
  const metrics = new AppMetrics({
    queue: () => queueStats(store, clock).catch(() => null),
    browserContexts: () => browsers.openContexts,
    warmContexts: () => warmContexts.size,
    // Read at each scrape, when the live sign-in (built below) exists.
    liveSessions: () => liveSignIn.openCount,
    waitingRuns: () => handoffs.waitingCount,
  });
  const webhookDispatcher = new WebhookDispatcher({
    store,
    clock,
    endpoints: webhookEndpoints,
    payloads: webhookPayloads,
    pollMs: config.worker.pollMs,
    nodeEnv: config.nodeEnv,
    onError: onWebhookError,
    onAttempt: (outcome) => metrics.countWebhookAttempt(outcome),
  });
  webhookEvents.onQueued(() => webhookDispatcher.wake());
  const connections = new ConnectionService(store, clock, vault, config, webhookEvents);
  // A revoked (or LOGIN_REQUIRED) connection's contexts kept warm here are closed at once, not at their idle end.
  connections.onSessionEnded((connectionId) => warmContexts.dropConnection(connectionId));
  const connectionPasskeys = new ConnectionPasskeys(store, clock, vault);
  const siteSessions = new SiteSessions(store, clock, config.sandboxHostSuffix, config.sandboxExpiringSessionSeconds);
  const sandboxSites = new SimulatedSites(store, siteSessions, integrations.sites);
  const loginEngine = new LoginEngine(browsers, { stepTimeoutMs: config.live.loginStepSeconds * 1000 });
  // Agent runs: the queue (built here, started only by a worker), in-process run signals, the playbooks.
  const agentEvents = new AgentRequestEvents();
  const queueLogger = createLogger(config.logLevel).child({ component: 'queue' });
  const queue = buildQueue({ config, store, clock, events: agentEvents, logger: queueLogger });
  agentEvents.onAnyFinished((requestId, owner) => webhookEvents.inBackground(webhookEvents.agentRequestFinished(requestId, owner)));
  const playbooks = new PlaybookRegistry(integrations.playbooks);
  // Runs that pause for their user (NEEDS_USER) wait here, in the worker's process; the widget finds them here.
  const handoffs = new HandoffRegistry(config.worker.maxWaitingRuns);
  const linkTokens = new LinkTokenService(store, clock, catalogue, config, redirectUris);
  const userActionLinks = new UserActionLinks(handoffs, {
    find: async (id) => {
      const record = await store.repos.agentRequests.findById(id);
      return record
        ? {
            organizationId: record.organizationId,
            environment: record.environment,
            action: record.action,
            userAction: userActions.open(record),
            sealedUserAction: record.status === 'NEEDS_USER' ? record.sealedUserAction : null,
          }
        : null;
    },
    recordDecision: (id, sealed, decision) => store.repos.agentRequests.recordUserDecision(id, sealed, decision),
    decisionOutcome: (id, decision) => store.repos.agentRequests.userDecisionOutcome(id, decision),
    withdrawDecision: (id, decision) => store.repos.agentRequests.withdrawUserDecision(id, decision),
  });
  const connectionSettings = new ConnectionSettingsService(store, clock, catalogue, {
    intervalSeconds: config.healthCheck.intervalSeconds,
    directoryUrl: signatureDirectoryUrl(config.publicUrl),
  });
  // Web Bot Auth: the deployment's key (stored sealed by the vault, made on first use) and who signs with it.
  const agentSigningKeys = new AgentSigningKeys(store, vault, clock);
  const signingKeys = () => agentSigningKeys.keys();
  const signedAgent = new SignedAgent(connectionSettings, signingKeys, config.publicUrl);
  const linkSessions = new LinkSessionService({
    userActions: userActionLinks,
    store,
    clock,
    catalogue,
    connections,
    engine: loginEngine,
    redirectUris,
    // Every link session that ends, however the widget was opened, is reported once (LINK.SESSION_FINISHED).
    onFinished: (outcome) => webhookEvents.linkSessionFinished(outcome),
    hostUrl: config.internalUrl,
    passkeys: connectionPasskeys,
    // Sign-ins in the widget are signed as the connection's runs will be (Web Bot Auth, where both opted in).
    signing: signedAgent,
  });
  const sandboxSlugs = new Set(integrations.sites.map((s) => s.slug));
  const liveSignIn = new LiveSignIn(
    {
      browsers,
      linkSessions,
      // A simulated provider without a recipe still signs in to the organization's own copy of its site.
      sandboxTenantToken: (provider, organizationId) => {
        if (provider.environment !== 'sandbox' || !sandboxSlugs.has(provider.slug)) return null;
        const url = new URL(provider.loginUrl);
        url.searchParams.set('tenant_token', tenantTokens.issue(organizationId, provider.slug));
        return url.toString();
      },
    },
    { maxSessions: config.live.maxSessions, idleMs: config.live.idleSeconds * 1000 },
  );
  linkSessions.attachLive(liveSignIn);
  const runLiveViews = new RunLiveViews(
    { linkSessions },
    { maxViews: Math.max(1, config.worker.maxWaitingRuns * 2), idleMs: config.live.idleSeconds * 1000 },
  );
  const userActionDesk: UserActionDesk = {
    ttlMs: config.worker.userActionTtlSeconds * 1000,
    linkFor: async (record, expiresAt) => {
      const linkToken = await linkTokens.createForUserAction(record, expiresAt);
      return { linkToken, url: `${config.publicUrl}/link?token=${encodeURIComponent(linkToken)}` };
    },
    seal: (requestId, action) => userActions.seal(requestId, action),
    announce: (record, action) => webhookEvents.inBackground(webhookEvents.agentRequestNeedsUser(record, action)),
  };
  // Health checks of connections' sessions: asked for through the API in any process, scheduled in the worker role
  // (server/agent/health/); both take a lease on the connection's row under this process's id.
  const processId = newWorkerId();
  const healthLogger = createLogger(config.logLevel).child({ component: 'health' });
  const connectionHealth = new ConnectionHealthService(
    {
      store,
      clock,
      connections,
      catalogue,
      settings: connectionSettings,
      probe: new BrowserSessionProbe({
        browsers,
        connections,
        relogin: new LoginEngineRelogin(loginEngine, connectionPasskeys, signedAgent),
        signing: signedAgent,
      }),
      ownerId: processId,
      onError: (err, context) => healthLogger.error({ err, ...context }, 'connection check: applying the outcome failed'),
    },
    { budgetMs: config.healthCheck.budgetMs, concurrency: config.healthCheck.concurrency },
  );
  // With a model configured, actions the text search does not match may still be routed to a playbook by the model.
  if (config.model) playbooks.setModelRouter(modelPlaybookRouter(config.model));
  return {
    browsers,
    warmContexts,
    metrics,
    /** Metrics (and traces) of the runs of this process's worker. */
    tracing,
    agentRunTelemetry: new AgentRunTelemetry(metrics, tracing.tracer, (r) =>
      providerMetricLabel(catalogue.get(r.providerId, r.environment)),
    ),
    config,
    store,
    clock,
    vault,
    /** What NEEDS_USER runs wait for, sealed on their rows. */
    userActions,
    catalogue,
    organizationProviders,
    organizations,
    redirectUris,
    connections,
    /** Passkeys of connections' own (enrollPasskey), sealed like their passwords. */
    connectionPasskeys,
    connectionSettings,
    connectionHealth,
    /** Web Bot Auth: who signs a run's requests, and the keys the directory lists (signing key first). */
    signedAgent,
    signingKeys,
    /** This process's lease owner id (health checks). */
    processId,
    siteSessions,
    tenantTokens,
    sandboxSites,
    /** The simulated provider websites (served by host name in app.ts). */
    sites: integrations.sites,
    linkTokens,
    /** Paused runs of this process's worker, and what pausing one needs (server/agent/handoff/). */
    handoffs: { registry: handoffs, desk: userActionDesk },
    /** The widget's and the app's answers to paused runs (POST /api/agent-requests/{requestId}/user-action). */
    userActionLinks,
    runLiveViews,
    /** What the live view's socket drives: sign-ins, and views of paused runs. */
    liveViews: liveViews(liveSignIn, runLiveViews, (token) => linkSessions.isRunToken(token)),
    agentRequests: new AgentRequestService(
      store,
      clock,
      catalogue,
      connections,
      queue,
      agentEvents,
      (err, requestId) => queueLogger.error({ err, requestId }, 'enqueue failed; the request stays PENDING and is picked up by the sweep'),
      playbooks,
      tracing.tracer,
    ),
    providerActions: new ProviderActionService(catalogue, providerActions(playbooks)),
    agentEvents,
    queue,
    playbooks,
    sandbox: new SandboxService(catalogue, connections, sandboxSites),
    loginEngine,
    dashboard: new DashboardAccountService(store, clock, organizations),
    dashboardMembers: new OrganizationMembersService(store, clock),
    invitations: new InvitationService(store, clock),
    linkSessions,
    liveSignIn,
    // Rate limits count wall time even when the rest runs on a test clock (a manual clock would never refill).
    rateLimits: new RateLimitService(store.repos.rateLimitBuckets, systemClock, config.rateLimit),
    idempotency: new IdempotencyService(store.repos.idempotencyKeys, clock, vault),
    webhookEvents,
    webhookEndpoints,
    webhookPayloads,
    webhookDispatcher,
  };
}

export type Services = ReturnType<typeof buildServices>;
