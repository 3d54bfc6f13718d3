import { randomBytes } from 'node:crypto';
import os from 'node:os';

import type { Logger } from 'pino';

import type { AppConfig } from '../../config';
import type { Store } from '../../store';
import type { Clock, QueueSignals } from '../ports';
import { EmbeddedQueue } from './embedded.queue';
import { PgBossQueue } from './pg-boss.queue';
import type { AgentQueue } from './queue';

export type { AgentQueue, ClaimedRequest } from './queue';

/** A lease owner id that names the machine and process in logs: host:pid:random. */
export function newWorkerId(): string {
  return `${os.hostname().slice(0, 60)}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** The configured engine: pg-boss needs PostgreSQL; embedded works on both. */
export function buildQueue(
  deps: { config: AppConfig; store: Store; clock: Clock; events: QueueSignals; logger?: Logger },
  workerId = newWorkerId(),
): AgentQueue {
  const { config } = deps;
  const settings = { leaseMs: config.worker.leaseSeconds * 1000, pollMs: config.worker.pollMs, maxAttempts: config.worker.maxAttempts };
  if (config.worker.queue === 'pg-boss') {
    if (config.database.type !== 'postgres') throw new Error('AGENTLINK_QUEUE=pg-boss needs PostgreSQL (DATABASE_URL)');
    return new PgBossQueue(deps, settings, workerId, config.database.url);
  }
  return new EmbeddedQueue(deps, settings, workerId, config.database.type === 'postgres' ? config.database.url : undefined);
}
