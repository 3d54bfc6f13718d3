import type { Logger } from 'pino';

import type { Services } from '../../services';
import { PlaybookStrategy } from '../playbooks';
import type { ExecutionStrategy } from '../run/context';
import type { WorkerTelemetry } from '../run/telemetry';
import { plannerStrategy, replayStrategy } from '../strategies';
import { LoginEngineRelogin } from './silent-relogin';
import { type WarmContexts } from './warm-contexts';
import { AgentWorker } from './worker';

/**
 * Builds this process's agent worker: the three ways in order (a playbook the request names or the text search
 * matches, a replay, a playbook the model routes to, then the planner), and silent re-login through the connect flow's login engine. The worker itself
 * gets only the narrow dependencies of WorkerDeps, picked here from the composition root.
 */
export function agentStrategies(services: Services): ExecutionStrategy[] {
  const deps = { store: services.store, config: services.config, clock: services.clock };
  // Named or text-matched playbook → replay → model-routed playbook → planner: a replay costs no model call.
  return [
    new PlaybookStrategy(services.playbooks, 'text'),
    replayStrategy(deps),
    ...(services.config.model ? [new PlaybookStrategy(services.playbooks, 'model')] : []),
    plannerStrategy(deps),
  ];
}

export function createAgentWorker(
  services: Services,
  logger: Logger,
  opts: { strategies?: ExecutionStrategy[]; heartbeatMs?: number; warm?: WarmContexts; telemetry?: WorkerTelemetry } = {},
): AgentWorker {
  const { config } = services;
  return new AgentWorker({
    queue: services.queue,
    requests: services.store.repos.agentRequests,
    connections: services.connections,
    providers: services.catalogue,
    browsers: services.browsers,
    clock: services.clock,
    events: services.agentEvents,
    settings: {
      leaseSeconds: config.worker.leaseSeconds,
      concurrency: config.worker.concurrency,
      maxAttempts: config.worker.maxAttempts,
      modelConfigured: !!config.model,
      ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}),
    },
    logger: logger.child({ component: 'worker' }),
    strategies: opts.strategies ?? agentStrategies(services),
    relogin: new LoginEngineRelogin(services.loginEngine, services.connectionPasskeys, services.signedAgent),
    warm: opts.warm ?? services.warmContexts,
    signing: services.signedAgent,
    telemetry: opts.telemetry ?? services.agentRunTelemetry,
    handoffs: services.handoffs,
  });
}
