import crypto from 'node:crypto';

import { Client } from 'pg';
import { z } from 'zod';

import { createAgentWorker } from '../../server/agent/worker/runtime';
import type { AgentWorker } from '../../server/agent/worker/worker';
import { systemClock } from '../../server/domain/clock';
import { createLogger } from '../../server/logger';
import { buildServices, type Services } from '../../server/services';
import { Store } from '../../server/store';
import { loadVault } from '../../server/vault/keyring';
import { postgresSkipped } from '../support/app';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { PG_URL_ENV } from '../support/pg-env';
import { pgTemplateClause } from '../support/store-templates';
import { awaitRequest, connectOrbit, createRequest, liveOrg } from './agent-support';

/**
 * The pg-boss engine on the shared embedded PostgreSQL: two workers (each with its own store, queue and
 * browser, as two processes would have) share N requests; every request runs exactly once.
 */
jest.setTimeout(90_000);

const N = 8;
const maybe = postgresSkipped() ? describe.skip : describe;

function pgUrl(database: string) {
  const url = new URL(process.env[PG_URL_ENV]!);
  url.pathname = `/${database}`;
  return url.toString();
}

maybe('pg-boss queue', () => {
  const database = `agentlink_pgq_${crypto.randomBytes(5).toString('hex')}`;
  let live: LiveServer;
  let second: { services: Services; store: Store; worker: AgentWorker } | undefined;
  let first: AgentWorker | undefined;
  const runs = new Map<string, string[]>();

  const countingPlaybook = (workerName: string) => ({
    providerSlug: 'orbit',
    name: 'test.count',
    description: 'counts its runs',
    writes: false,
    examples: ['test: count'],
    resultFields: { ok: 'boolean' },
    parameters: z.unknown(),
    run: async (ctx: { requestId: string }) => {
      runs.set(ctx.requestId, [...(runs.get(ctx.requestId) ?? []), workerName]);
      await new Promise((r) => setTimeout(r, 300));
      return { ok: true };
    },
  });

  beforeAll(async () => {
    const admin = new Client({ connectionString: pgUrl('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}${pgTemplateClause()}`);
    await admin.end();
    live = await startLiveServer({
      env: {
        DATABASE_URL: pgUrl(database),
        AGENTLINK_WORKER_CONCURRENCY: '2',
        AGENTLINK_WORKER_POLL_MS: '500',
        AGENTLINK_LEASE_SECONDS: '10',
      },
    });
    expect(live.services.queue.engine).toBe('pg-boss');
    live.services.playbooks.register(countingPlaybook('one'));
    first = createAgentWorker(live.services, createLogger('silent'));

    const config = live.services.config;
    const store = await Store.open(config.database);
    const services = buildServices({ config, store, clock: systemClock, vault: loadVault(config).vault });
    services.playbooks.register(countingPlaybook('two'));
    second = { services, store, worker: createAgentWorker(services, createLogger('silent')) };
    await Promise.all([first.start(), second.worker.start()]);
  });

  afterAll(async () => {
    await Promise.all([first?.stop({ graceMs: 0 }), second?.worker.stop({ graceMs: 0 })]);
    await second?.services.queue.stop();
    await second?.services.browsers.close();
    await second?.store.close();
    await live?.services.browsers.close();
    await live?.close();
    const admin = new Client({ connectionString: pgUrl('postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  });

  it(`runs each of ${N} requests exactly once across two workers`, async () => {
    const org = await liveOrg(live);
    const conn = await connectOrbit(live, org);
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      ids.push(
        await createRequest(live, org, {
          accessToken: conn.accessToken,
          action: 'test: count',
          startingUrl: live.siteUrl('orbit', '/'),
          responseFormat: { ok: 'boolean' },
        }),
      );
    }
    const records = await Promise.all(ids.map((id) => awaitRequest(live, org, id, 30_000)));
    for (const r of records) expect(r).toMatchObject({ status: 'COMPLETED', result: { ok: true }, method: 'PLAYBOOK' });
    for (const id of ids) expect(runs.get(id)).toHaveLength(1);
    const byWorker = [...runs.values()].flat();
    expect(byWorker.filter((w) => w === 'one').length + byWorker.filter((w) => w === 'two').length).toBe(N);
    expect(new Set(byWorker)).toEqual(new Set(['one', 'two']));
    const rows = await live.services.store.dataSource.query('SELECT attempts FROM agent_requests WHERE id = ANY($1)', [ids]);
    expect(rows.map((r: { attempts: number }) => Number(r.attempts))).toEqual(Array(N).fill(1));
  });

  it('re-sends and re-runs a request whose worker died holding it (expired lease, job gone)', async () => {
    await Promise.all([first!.stop({ graceMs: 0 }), second!.worker.stop({ graceMs: 0 })]);
    const org = await liveOrg(live, 'Recovery Org');
    const conn = await connectOrbit(live, org);
    const id = await createRequest(live, org, {
      accessToken: conn.accessToken,
      action: 'test: count',
      startingUrl: live.siteUrl('orbit', '/'),
      responseFormat: { ok: 'boolean' },
    });
    // A worker took the job and the row, then vanished: its lease has run out and its job is gone.
    const now = new Date();
    expect(await live.services.store.repos.agentRequests.claim(id, 'dead-worker', now, new Date(now.getTime() - 1000), 2)).toBe(true);
    await live.services.store.dataSource.query(`DELETE FROM agentlink_pgboss.job WHERE singleton_key = $1`, [id]);

    await first!.start();
    const record = await awaitRequest(live, org, id, 20_000);
    expect(record).toMatchObject({ status: 'COMPLETED', result: { ok: true } });
    expect(runs.get(id)).toEqual(['one']);
    expect((await live.services.store.repos.agentRequests.findById(id))?.attempts).toBe(2);
  });
});
