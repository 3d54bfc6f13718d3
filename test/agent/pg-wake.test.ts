import crypto from 'node:crypto';

import { Client } from 'pg';
import { z } from 'zod';

import { createAgentWorker } from '../../server/agent/worker/runtime';
import type { AgentWorker } from '../../server/agent/worker/worker';
import { createLogger } from '../../server/logger';
import { type AgentlinkProcess, startAgentlinkProcess } from '../support/agentlink-process';
import { postgresSkipped } from '../support/app';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { PG_URL_ENV } from '../support/pg-env';
import { pgTemplateClause } from '../support/store-templates';
import { awaitRequest, connectOrbit, eventually, type LiveOrg, liveOrg } from './agent-support';

/**
 * Work queued by another process reaches a worker at once (LISTEN/NOTIFY), on pg-boss and on the embedded queue alike, and a worker with a backlog takes
 * the next job as soon as a slot frees. The worker here polls only once a minute, so each bound below is one that
 * polling could not meet: a request accepted by the API process (a child `serve --role api`) runs within seconds, a
 * backlog of five on one slot drains within seconds, and after its listening connection is killed the worker
 * listens again and is woken as before.
 */
jest.setTimeout(120_000);

const maybe = postgresSkipped() ? describe.skip : describe;
const KEY = crypto.randomBytes(32).toString('base64');

function pgUrl(database: string) {
  const url = new URL(process.env[PG_URL_ENV]!);
  url.pathname = `/${database}`;
  return url.toString();
}

maybe.each(['pg-boss', 'embedded'] as const)('%s queue on PostgreSQL: wake-ups across processes', (engine) => {
  const database = `agentlink_wake_${crypto.randomBytes(5).toString('hex')}`;
  let live: LiveServer;
  let apiProcess: AgentlinkProcess;
  let worker: AgentWorker | undefined;
  let org: LiveOrg;
  let accessToken: string;

  beforeAll(async () => {
    const admin = new Client({ connectionString: pgUrl('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}${pgTemplateClause()}`);
    await admin.end();
    const env = { DATABASE_URL: pgUrl(database), AGENTLINK_ENCRYPTION_KEY: KEY, AGENTLINK_QUEUE: engine };
    live = await startLiveServer({ env: { ...env, AGENTLINK_WORKER_CONCURRENCY: '1', AGENTLINK_WORKER_POLL_MS: '60000' } });
    expect(live.services.queue.engine).toBe(engine);
    live.services.playbooks.register({
      providerSlug: 'orbit',
      name: 'test.quick',
      description: 'answers at once',
      writes: false,
      examples: ['test: quick'],
      resultFields: { ok: 'boolean' },
      parameters: z.unknown(),
      run: async () => {
        await new Promise((r) => setTimeout(r, 50));
        return { ok: true };
      },
    });
    org = await liveOrg(live);
    accessToken = (await connectOrbit(live, org)).accessToken;
    apiProcess = await startAgentlinkProcess(['serve', '--role', 'api'], { ...env, AGENTLINK_PUBLIC_URL: live.baseUrl });
    worker = createAgentWorker(live.services, createLogger('silent'));
    await worker.start();
    await eventually(listeners, (n) => n === 1, 15_000);
  });

  afterAll(async () => {
    await worker?.stop({ graceMs: 0 });
    await apiProcess?.stop();
    await live?.services.browsers.close();
    await live?.close();
    const admin = new Client({ connectionString: pgUrl('postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  });

  /** The wake channel's listening connections on this database. */
  async function listeners(): Promise<number> {
    const rows = await live.services.store.dataSource.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'agentlink-wake'`,
      [database],
    );
    return rows[0].n as number;
  }

  /** Posts through the other process: its NOTIFY, not this process's own enqueue, must wake the worker. */
  async function postElsewhere(): Promise<string> {
    const res = await fetch(`${apiProcess.base}/api/agent-requests`, {
      method: 'POST',
      headers: org.headers,
      body: JSON.stringify({
        accessToken,
        action: 'test: quick',
        startingUrl: live.siteUrl('orbit', '/'),
        responseFormat: { ok: 'boolean' },
      }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { requestId: string }).requestId;
  }

  it('runs a request accepted by another process at once, not at the next poll', async () => {
    await new Promise((r) => setTimeout(r, 1500)); // the worker's first fetches are over: it sleeps a 60 s poll now
    const id = await postElsewhere();
    const record = await awaitRequest(live, org, id, 15_000);
    expect(record).toMatchObject({ status: 'COMPLETED', attempts: 1 });
  });

  it('drains a backlog on one slot without waiting a poll between jobs', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => postElsewhere()));
    const started = Date.now();
    const records = await Promise.all(ids.map((id) => awaitRequest(live, org, id, 25_000)));
    for (const r of records) expect(r).toMatchObject({ status: 'COMPLETED' });
    expect(Date.now() - started).toBeLessThan(25_000); // paced by the poll it would take four minutes
  });

  it('listens again after its connection is killed, and is woken as before', async () => {
    await live.services.store.dataSource.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'agentlink-wake'`,
      [database],
    );
    await eventually(listeners, (n) => n === 0, 15_000);
    await eventually(listeners, (n) => n === 1, 15_000);
    const id = await postElsewhere();
    expect(await awaitRequest(live, org, id, 15_000)).toMatchObject({ status: 'COMPLETED' });
  });
});
