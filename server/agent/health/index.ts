import type { Logger } from 'pino';

import type { Services } from '../../services';
import { HealthScheduler } from './health-scheduler';

export { HealthScheduler } from './health-scheduler';
export { BrowserSessionProbe } from './session-probe';

/**
 * This worker process's health-check scheduler, or null when the operator turned scheduled checks off
 * (AGENTLINK_HEALTH_CHECK_INTERVAL_SECONDS=0; checks asked for through the API still run).
 */
export function createHealthScheduler(services: Services, logger: Logger, opts: { pollMs?: number } = {}): HealthScheduler | null {
  const { config } = services;
  if (config.healthCheck.intervalSeconds === 0) return null;
  return new HealthScheduler(
    {
      store: services.store,
      clock: services.clock,
      health: services.connectionHealth,
      logger: logger.child({ component: 'health' }),
    },
    { concurrency: config.healthCheck.concurrency, pollMs: opts.pollMs ?? config.worker.pollMs, workerId: services.processId },
  );
}
