/**
 * Failed-authentication flood: does a flood of bad secrets against one organization slow down another?
 *
 *   npm run bench:auth-flood                 # 4 s idle, 6 s flood, per scenario
 *   npm run bench:auth-flood -- --quick      # 2 s + 3 s
 *
 * AgentLink runs in a child process on 127.0.0.1 exactly as `agentlink serve --role api` (bench/servers/agentlink.server.ts,
 * SQLite + key file in a temp dir). Two organizations: the attacker floods organization A's client id from 32 parallel
 * keep-alive clients, each sending GET /api/providers with a fresh random, well-formed x-client-secret as fast as the
 * server answers; meanwhile organization B (valid credentials) sends GET /api/providers from 4 clients, and its p50 is
 * compared with B's p50 with no flood. Two scenarios:
 *   - defaults: the failure budgets (per client id, per address) and the bounded scrypt pool, as in production;
 *   - budgets off (AGENTLINK_AUTH_FAILURES_PER_* = 100000): every bad secret reaches scrypt, so only the bound on
 *     concurrent verifications protects B.
 * Target: B's p50 under the flood within 2x of idle (defaults). Bounded in time (each phase) and in connections (36).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { systemClock } from '../server/domain/clock';
import { OrganizationService } from '../server/domain/organizations.service';
import { Store } from '../server/store';
import { type ChildServer, cleanup, makeTempDir, startServer } from './api/child-servers';

const FLOOD_CLIENTS = 32;
const VICTIM_CLIENTS = 4;

interface Credentials {
  clientId: string;
  secret: string;
}

/** One GET on a keep-alive agent; resolves with the status (never rejects: a refused connection is status 0). */
function getProviders(base: string, agent: http.Agent, creds: Credentials): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(
      `${base}/api/providers`,
      { agent, headers: { 'x-client-id': creds.clientId, 'x-client-secret': creds.secret } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
  });
}

/** `clients` closed loops until the deadline; returns every latency (ms) and the statuses seen. */
async function loops(base: string, clients: number, untilMs: number, creds: () => Credentials) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < untilMs) {
        const started = process.hrtime.bigint();
        const status = await getProviders(base, agent, creds());
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  agent.destroy();
  return { latencies, statuses };
}

const p50 = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};
const fmtStatuses = (m: Map<number, number>) =>
  [...m.entries()]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');

async function scenario(name: string, env: Record<string, string>, idleSeconds: number, floodSeconds: number) {
  const dataDir = path.join(makeTempDir(), 'agentlink');
  const server: ChildServer = await startServer('agentlink', 'agentlink.server.ts', {
    AGENTLINK_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    AGENTLINK_RATE_LIMIT_PER_SECOND: '0',
    ...env,
  });
  try {
    const victim: Credentials = { clientId: server.ready.clientId!, secret: server.ready.sandboxSecret! };
    // The attacker's target: a second organization, created in the same database the way `agentlink org create` does.
    const store = await Store.open({ type: 'sqlite', file: path.join(dataDir, 'agentlink.sqlite') }, { migrate: false });
    const target = await new OrganizationService(store, systemClock).create('flood target');
    await store.close();
    const bad = (): Credentials => ({ clientId: target.clientId, secret: `sk_sandbox_${randomBytes(32).toString('base64url')}` });

    await loops(server.base, VICTIM_CLIENTS, Date.now() + 1000, () => victim); // warm-up (verifies B's secret once)
    const idle = await loops(server.base, VICTIM_CLIENTS, Date.now() + idleSeconds * 1000, () => victim);
    const floodUntil = Date.now() + floodSeconds * 1000;
    const [flood, during] = await Promise.all([
      loops(server.base, FLOOD_CLIENTS, floodUntil, bad),
      // B starts a moment later, once the flood is running.
      new Promise((r) => setTimeout(r, 300)).then(() => loops(server.base, VICTIM_CLIENTS, floodUntil, () => victim)),
    ]);
    const ratio = p50(during.latencies) / p50(idle.latencies);
    console.log(`\n${name}`);
    console.log(`  idle   B p50 ${p50(idle.latencies).toFixed(2)} ms  (${idle.latencies.length} requests: ${fmtStatuses(idle.statuses)})`);
    console.log(
      `  flood  B p50 ${p50(during.latencies).toFixed(2)} ms  (${during.latencies.length} requests: ${fmtStatuses(during.statuses)})`,
    );
    console.log(`  flood  attacker: ${flood.latencies.length} requests from ${FLOOD_CLIENTS} clients: ${fmtStatuses(flood.statuses)}`);
    console.log(`  ratio  ${ratio.toFixed(2)}x  ${ratio <= 2 ? 'OK (target <= 2x)' : 'OVER the 2x target'}`);
    return ratio;
  } finally {
    await cleanup(); // stops the child server and removes the temp dir
  }
}

async function run() {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  const [idle, flood] = values.quick ? [2, 3] : [4, 6];
  const ratio = await scenario('defaults (failure budgets + bounded scrypt)', {}, idle, flood);
  await scenario(
    'budgets off (every bad secret reaches scrypt; only the bound on concurrent verifications helps)',
    { AGENTLINK_AUTH_FAILURES_PER_CLIENT_ID: '100000', AGENTLINK_AUTH_FAILURES_PER_ADDRESS: '100000' },
    idle,
    flood,
  );
  process.exitCode = ratio <= 2 ? 0 : 1;
}

run().catch(async (err: unknown) => {
  console.error(err);
  await cleanup();
  process.exit(1);
});
