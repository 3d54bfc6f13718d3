import type http from 'node:http';
import type { AddressInfo } from 'node:net';

import { createHealthScheduler, type HealthScheduler } from '../agent/health';
import { createAgentWorker } from '../agent/worker/runtime';
import type { AgentWorker } from '../agent/worker/worker';
import { createApp, createWorkerOpsApp } from '../app';
import type { AppConfig } from '../config';
import { attachLiveSignIn } from '../connect/live/live-socket';
import { systemClock } from '../domain/clock';
import { createExpressServer } from '../http/express-server';
import { createLogger } from '../logger';
import { buildServices } from '../services';
import { Store } from '../store';
import { loadVault } from '../vault/keyring';
import { UsageError, type Values } from './command-table';
import { sameConfigPrefix } from './same-config';

/**
 * The roles of the binary: serve (API, and an embedded worker), worker, migrate. Loaded by server/main.ts only when
 * one of them runs, so `agentlink --help` and the operator's commands do not load the API, the agent and Chromium's driver.
 */
function describeDatabase(config: AppConfig) {
  return config.database.type === 'sqlite' ? `SQLite file ${config.database.file}` : 'PostgreSQL (DATABASE_URL)';
}

function describeWorker(config: AppConfig) {
  const engine = config.worker.queue === 'pg-boss' ? 'pg-boss queue on PostgreSQL' : 'embedded queue (claims from the database)';
  const model = config.model ? `planner model ${config.model.model}` : 'no model configured (playbooks and replays only)';
  const checks = config.healthCheck.intervalSeconds
    ? `sessions checked every ${config.healthCheck.intervalSeconds} s by default, ${config.healthCheck.concurrency} at a time`
    : 'scheduled session checks off';
  return `${engine}, ${config.worker.concurrency} at a time, ${model}; ${checks}`;
}

/** Stops the worker first (running requests finish or go back to the queue), then the rest. */
async function shutdownAll(parts: {
  worker?: AgentWorker;
  health?: HealthScheduler | null;
  server?: http.Server;
  services: ReturnType<typeof buildServices>;
  store: Store;
}) {
  if (parts.server) {
    const server = parts.server;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await parts.worker?.stop({ graceMs: 8000 }).catch(() => undefined);
  await parts.health?.stop().catch(() => undefined);
  await parts.services.webhookDispatcher.stop().catch(() => undefined);
  await parts.services.webhookEvents.idle().catch(() => undefined);
  await parts.services.queue.stop().catch(() => undefined);
  await parts.services.liveSignIn.closeAll().catch(() => undefined);
  await parts.services.runLiveViews.closeAll().catch(() => undefined);
  await parts.services.loginEngine.close().catch(() => undefined);
  await parts.services.browsers.close().catch(() => undefined);
  await parts.store.close().catch(() => undefined);
  // Exports the spans still buffered.
  await parts.services.tracing.shutdown().catch(() => undefined);
}

function onSignals(logger: ReturnType<typeof createLogger>, stop: () => Promise<void>) {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(0), 15_000).unref();
    void stop().finally(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

async function listen(server: http.Server, config: AppConfig) {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new UsageError(`port ${config.port} is in use: set PORT to another port`) : err),
    );
    server.listen(config.port, config.host, resolve);
  });
  // Slow or stalled clients must not hold sockets forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
}

export async function runWorker(config: AppConfig) {
  const logger = createLogger(config.logLevel);
  const store = await Store.open(config.database);
  const { vault } = loadVault(config);
  const services = buildServices({ config, store, clock: systemClock, vault });
  services.metrics.collectProcessMetrics();
  const worker = createAgentWorker(services, logger);
  // On PORT like every role: /healthz, /readyz (database, queue, browser), /metrics and the sandbox sites.
  const server = createExpressServer(createWorkerOpsApp(services, logger));
  // The live view of a run paused here: the API processes pipe the widget's socket to this one (relay/session-relay.ts).
  attachLiveSignIn(server, services.liveViews, { widgetOrigins: config.widgetOrigins, hosts: services.linkSessions });
  await listen(server, config);
  await worker.start();
  // Webhook deliveries and the connections' health checks run in the worker role (and in serve's embedded mode).
  services.webhookDispatcher.start();
  const health = createHealthScheduler(services, logger);
  health?.start();
  const base = `http://localhost:${(server.address() as AddressInfo).port}`;
  process.stdout.write(
    `AgentLink worker is running\n  Worker    ${describeWorker(config)}\n  Data      ${describeDatabase(config)}\n  Health    ${base}/readyz   (metrics: ${base}/metrics)\n`,
  );
  onSignals(logger, () => shutdownAll({ worker, health, server, services, store }));
}

export async function serve(config: AppConfig, values: Values) {
  const role = values.role ?? 'all';
  if (role !== 'all' && role !== 'api') throw new UsageError('serve --role must be all (API and worker) or api (API only)');
  const logger = createLogger(config.logLevel);
  const store = await Store.open(config.database);
  const { vault, generatedKeyFile } = loadVault(config);
  const services = buildServices({ config, store, clock: systemClock, vault });
  services.metrics.collectProcessMetrics();
  const worker = role === 'all' ? createAgentWorker(services, logger) : undefined;
  const app = createApp(services, logger, { worker: !!worker });
  const server = createExpressServer(app);
  // The connect widget's live sign-in view streams over a WebSocket on the API's own port.
  attachLiveSignIn(server, services.liveViews, { widgetOrigins: config.widgetOrigins, hosts: services.linkSessions });
  await listen(server, config);
  const base = config.publicUrl;
  const sameConfig = sameConfigPrefix(config);
  const lines = [
    '',
    `AgentLink is running`,
    `  Dashboard ${base}/dashboard`,
    `  API       ${base}/api`,
    `  Docs      ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  Health    ${base}/readyz   (liveness: ${base}/healthz, metrics: ${base}/metrics)`,
    `  Data      ${describeDatabase(config)}`,
    `  Worker    ${worker ? describeWorker(config) : 'none in this process (--role api): run `PORT=4001 npx agentlink worker`'}`,
    ...(generatedKeyFile
      ? [
          `  Vault     generated a new encryption key in ${generatedKeyFile} (keep it with the data; set AGENTLINK_ENCRYPTION_KEY in production)`,
        ]
      : []),
    `  Sandbox   ${services.catalogue
      .list('sandbox')
      .map((p) => p.homeUrl)
      .join('  ')}`,
    '',
    `Create an organization (prints its Client ID and secrets once), or sign up in the dashboard and create it there:`,
    `  ${sameConfig.prefix}npx agentlink org create --name "Acme"${sameConfig.note ? `   (${sameConfig.note})` : ''}`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const health = worker ? createHealthScheduler(services, logger) : null;
  if (worker) {
    await worker.start();
    services.webhookDispatcher.start();
    health?.start();
  }
  onSignals(logger, () => shutdownAll({ worker, health, server, services, store }));
}

export async function migrate(config: AppConfig) {
  const store = await Store.open(config.database);
  await store.close();
  process.stdout.write(`Migrations applied to ${describeDatabase(config)}\n`);
}
