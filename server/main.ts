import http from 'node:http';
import { parseArgs } from 'node:util';
import { createApp } from './app';
import { ConfigError, loadConfig, type AppConfig, type Environment } from './config';
import { systemClock } from './domain/clock';
import { OrganizationService } from './domain/organizations.service';
import { createLogger } from './logger';
import { buildServices } from './services';
import { Store } from './store';
import { loadVault } from './vault/keyring';

/**
 * One binary, several roles:
 *   serve                                  the API (and, later, the embedded worker)
 *   migrate                                apply database migrations and exit
 *   org create --name N [--json]           create an organization; prints its credentials once
 *   org list [--json]
 *   org rotate-secret --org ID --env sandbox|production [--json]
 */
const USAGE = `usage: agentlink <command>
  serve                                     start the service (PORT, AGENTLINK_DATA_DIR, DATABASE_URL …)
  migrate                                   apply database migrations and exit
  org create --name "Acme" [--json]         create an organization and print its credentials once
  org list [--json]                         list organizations (never their secrets)
  org rotate-secret --org <clientId|orgId> --env sandbox|production [--json]
                                            issue a new secret; the old one stops working at once`;

class UsageError extends Error {}

function describeDatabase(config: AppConfig) {
  return config.database.type === 'sqlite' ? `SQLite file ${config.database.file}` : 'PostgreSQL (DATABASE_URL)';
}

async function serve(config: AppConfig) {
  const logger = createLogger(config.logLevel);
  const store = await Store.open(config.database);
  const { vault, generatedKeyFile } = loadVault(config);
  const services = buildServices({ config, store, clock: systemClock, vault });
  const app = createApp(services, logger);
  const server = http.createServer(app);
  // Slow or stalled clients must not hold sockets forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const base = config.publicUrl;
  const lines = [
    '',
    `AgentLink is running`,
    `  API       ${base}/api`,
    `  Docs      ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  Health    ${base}/healthz`,
    `  Data      ${describeDatabase(config)}`,
    ...(generatedKeyFile ? [`  Vault     generated a new encryption key in ${generatedKeyFile} (keep it with the data; set AGENTLINK_ENCRYPTION_KEY in production)`] : []),
    `  Sandbox   ${services.catalogue.list('sandbox').map((p) => p.homeUrl).join('  ')}`,
    '',
    `Create an organization (prints its Client ID and secrets once):`,
    `  npm run agentlink -- org create --name "Acme"`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      void store.close().finally(() => process.exit(0));
    });
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

async function withStore<T>(config: AppConfig, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await Store.open(config.database);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function print(json: boolean, value: unknown, text: string) {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

async function org(config: AppConfig, args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { name: { type: 'string' }, org: { type: 'string' }, env: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const sub = positionals[0];
  const json = values.json ?? false;
  await withStore(config, async (store) => {
    const orgs = new OrganizationService(store, systemClock);
    if (sub === 'create') {
      const name = values.name?.trim();
      if (!name || name.length > 200) throw new UsageError('org create needs --name "<organization name>" (1-200 characters)');
      const c = await orgs.create(name);
      print(
        json,
        { organizationId: c.organization.id, name, clientId: c.clientId, sandboxSecret: c.sandboxSecret, productionSecret: c.productionSecret },
        [
          `Created organization ${name} (${c.organization.id})`,
          `  Client ID          ${c.clientId}`,
          `  Sandbox secret     ${c.sandboxSecret}`,
          `  Production secret  ${c.productionSecret}`,
          '',
          'The secrets are shown once and stored only as hashes. Keep them in your backend configuration:',
          `  AGENTLINK_CLIENT_ID=${c.clientId} AGENTLINK_CLIENT_SECRET=${c.sandboxSecret} AGENTLINK_BASE_URL=${config.publicUrl}`,
        ].join('\n'),
      );
      return;
    }
    if (sub === 'list') {
      const list = await orgs.list();
      const rows = list.map((o) => ({ organizationId: o.id, name: o.name, clientId: o.clientId, createdAt: o.createdAt.toISOString() }));
      print(json, rows, rows.length ? rows.map((r) => `${r.clientId}  ${r.organizationId}  ${r.createdAt}  ${r.name}`).join('\n') : 'No organizations yet.');
      return;
    }
    if (sub === 'rotate-secret') {
      const env = values.env as Environment | undefined;
      if (!values.org || (env !== 'sandbox' && env !== 'production')) {
        throw new UsageError('org rotate-secret needs --org <clientId|orgId> and --env sandbox|production');
      }
      const result = await orgs.rotateSecret(values.org, env);
      if (!result.ok) throw new UsageError(`no organization ${values.org}`);
      const { organization, secret } = result.value;
      print(
        json,
        { organizationId: organization.id, clientId: organization.clientId, environment: env, secret },
        `New ${env} secret for ${organization.name} (${organization.clientId}):\n  ${secret}\nThe previous ${env} secret no longer works.`,
      );
      return;
    }
    throw new UsageError(USAGE);
  });
}

export async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate':
      await withStore(config, async () => undefined);
      process.stdout.write(`Migrations applied to ${describeDatabase(config)}\n`);
      return;
    case 'org':
      return org(config, rest);
    default:
      throw new UsageError(USAGE);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
