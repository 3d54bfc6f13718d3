/**
 * API benchmark: AgentLink vs. the floor, side by side, in one run.
 *
 *   npm run bench:api                       # 10 s per measurement
 *   npm run bench:api -- --duration 20      # longer
 *   npm run bench:api -- --quick            # 3 s smoke run
 *
 * Two child processes serve on 127.0.0.1 (this process only generates load, with autocannon, so the
 * load generator and the servers do not share an event loop):
 *   - AgentLink exactly as `agentlink serve --role api` runs it, on the embedded default (SQLite file + vault
 *     key file in a temp data dir), LOG_LEVEL=silent, with a real organization, real sandbox connection and
 *     access token (bench/servers/agentlink.server.ts). The per-organization rate limiter stays in the request
 *     path (its leased bucket UPDATEs are paid as in production) but is set so high that it never answers 429:
 *     the default (100/s, burst 200) would otherwise be what the bench measures;
 *   - the floor: bare node:http + JSON.parse + one SQLite insert per request (bench/servers/floor.server.ts).
 *
 * For POST /api/agent-requests and POST /api/link-token it measures closed-loop throughput and latency
 * (after a warm-up), then p99 at a fixed offered rate (autocannon overallRate), and prints the verdict
 * against the targets: throughput >= 0.5 x floor, p99 < 25 ms at 200 req/s. Each measurement alternates
 * between the floor and AgentLink in short slices, so background load on the machine hits both alike;
 * the CPU used meanwhile by other processes is reported, with a warning when it disturbed the figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { type ChildServer, cleanup, makeTempDir, startServer } from './api/child-servers';
import { call, expectStatus, load, machineBusySeconds, type Measurement, sideBySide } from './api/measure';

// ---------------------------------------------------------------- options

const USAGE = `usage: npm run bench:api -- [--duration <s>] [--quick] [--warmup <s>] [--slice <s>] [--connections <n>] [--rate <req/s>] [--strict] [--cpu-prof <dir>]
  --duration <s>      seconds per measurement (default 10)
  --quick             3 s measurements, 1 s warm-up (smoke run)
  --warmup <s>        warm-up seconds before each closed-loop measurement (default 2)
  --slice <s>         length of the alternating floor/AgentLink slices a measurement is cut into (default 2)
  --connections <n>   concurrent connections for every run (default 10)
  --rate <req/s>      offered rate of the fixed-rate run (default 200)
  --strict            exit with status 1 when AgentLink misses a target
  --cpu-prof <dir>    write a V8 CPU profile of the AgentLink server to <dir> (node --cpu-prof)`;

interface Options {
  duration: number;
  warmup: number;
  slice: number;
  connections: number;
  rate: number;
  strict: boolean;
  cpuProf?: string;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      quick: { type: 'boolean', default: false },
      warmup: { type: 'string' },
      slice: { type: 'string' },
      connections: { type: 'string' },
      rate: { type: 'string' },
      strict: { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const num = (raw: string | undefined, fallback: number, name: string, min: number) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min}\n${USAGE}`);
    return n;
  };
  const quick = values.quick ?? false;
  return {
    duration: num(values.duration, quick ? 3 : 10, 'duration', 1),
    warmup: num(values.warmup, quick ? 1 : 2, 'warmup', 0),
    slice: num(values.slice, quick ? 1 : 2, 'slice', 1),
    connections: Math.round(num(values.connections, 10, 'connections', 1)),
    rate: Math.round(num(values.rate, 200, 'rate', 1)),
    strict: values.strict ?? false,
    ...(values['cpu-prof'] ? { cpuProf: path.resolve(values['cpu-prof']) } : {}),
  };
}

const TARGETS = { throughputRatio: 0.5, p99Ms: 25 } as const;

/** Keeps AgentLink's rate limiter in the request path without it ever refusing a request of the bench. */
const RATE_LIMIT = { perSecond: 100_000, burst: 1_000_000 } as const;

// ---------------------------------------------------------------- output

const f1 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(1));
const f2 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(2));
const f0 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : Math.round(n).toString());

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const log = (s = '') => process.stdout.write(`${s}\n`);

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseOptions(process.argv.slice(2));
  const tempDir = makeTempDir();
  const dataDir = path.join(tempDir, 'agentlink');
  const floorDb = path.join(tempDir, 'floor', 'floor.sqlite');
  fs.mkdirSync(path.dirname(floorDb), { recursive: true });

  log('AgentLink API benchmark');
  log(
    `  machine      ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${os.platform()} ${os.release()}`,
  );
  log(`  data         ${tempDir} (SQLite files for both servers, WAL)`);
  log(
    `  load         autocannon, ${opts.connections} connections; per endpoint and server: ${opts.warmup} s warm-up, ${opts.duration} s closed loop, ` +
      `${opts.duration} s at ${opts.rate} req/s (overallRate); floor and AgentLink alternate in ${opts.slice} s slices`,
  );
  log('  servers      child processes on 127.0.0.1; this process only generates load');
  log(
    `  AgentLink    serve --role api (no embedded worker), LOG_LEVEL=silent, rate limiter on at ${RATE_LIMIT.perSecond}/s ` +
      `burst ${RATE_LIMIT.burst} (never 429; default 100/s burst 200)`,
  );
  const busy0 = machineBusySeconds();
  await new Promise((r) => setTimeout(r, 1000));
  const busy1 = machineBusySeconds();
  if (busy0 !== undefined && busy1 !== undefined) {
    log(`  machine      ${f0(100 * (busy1 - busy0))}% of a core busy before the start (other processes; lower is better)`);
  }
  log('');
  log('starting servers …');

  const [agentlink, floor] = await Promise.all([
    startServer(
      'AgentLink',
      'agentlink.server.ts',
      {
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        AGENTLINK_DATA_DIR: dataDir,
        AGENTLINK_RATE_LIMIT_PER_SECOND: String(RATE_LIMIT.perSecond),
        AGENTLINK_RATE_LIMIT_BURST: String(RATE_LIMIT.burst),
      },
      opts.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProf] : [],
    ),
    startServer('floor', 'floor.server.ts', { BENCH_DB_FILE: floorDb }),
  ]);

  // A real connection: sandbox public token (widget-less flow) → exchange → access token.
  const { clientId, sandboxSecret } = agentlink.ready;
  if (!clientId || !sandboxSecret) throw new Error('AgentLink server did not hand over client credentials');
  const headers = { 'content-type': 'application/json', 'x-client-id': clientId, 'x-client-secret': sandboxSecret };
  const providers = await call(agentlink.base, 'GET', '/api/providers', headers);
  const provider = (providers.json.providers as { providerId: string; homeUrl: string; slug: string }[] | undefined)?.[0];
  if (providers.status !== 200 || !provider) throw new Error(`GET /api/providers: ${providers.status} ${JSON.stringify(providers.json)}`);
  const created = await call(agentlink.base, 'POST', '/api/sandbox/public_token/create', headers, {
    providerId: provider.providerId,
    clientUserId: 'bench-user',
  });
  if (created.status !== 200) throw new Error(`POST /api/sandbox/public_token/create: ${created.status} ${JSON.stringify(created.json)}`);
  const exchanged = await call(agentlink.base, 'POST', '/api/connections/public_token/exchange', headers, {
    publicToken: created.json.publicToken,
  });
  if (exchanged.status !== 200)
    throw new Error(`POST /api/connections/public_token/exchange: ${exchanged.status} ${JSON.stringify(exchanged.json)}`);
  const accessToken = String(exchanged.json.access_token);
  log(`  organization ${clientId} (sandbox credentials), connection ${String(exchanged.json.connectionId)} on ${provider.slug}`);
  log('');

  const endpoints = [
    {
      label: 'POST /api/agent-requests',
      status: 202,
      req: {
        method: 'POST' as const,
        path: '/api/agent-requests',
        headers,
        body: JSON.stringify({
          accessToken,
          action: 'Read my profile and my five latest posts',
          startingUrl: provider.homeUrl,
          parameters: { limit: 5 },
          responseFormat: {
            name: 'string - Full name on the profile',
            followers: 'number - Follower count',
            posts: [{ text: 'string - Post text', postedAt: 'datetime? - When it was posted' }],
          },
        }),
      },
    },
    {
      label: 'POST /api/link-token',
      status: 200,
      req: { method: 'POST' as const, path: '/api/link-token', headers, body: JSON.stringify({ clientUserId: 'user-42' }) },
    },
  ];

  for (const e of endpoints) {
    await expectStatus(agentlink, e.req, e.status);
    await expectStatus(floor, e.req, e.status);
  }

  const closed = new Map<string, Measurement>();
  const fixed = new Map<string, Measurement>();
  const key = (endpoint: string, server: ChildServer) => `${endpoint}|${server.name}`;
  const progress = (what: string) => process.stdout.write(`  ${what} …\n`);
  const both = [floor, agentlink];

  for (const e of endpoints) {
    if (opts.warmup > 0) {
      progress(`${e.label}: warm-up ${opts.warmup} s on each server`);
      for (const server of both) await load(server, e.req, { seconds: opts.warmup, connections: opts.connections });
    }
    progress(`${e.label}: closed loop, ${opts.duration} s on each server in alternating ${opts.slice} s slices`);
    for (const [server, m] of await sideBySide(both, e.req, { seconds: opts.duration, slice: opts.slice, connections: opts.connections })) {
      closed.set(key(e.label, server), m);
    }
  }
  for (const e of endpoints) {
    progress(`${e.label}: ${opts.rate} req/s, ${opts.duration} s on each server in alternating ${opts.slice} s slices`);
    const measured = await sideBySide(both, e.req, {
      seconds: opts.duration,
      slice: opts.slice,
      connections: opts.connections,
      overallRate: opts.rate,
    });
    for (const [server, m] of measured) fixed.set(key(e.label, server), m);
  }

  const row = (e: string, server: ChildServer, m: Measurement) => [
    e,
    server.name,
    f0(m.rps),
    f2(m.p50),
    f2(m.p99),
    f1(m.max),
    String(m.ok),
    String(m.bad + m.errors),
    f0(m.cpuPct),
    f0(m.loopPct),
    f0(m.cpuUsPerReq),
    f0(m.otherPct),
  ];
  const header = [
    'endpoint',
    'server',
    'req/s',
    'p50 ms',
    'p99 ms',
    'max ms',
    '2xx',
    'non-2xx+err',
    'srv CPU %',
    'loop CPU %',
    'CPU us/req',
    'other CPU %',
  ];

  log('');
  log(`Closed loop (${opts.connections} connections, as fast as each server answers, ${opts.duration} s):`);
  log(
    table(
      header,
      endpoints.flatMap((e) => [floor, agentlink].map((s) => row(e.label, s, closed.get(key(e.label, s))!))),
    ),
  );
  log('');
  log(`Fixed rate (${opts.rate} req/s offered via autocannon overallRate over ${opts.connections} connections, ${opts.duration} s):`);
  log(
    table(
      header,
      endpoints.flatMap((e) => [floor, agentlink].map((s) => row(e.label, s, fixed.get(key(e.label, s))!))),
    ),
  );
  log(
    "  (autocannon releases each connection's per-second quota at the start of every second, so the offered load comes as " +
      `bursts at concurrency ${Math.min(opts.connections, opts.rate)}; latencies are per 2xx response, full precision)`,
  );
  log(
    '  (srv CPU % = server process, all threads, in % of one core; loop CPU % = its main/event-loop thread; CPU us/req = process CPU per 2xx;',
  );
  log(
    "   other CPU % = CPU used meanwhile by every other process on the machine, load generator excluded; kernel threads\n   writing the servers' files to disk count here too)",
  );

  const problems: string[] = [];
  for (const [k, m] of [...closed, ...fixed]) {
    if (m.bad + m.errors > 0) problems.push(`${k.replace('|', ' on ')}: ${m.bad} non-2xx, ${m.errors} errors (${m.statusCodes})`);
  }
  const disturbed = [...closed, ...fixed].filter(([, m]) => (m.otherPct ?? 0) > 15);
  if (disturbed.length) {
    log('');
    log(
      `WARNING: other processes on this ${os.cpus().length}-core machine used up to ` +
        `${f0(Math.max(...disturbed.map(([, m]) => m.otherPct ?? 0)))}% of a core during ${disturbed.length} measurement(s) ` +
        `(${disturbed.map(([k]) => k.replace('|', ' on ')).join('; ')}); those figures are disturbed, re-run on a quiet machine.`,
    );
  }
  if (problems.length) {
    log('');
    log('WARNING: some responses were not 2xx; the figures above are not valid for those rows:');
    for (const p of problems) log(`  ${p}`);
  }

  log('');
  let allMet = problems.length === 0;
  for (const e of endpoints) {
    const a = closed.get(key(e.label, agentlink))!;
    const fl = closed.get(key(e.label, floor))!;
    const r = fixed.get(key(e.label, agentlink))!;
    const ratio = a.rps / fl.rps;
    const tOk = ratio >= TARGETS.throughputRatio;
    const kept = r.rps >= 0.95 * opts.rate;
    const lOk = r.p99 < TARGETS.p99Ms && r.bad + r.errors === 0 && kept;
    allMet &&= tOk && lOk;
    log(
      `VERDICT ${e.label.padEnd(24)}  throughput ${f0(a.rps)} vs floor ${f0(fl.rps)} req/s = ${f2(ratio)} x floor ` +
        `(target >= ${TARGETS.throughputRatio.toFixed(2)}): ${tOk ? 'PASS' : 'FAIL'}   ` +
        `p99 at ${opts.rate} req/s ${f2(r.p99)} ms${kept ? '' : ` (only ${f0(r.rps)} req/s achieved)`} (target < ${TARGETS.p99Ms} ms): ${lOk ? 'PASS' : 'FAIL'}`,
    );
  }
  log(
    `VERDICT overall: ${allMet ? 'PASS - AgentLink meets both targets on both endpoints' : 'FAIL - AgentLink misses at least one target'}`,
  );
  return allMet || !opts.strict ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    process.stderr.write(`\n${signal}: stopping the bench servers …\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

main()
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  })
  .catch(async (err: unknown) => {
    process.stderr.write(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await cleanup();
    process.exit(1);
  });
