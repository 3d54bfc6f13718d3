import type http from 'node:http';
import type { AddressInfo } from 'node:net';

import { createHealthScheduler, type HealthScheduler } from './agent/health';
import { createAgentWorker } from './agent/runtime';
import type { AgentWorker } from './agent/worker';
import { createApp, createWorkerOpsApp } from './app';
import {
  type Command,
  type CommandGroup,
  commandHelp,
  groupLines,
  parseOptions,
  runGroup,
  UsageError,
  type Values,
  wantsHelp,
} from './cli/command-table';
import { environmentWithEnvFile } from './cli/env-file';
import { ORG_COMMANDS } from './cli/org.cli';
import { sameConfigPrefix } from './cli/same-config';
import { type AppConfig, ConfigError, loadConfig } from './config';
import { attachLiveSignIn } from './connect/live/live-socket';
import { systemClock } from './domain/clock';
import { createExpressServer } from './http/express-server';
import { createLogger } from './logger';
import { McpStdioError, serveMcpOverStdio } from './mcp/mcp-stdio';
import { buildServices } from './services';
import { Store } from './store';
import { loadVault } from './vault/keyring';
import { VAULT_COMMANDS } from './vault/vault.cli';
import { AGENTLINK_VERSION } from './version';

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

async function runWorker(config: AppConfig) {
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

async function serve(config: AppConfig, values: Values) {
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

async function migrate(config: AppConfig) {
  const store = await Store.open(config.database);
  await store.close();
  process.stdout.write(`Migrations applied to ${describeDatabase(config)}\n`);
}

function print(json: boolean, value: unknown, text: string) {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

const write = (text: string) => process.stdout.write(text);

/** What a command runs with: the configuration, read only when a command runs (never for --help or --version). */
type Ctx = { config: AppConfig; print: typeof print; warn: (text: string) => void };

/**
 * One binary, several roles (the package's `agentlink` bin, bin/agentlink.js): the commands below, then the groups of
 * operator commands (server/cli/org.cli.ts, server/vault/vault.cli.ts). Each entry gives its usage and --help.
 */
const COMMANDS: Command<Ctx>[] = [
  {
    name: 'serve',
    args: '[--role all|api]',
    summary: 'start the service; role all (default) also runs a worker, role api only the API',
    details: ['Settings: PORT, AGENTLINK_DATA_DIR, DATABASE_URL … from the environment, over those of ./.env (see the README).'],
    options: { role: { type: 'string' } },
    optionHelp: { role: 'all (API and an embedded worker, the default) or api (API only)' },
    run: ({ config }, values) => serve(config, values),
  },
  {
    name: 'worker',
    summary: 'run only a worker (any number, against one database); serves /healthz, /readyz, /metrics on PORT',
    run: ({ config }) => runWorker(config),
  },
  { name: 'migrate', summary: 'apply database migrations and exit', run: ({ config }) => migrate(config) },
  {
    name: 'mcp',
    summary: "the MCP server over stdio, for local agents: forwards to a running AgentLink's /mcp",
    details: [
      'Environment: AGENTLINK_CLIENT_ID and AGENTLINK_CLIENT_SECRET (from `agentlink org create`), AGENTLINK_BASE_URL',
      '(default AGENTLINK_PUBLIC_URL, else http://localhost:$PORT). stdout carries only the protocol.',
    ],
    run: ({ config }) => serveMcpOverStdio(config),
  },
];

const GROUPS: CommandGroup<Ctx>[] = [ORG_COMMANDS, VAULT_COMMANDS];

function usage(): string {
  const top = COMMANDS.map((c) => {
    const line = `${c.name}${c.args ? ` ${c.args}` : ''}`;
    return `  ${line.padEnd(42)}${c.summary}`;
  });
  return [
    'usage: agentlink <command> [options]',
    ...top,
    ...GROUPS.flatMap((g) => groupLines(g as CommandGroup<unknown>)),
    '',
    '  --help                                    help (also after any command: agentlink org create --help)',
    '  --version                                 the version of agentlink',
    '',
  ].join('\n');
}

export async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v' || command === 'version') return write(`${AGENTLINK_VERSION}\n`);
  if (command === '--help' || command === '-h' || command === 'help') return write(usage());
  // Read once, when a command runs: ./.env under the environment (one configuration source for every command).
  let config: AppConfig | undefined;
  const ctx = (): Ctx => ({
    config: (config ??= loadConfig(environmentWithEnvFile(process.env))),
    print,
    warn: (text) => process.stderr.write(text),
  });
  const top = COMMANDS.find((c) => c.name === command);
  if (top) {
    if (wantsHelp(rest)) return write(commandHelp('agentlink', top as Command<unknown>));
    const values = parseOptions(`agentlink ${top.name}`, top.options ?? {}, rest);
    return top.run(ctx(), values);
  }
  const group = GROUPS.find((g) => g.name === command);
  if (group) return runGroup('agentlink', group, rest, ctx, write);
  if (command?.startsWith('-')) throw new UsageError(`agentlink: unknown option ${command} (see 'agentlink --help')`);
  throw new UsageError(usage().trimEnd());
}

/** The command line: usage and configuration errors exit 2 with their message, anything else 1 with its stack. */
export function runCli(argv: string[]): void {
  main(argv).catch((err) => {
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof McpStdioError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

if (require.main === module) runCli(process.argv.slice(2));
