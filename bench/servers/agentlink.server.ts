/**
 * AgentLink exactly as `agentlink serve --role api` runs it (server/main.ts), on the embedded default:
 * SQLite file and vault key file in AGENTLINK_DATA_DIR. Before serving, one organization is created
 * through OrganizationService (as `agentlink org create` does) and its sandbox credentials are handed
 * to the bench parent over IPC.
 *
 * --role api: the API only. With the default role (all) the embedded worker would start executing the
 * thousands of agent requests the bench queues, in Chromium, on the same 2 cores: that measures browser
 * automation, not the API. BENCH_ROLE=all overrides it.
 *
 * Env (set by bench/api.bench.ts): BENCH_PORT, AGENTLINK_DATA_DIR, LOG_LEVEL=silent, HOST=127.0.0.1,
 * AGENTLINK_RATE_LIMIT_* (see there).
 */
import { loadConfig } from '../../server/config';
import { systemClock } from '../../server/domain/clock';
import { OrganizationService } from '../../server/domain/organizations.service';
import { main } from '../../server/main';
import { Store } from '../../server/store';
import { exitWithParent, portFromEnv, send } from './protocol';

async function run() {
  exitWithParent();
  const port = portFromEnv();
  process.env.PORT = String(port);
  const config = loadConfig();
  if (config.database.type !== 'sqlite') throw new Error('the bench expects the embedded SQLite default');
  if (config.host !== '127.0.0.1') throw new Error('the bench server must listen on 127.0.0.1 only');

  const store = await Store.open(config.database);
  let clientId: string;
  let sandboxSecret: string;
  try {
    const created = await new OrganizationService(store, systemClock).create('AgentLink bench');
    clientId = created.clientId;
    sandboxSecret = created.sandboxSecret;
  } finally {
    await store.close();
  }

  await main(['serve', '--role', process.env.BENCH_ROLE === 'all' ? 'all' : 'api']); // resolves once the server listens
  send({ type: 'ready', port, clientId, sandboxSecret });
}

run().catch((err: unknown) => {
  send({ type: 'fatal', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});
