import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from 'pg';

import { loadConfig } from '../../server/config';
import { systemClock } from '../../server/domain/clock';
import { OrganizationService } from '../../server/domain/organizations.service';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { Store } from '../../server/store';
import { type AgentlinkProcess, startAgentlinkProcess } from '../../test/support/agentlink-process';

/**
 * One deployment of the scale bench: API processes and worker processes of `bin/agentlink.js` sharing one database
 * (and one key), with an organization and a sandbox Orbit connection made through the first API process.
 */
export interface Cluster {
  label: string;
  apis: AgentlinkProcess[];
  workers: AgentlinkProcess[];
  /** Worker slots in all (each process runs AGENTLINK_WORKER_CONCURRENCY requests at once). */
  slots: number;
  headers: Record<string, string>;
  accessToken: string;
  /** Orbit's home page as this deployment serves it. */
  startingUrl: string;
  stop(): Promise<void>;
}

export const CONCURRENCY = 2;

/** `serve` on the embedded default: SQLite, the embedded queue, API and worker in one process. */
export async function singleProcess(): Promise<Cluster> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-bench-scale-'));
  const env = { AGENTLINK_DATA_DIR: dataDir, AGENTLINK_WORKER_CONCURRENCY: String(CONCURRENCY) };
  const creds = await createOrg(env);
  const api = await startAgentlinkProcess(['serve'], env);
  return connect({ label: 'one process (serve, SQLite, embedded queue)', apis: [api], workers: [], slots: CONCURRENCY, creds, dataDir });
}

/** `serve --role api` × apis and `worker` × workers on PostgreSQL with pg-boss. */
export async function distributed(pgBase: string, apis: number, workers: number): Promise<Cluster> {
  const database = `agentlink_scale_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: withDatabase(pgBase, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-bench-scale-'));
  const env: Record<string, string> = {
    DATABASE_URL: withDatabase(pgBase, database),
    AGENTLINK_QUEUE: 'pg-boss',
    AGENTLINK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AGENTLINK_DATA_DIR: dataDir,
    AGENTLINK_WORKER_CONCURRENCY: String(CONCURRENCY),
  };
  const creds = await createOrg(env);
  const first = await startAgentlinkProcess(['serve', '--role', 'api'], env);
  // One public address for the service (the sandbox sites the workers' browsers open are served there).
  const shared = { ...env, AGENTLINK_PUBLIC_URL: first.base };
  const rest = await Promise.all(Array.from({ length: apis - 1 }, () => startAgentlinkProcess(['serve', '--role', 'api'], shared)));
  const ws = await Promise.all(Array.from({ length: workers }, () => startAgentlinkProcess(['worker'], shared)));
  return connect({
    label: `${apis} API + ${workers} worker process${workers === 1 ? '' : 'es'} (PostgreSQL, pg-boss)`,
    apis: [first, ...rest],
    workers: ws,
    slots: workers * CONCURRENCY,
    creds,
    dataDir,
  });
}

function withDatabase(base: string, database: string) {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The organization, created in the database before the processes start (as `agentlink org create` does). */
async function createOrg(env: Record<string, string>) {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
  const store = await Store.open(config.database);
  try {
    const org = await new OrganizationService(store, systemClock).create('Scale bench');
    return { clientId: org.clientId, secret: org.sandboxSecret };
  } finally {
    await store.close();
  }
}

async function connect(o: {
  label: string;
  apis: AgentlinkProcess[];
  workers: AgentlinkProcess[];
  slots: number;
  creds: { clientId: string; secret: string };
  dataDir: string;
}): Promise<Cluster> {
  const headers = { 'x-client-id': o.creds.clientId, 'x-client-secret': o.creds.secret, 'content-type': 'application/json' };
  const base = o.apis[0]!.base;
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${base}${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${p}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const pt = await post('/api/sandbox/public_token/create', { providerId: ORBIT_PROVIDER_ID, clientUserId: 'scale-user' });
  const ex = await post('/api/connections/public_token/exchange', { publicToken: pt.publicToken });
  const orbit = (await (await fetch(`${base}/api/providers/${ORBIT_PROVIDER_ID}`, { headers })).json()) as { homeUrl: string };
  return {
    label: o.label,
    apis: o.apis,
    workers: o.workers,
    slots: o.slots,
    headers,
    accessToken: ex.access_token!,
    startingUrl: orbit.homeUrl,
    stop: async () => {
      await Promise.all([...o.workers, ...o.apis].map((p) => p.stop()));
      fs.rmSync(o.dataDir, { recursive: true, force: true });
    },
  };
}
