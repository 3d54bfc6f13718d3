/**
 * Health-check bench: what checking one connection's session costs, and how long this machine takes to check many.
 *
 *   npm run bench:health                                   # 31 runs of each row (after 3 warm-up), then 1,000 connections
 *   npm run bench:health -- --runs 51 --connections 2000 --concurrency 4
 *   npm run bench:health -- --quick                        # 7 runs, 100 connections (a smoke run)
 *
 * One process runs AgentLink as a worker does (SQLite in a temp dir, real Chromium, the sandbox sites served on
 * 127.0.0.1 by the same process, so the simulated provider's own work is in this process's CPU too). Connections are
 * made directly through the services: a real, minted Orbit session for each (user_good), sealed like any other.
 *   - one check, through ConnectionHealthService.checkNow (claim, unseal, probe, seal back, outcome written), per
 *     outcome: SIGNED_IN (the live session: cookies, then the home page's answer), LOGIN_REQUIRED (the site ended the
 *     session; no credentials), RENEWED (ended; a silent re-login with the stored credentials, and its session proven).
 *     Side by side on Quill (the sandbox's WebAuthn site): RENEWED with the stored password, and RENEWED with the
 *     connection's own passkey and no password (issue 37). The passkey rows' connections take turns with one passkey
 *     (made once at Quill by AgentLink's authenticator), each handed the latest sign count before its check (outside
 *     the timing): a site refuses a count that goes back, and Quill's passkey-first account takes only one passkey.
 *     Wall time median and p90; CPU of this process and of Chromium per check (over the timed runs); the bytes the
 *     check's browser exchanged through the egress proxy (Chromium's own count of headers and bodies, in a separate
 *     pass: counting costs a DevTools call per request). The floor row is the same home-page load in a bare context
 *     (no proxy, no vault, no database): the part of a check that is the browser's.
 *   - N connections due at once, checked by the scheduler (server/agent/health/) with its concurrency bound: wall
 *     time, checks per second, and the peak resident memory of this process plus its Chromium processes.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { createHealthScheduler } from '../server/agent/health';
import { BrowserSessionProbe, type ProbeCost } from '../server/agent/health/session-probe';
import { sessionFence } from '../server/agent/worker/run-session';
import { LoginEngineRelogin } from '../server/agent/worker/silent-relogin';
import { createApp } from '../server/app';
import { openPasskeyWindow, type VirtualCredential } from '../server/browser/webauthn-environment';
import { loadConfig } from '../server/config';
import { systemClock } from '../server/domain/clock';
import { ConnectionHealthService } from '../server/domain/connection-health.service';
import { ORBIT_PROVIDER_ID } from '../server/integrations/orbit/orbit.provider';
import { QUILL_PROVIDER_ID } from '../server/integrations/quill/quill.provider';
import { createLogger } from '../server/logger';
import { tenantFor } from '../server/sandbox/site-sessions';
import { buildServices } from '../server/services';
import { type ConnectionCheckOutcome, type ConnectionRecord, Store } from '../server/store';
import { loadVault } from '../server/vault/keyring';
import { startTreeSampler, type TreeUsage } from './agent/process-tree';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    concurrency: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const QUICK = values.quick === true;
const RUNS = Math.max(1, Number(values.runs ?? (QUICK ? 7 : 31)));
const WARMUP = Math.max(0, Number(values.warmup ?? (QUICK ? 1 : 3)));
const BYTE_RUNS = Math.min(RUNS, 5);
const CONNECTIONS = Math.max(1, Math.min(20_000, Number(values.connections ?? (QUICK ? 100 : 1000))));
const CONCURRENCY = values.concurrency ?? process.env.AGENTLINK_HEALTH_CHECK_CONCURRENCY ?? '2';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(0.9 * xs.length) - 1)]!;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-bench-health-'));
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    PORT: String(port),
    AGENTLINK_PUBLIC_URL: `http://localhost:${port}`,
    AGENTLINK_DATA_DIR: dataDir,
    AGENTLINK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AGENTLINK_HEALTH_CHECK_INTERVAL_SECONDS: '3600',
    AGENTLINK_HEALTH_CHECK_CONCURRENCY: CONCURRENCY,
    AGENTLINK_WORKER_POLL_MS: '100',
    ...(process.env.AGENTLINK_CHROMIUM_PATH ? { AGENTLINK_CHROMIUM_PATH: process.env.AGENTLINK_CHROMIUM_PATH } : {}),
  });
  const store = await Store.open(config.database);
  const { vault } = loadVault(config);
  const services = buildServices({ config, store, clock: systemClock, vault });
  server.on('request', createApp(services, createLogger('silent')));
  const org = await services.organizations.create('Bench');
  const owner = { organizationId: org.organization.id, environment: 'sandbox' as const };
  const orbit = services.catalogue.get(ORBIT_PROVIDER_ID, 'sandbox')!;

  let made = 0;
  const connect = async (opts: { credentials?: boolean; prefix?: string; site?: 'orbit' | 'quill'; username?: string } = {}) => {
    const site = opts.site ?? 'orbit';
    const username = opts.username ?? 'user_good';
    const session = await services.siteSessions.mint(owner, site, username);
    const created = await services.connections.create(owner, {
      providerId: site === 'orbit' ? ORBIT_PROVIDER_ID : QUILL_PROVIDER_ID,
      clientUserId: `${opts.prefix ?? 'bench'}-${(made += 1)}`,
      session,
      ...(opts.credentials ? { credentials: { username, password: 'pass_good' } } : {}),
    });
    return created.connection;
  };
  /** A Quill account's passkey, made as a connection's is: the password, then "Add a passkey" answered by AgentLink's authenticator. */
  const quill = services.catalogue.get(QUILL_PROVIDER_ID, 'sandbox')!;
  const enrollPasskey = async (username: string): Promise<VirtualCredential> => {
    const context = await services.browsers.newContext();
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(quill.loginStartUrl!(quill.loginUrl, owner));
      await page.getByLabel('Username or email').fill(username);
      await page.getByLabel('Password').fill('pass_good');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: 'Add a passkey' }).waitFor();
      const window = await openPasskeyWindow(page);
      try {
        await page.getByRole('button', { name: 'Add a passkey' }).click();
        const made = await window.credentialAdded(15_000);
        await page.waitForURL(/\/notes$/);
        if (!made) throw new Error(`no passkey was made for ${username}`);
        return made;
      } finally {
        await window.close();
      }
    } finally {
      await context.close();
    }
  };
  // user_passkey's password signs in straight away once it holds a passkey (else Quill offers one first).
  await enrollPasskey('user_passkey');
  let passkey = await enrollPasskey('user_passkey_first');
  const handPasskey = async (c: ConnectionRecord) => {
    if (!(await services.connectionPasskeys.keep(c.id, passkey))) throw new Error('the passkey was not kept');
  };
  const takePasskeyBack = async (c: ConnectionRecord) => {
    const row = await store.repos.connections.findById(c.id);
    const held = row && services.connectionPasskeys.open(row);
    if (!held || held.signCount <= passkey.signCount) throw new Error('the passkey did not sign in');
    passkey = held;
  };
  /** The site forgets every session of the organization: each connection's stored one has ended. */
  const endSiteSessions = () => store.dataSource.query('DELETE FROM sandbox_sessions WHERE tenant = ?', [tenantFor(owner.organizationId)]);
  const costs: ProbeCost[] = [];
  const healthWith = (countBytes: boolean) =>
    new ConnectionHealthService(
      {
        store,
        clock: systemClock,
        connections: services.connections,
        catalogue: services.catalogue,
        settings: services.connectionSettings,
        probe: new BrowserSessionProbe({
          browsers: services.browsers,
          connections: services.connections,
          relogin: new LoginEngineRelogin(services.loginEngine, services.connectionPasskeys),
          ...(countBytes ? { onCost: (c: ProbeCost) => costs.push(c) } : {}),
        }),
        ownerId: 'bench',
      },
      { budgetMs: config.healthCheck.budgetMs, concurrency: 1 },
    );
  const timed = healthWith(false);
  const counted = healthWith(true);

  // ---------- one check, per outcome ----------
  type Row = {
    label: string;
    outcome: ConnectionCheckOutcome | 'floor';
    prepare: (n: number) => Promise<ConnectionRecord[]>;
    /** Before and after each check, outside its timing. */
    before?: (c: ConnectionRecord) => Promise<void>;
    after?: (c: ConnectionRecord) => Promise<void>;
  };
  const fresh =
    (credentials: boolean, ended: boolean, on: Parameters<typeof connect>[0] = {}) =>
    async (n: number) => {
      const list: ConnectionRecord[] = [];
      for (let i = 0; i < n; i++) list.push(await connect({ ...on, credentials }));
      if (ended) await endSiteSessions();
      return list;
    };
  const rows: Row[] = [
    { label: 'floor: bare context, home page answer', outcome: 'floor', prepare: fresh(false, false) },
    { label: 'SIGNED_IN (cookies, home page answer)', outcome: 'SIGNED_IN', prepare: fresh(false, false) },
    { label: 'LOGIN_REQUIRED (ended, no credentials)', outcome: 'LOGIN_REQUIRED', prepare: fresh(false, true) },
    { label: 'RENEWED (ended, silent re-login, proven)', outcome: 'RENEWED', prepare: fresh(true, true) },
    {
      label: 'RENEWED, Quill: stored password, proven',
      outcome: 'RENEWED',
      prepare: fresh(true, true, { site: 'quill', username: 'user_passkey' }),
    },
    {
      label: "RENEWED, Quill: the connection's passkey, no password, proven",
      outcome: 'RENEWED',
      prepare: fresh(false, true, { site: 'quill', username: 'user_passkey_first' }),
      before: handPasskey,
      after: takePasskeyBack,
    },
  ];
  const checkOnce = async (row: Row, c: ConnectionRecord, health: ConnectionHealthService): Promise<number> => {
    await row.before?.(c);
    const ms = await timeCheck(row, c, health);
    await row.after?.(c);
    return ms;
  };
  const timeCheck = async (row: Row, c: ConnectionRecord, health: ConnectionHealthService): Promise<number> => {
    const t0 = performance.now();
    if (row.outcome === 'floor') {
      // The same context a check opens (the connection's device and session), without the fence.
      const fence = sessionFence(services.connections.deviceOf(c), null, services.connections.openSession(c), () => true);
      const context = await services.browsers.newContext({ ...fence.options, ...(fence.identity?.options ?? {}) });
      try {
        await (await context.newPage()).goto(orbit.homeUrl, { waitUntil: 'commit' });
      } finally {
        await context.close();
      }
      return performance.now() - t0;
    }
    const result = await health.checkNow(owner, c.id);
    const ms = performance.now() - t0;
    if (!result.ok || result.value.outcome !== row.outcome) {
      throw new Error(`${row.label}: ${result.ok ? `${result.value.outcome} (${result.value.reason ?? ''})` : result.error.code}`);
    }
    return ms;
  };

  process.stdout.write(`Warming up (${WARMUP} run${WARMUP === 1 ? '' : 's'} of each row) …\n`);
  for (const row of rows) for (const c of await row.prepare(WARMUP)) await checkOnce(row, c, timed);

  const results: { row: Row; times: number[]; usage: TreeUsage | null; bytes: number[]; deepest: string }[] = [];
  for (const row of rows) {
    process.stdout.write(`  ${row.label}: ${RUNS} runs …\n`);
    const list = await row.prepare(RUNS);
    const sampler = startTreeSampler();
    const times: number[] = [];
    for (const c of list) times.push(await checkOnce(row, c, timed));
    const usage = sampler.stop();
    costs.length = 0;
    if (row.outcome !== 'floor') for (const c of await row.prepare(BYTE_RUNS)) await checkOnce(row, c, counted);
    results.push({ row, times, usage, bytes: costs.map((c) => c.bytes), deepest: costs[0]?.deepest ?? '–' });
  }

  // ---------- N connections due at once, through the scheduler ----------
  process.stdout.write(`Making ${CONNECTIONS} connections …\n`);
  const many: string[] = [];
  for (let i = 0; i < CONNECTIONS; i++) many.push((await connect({ prefix: 'many' })).id);
  const due = new Date(Date.now() - 1000);
  for (const id of many) await store.repos.connections.planCheck(id, due);
  const scheduler = createHealthScheduler(services, createLogger('silent'), { pollMs: 100 })!;
  const checkedCount = async () =>
    Number(
      (
        (await store.dataSource.query(`SELECT COUNT(*) AS n FROM connections WHERE organization_id = ? AND last_checked_at >= ?`, [
          owner.organizationId,
          due.toISOString().replace('T', ' ').replace('Z', ''),
        ])) as { n: number }[]
      )[0]!.n,
    );
  process.stdout.write(`Checking them, ${config.healthCheck.concurrency} at a time …\n`);
  const sampler = startTreeSampler();
  const t0 = performance.now();
  scheduler.start();
  let reported = 0;
  for (;;) {
    const n = await checkedCount();
    if (n >= CONNECTIONS) break;
    if (n - reported >= CONNECTIONS / 10) {
      process.stdout.write(`  ${n} checked after ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
      reported = n;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (performance.now() - t0) / 1000;
  await scheduler.stop();
  const usage = sampler.stop();
  const outcomes = (await store.dataSource.query(
    "SELECT last_check_outcome AS outcome, COUNT(*) AS n FROM connections WHERE organization_id = ? AND client_user_id LIKE 'many-%' GROUP BY last_check_outcome",
    [owner.organizationId],
  )) as { outcome: string; n: number }[];

  // ---------- report ----------
  const cpu = (u: TreeUsage | null, n: number) =>
    u
      ? `${((u.cpuSeconds * 1000) / n).toFixed(0)} ms (node ${((u.nodeCpuSeconds * 1000) / n).toFixed(0)}, browser ${((u.browserCpuSeconds * 1000) / n).toFixed(0)})`
      : 'n/a';
  const lines = [
    '',
    `Health checks on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), Chromium, SQLite; ${RUNS} timed runs per row`,
    '',
    '| one check | median | p90 | CPU per check | bytes via proxy (median) | deepest proof |',
    '|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.row.label} | ${median(r.times).toFixed(0)} ms | ${p90(r.times).toFixed(0)} ms | ${cpu(r.usage, RUNS)} | ${
          r.bytes.length ? kb(median(r.bytes)) : '–'
        } | ${r.deepest} |`,
    ),
    '',
    `${CONNECTIONS} connections due at once, concurrency ${config.healthCheck.concurrency} (AGENTLINK_HEALTH_CHECK_CONCURRENCY):`,
    `  wall ${seconds.toFixed(1)} s, ${(CONNECTIONS / seconds).toFixed(1)} checks/s, ${((seconds * 1000) / CONNECTIONS).toFixed(0)} ms per check of wall time`,
    `  outcomes: ${outcomes.map((o) => `${o.outcome} ${o.n}`).join(', ')}`,
    usage
      ? `  peak memory ${mb(usage.memory.totalBytes)} (node ${mb(usage.memory.nodeBytes)}, Chromium ${mb(usage.memory.childrenBytes)} in ${usage.memory.childProcesses} processes; RSS summed, shared pages counted per process)`
      : '  peak memory: n/a (no /proc)',
    usage
      ? `  CPU ${usage.cpuSeconds.toFixed(1)} s (node ${usage.nodeCpuSeconds.toFixed(1)}, Chromium ${usage.browserCpuSeconds.toFixed(1)}): ${cpu(usage, CONNECTIONS)} per check; other processes meanwhile ${usage.othersCpuSeconds.toFixed(1)} s`
      : '',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  await services.loginEngine.close();
  await services.browsers.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
