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
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { ServerMessage } from './servers/protocol';

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

// ---------------------------------------------------------------- child servers

interface ChildServer {
  name: string;
  child: ChildProcess;
  base: string;
  ready: Extract<ServerMessage, { type: 'ready' }>;
}

const pending = new Set<ChildProcess>();
let tempDir: string | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The child's environment: the parent's, minus anything that would take AgentLink off the embedded default. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('AGENTLINK_') || k.startsWith('BENCH_')) continue;
    if (['DATABASE_URL', 'BROWSER_WS_ENDPOINT', 'PORT', 'HOST', 'LOG_LEVEL'].includes(k)) continue;
    env[k] = v;
  }
  return { ...env, NODE_ENV: 'production', ...extra };
}

async function startServer(name: string, entry: string, env: Record<string, string>, execArgv: string[] = []): Promise<ChildServer> {
  const port = await freePort();
  const child = fork(path.join(__dirname, 'servers', entry), [], {
    execArgv: ['--import', 'tsx', ...execArgv],
    env: childEnv({ ...env, BENCH_PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  pending.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const ready = await new Promise<Extract<ServerMessage, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 120 s\n${output}`)), 120_000);
    child.on('message', (m: ServerMessage) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(m);
      } else if (m.type === 'fatal') {
        clearTimeout(timer);
        reject(new Error(`${name} failed to start:\n${m.message}\n${output}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})\n${output}`));
    });
  });
  const server: ChildServer = { name, child, base: `http://127.0.0.1:${ready.port}`, ready };
  child.on('exit', (code, signal) => {
    if (!shuttingDown) process.stderr.write(`\n${name} server exited unexpectedly (code ${code}, signal ${signal})\n${output}\n`);
  });
  return server;
}

let shuttingDown = false;

async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

async function cleanup() {
  shuttingDown = true;
  await Promise.all([...pending].map((c) => stopChild(c).catch(() => undefined)));
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
}

// ---------------------------------------------------------------- measuring

/** Fields after the command name of a /proc stat line (so fields[1] is ppid, [11] utime, [12] stime). */
function statFields(file: string): string[] | undefined {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const ticks = (f: string[]) => (Number(f[11]) + Number(f[12])) / 100; // utime + stime, USER_HZ = 100

/**
 * CPU seconds (user + system) a child server has used so far, from /proc: the process with all its threads
 * (event loop, libuv pool running SQLite, GC helpers) plus any processes it started (a browser, say), or only
 * its main thread (the event loop). Undefined off Linux.
 */
function cpuSeconds(pid: number | undefined, mainThreadOnly = false): number | undefined {
  if (pid === undefined) return undefined;
  if (mainThreadOnly) {
    const f = statFields(`/proc/${pid}/task/${pid}/stat`);
    return f && ticks(f);
  }
  const own = statFields(`/proc/${pid}/stat`);
  if (!own) return undefined;
  const byParent = new Map<number, { pid: number; cpu: number }[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(`/proc/${entry}/stat`);
    if (!f) continue;
    const list = byParent.get(Number(f[1])) ?? [];
    list.push({ pid: Number(entry), cpu: ticks(f) });
    byParent.set(Number(f[1]), list);
  }
  let total = ticks(own);
  const queue = [pid];
  while (queue.length) {
    for (const c of byParent.get(queue.pop()!) ?? []) {
      total += c.cpu;
      queue.push(c.pid);
    }
  }
  return total;
}

/** Busy CPU seconds of the whole machine (all cores) so far, from /proc/stat; undefined off Linux. */
function machineBusySeconds(): number | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds used by this process (the load generator). */
const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

interface Request {
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
}

interface Measurement {
  rps: number;
  ok: number;
  bad: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  /** Server CPU in % of one core (whole process, and its event-loop thread), and CPU time per answered request. */
  cpuPct?: number;
  loopPct?: number;
  /** CPU used meanwhile by everything else on the machine (not the target server, not this load generator), % of one core. */
  otherPct?: number;
  cpuUsPerReq?: number;
  statusCodes: string;
}

/** What one autocannon run produced; slices of the same measurement are merged into one Measurement. */
interface Slice {
  seconds: number;
  latencies: number[];
  ok: number;
  bad: number;
  errors: number;
  statusCodes: Record<string, number>;
  cpu?: number;
  loop?: number;
  other?: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * One autocannon run. Latencies are taken from autocannon's per-response event (full ms precision; its own
 * histogram rounds to whole ms, and with a rate it back-fills "coordinated omission" values assuming a 1 ms
 * interval), counting 2xx responses only.
 */
function load(server: ChildServer, req: Request, opts: { seconds: number; connections: number; overallRate?: number }): Promise<Slice> {
  const latencies: number[] = [];
  const pid = server.child.pid;
  const cpu0 = cpuSeconds(pid);
  const loop0 = cpuSeconds(pid, true);
  const machine0 = machineBusySeconds();
  const own0 = ownCpuSeconds();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${server.base}${req.path}`,
        method: req.method,
        headers: req.headers,
        body: req.body,
        connections: opts.connections,
        duration: opts.seconds,
        timeout: 10,
        ...(opts.overallRate ? { overallRate: opts.overallRate, ignoreCoordinatedOmission: true } : {}),
      },
      (err, result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        const cpu1 = cpuSeconds(pid);
        const loop1 = cpuSeconds(pid, true);
        const machine1 = machineBusySeconds();
        const own1 = ownCpuSeconds();
        const cpu = cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined;
        const statusCodes: Record<string, number> = {};
        for (const [code, st] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = st.count ?? 0;
        resolve({
          seconds: result.duration,
          latencies,
          ok: result['2xx'],
          bad: result.non2xx,
          errors: result.errors,
          statusCodes,
          cpu,
          loop: loop0 === undefined || loop1 === undefined ? undefined : loop1 - loop0,
          other:
            cpu === undefined || machine0 === undefined || machine1 === undefined
              ? undefined
              : Math.max(0, machine1 - machine0 - cpu - (own1 - own0)),
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

function merge(slices: Slice[]): Measurement {
  const sum = (f: (s: Slice) => number | undefined) =>
    slices.some((s) => f(s) === undefined) ? undefined : slices.reduce((a, s) => a + (f(s) ?? 0), 0);
  const seconds = sum((s) => s.seconds) ?? 0;
  const ok = sum((s) => s.ok) ?? 0;
  const cpu = sum((s) => s.cpu);
  const loop = sum((s) => s.loop);
  const other = sum((s) => s.other);
  const sorted = Float64Array.from(slices.flatMap((s) => s.latencies)).sort();
  const codes: Record<string, number> = {};
  for (const s of slices) for (const [c, n] of Object.entries(s.statusCodes)) codes[c] = (codes[c] ?? 0) + n;
  return {
    rps: ok / seconds,
    ok,
    bad: sum((s) => s.bad) ?? 0,
    errors: sum((s) => s.errors) ?? 0,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    cpuPct: cpu === undefined ? undefined : (100 * cpu) / seconds,
    loopPct: loop === undefined ? undefined : (100 * loop) / seconds,
    otherPct: other === undefined ? undefined : (100 * other) / seconds,
    cpuUsPerReq: cpu === undefined || ok === 0 ? undefined : (cpu * 1e6) / ok,
    statusCodes: Object.entries(codes)
      .map(([c, n]) => `${c}x${n}`)
      .join(' '),
  };
}

/**
 * Measures several servers on one request "side by side": the duration is cut into slices that alternate
 * between the servers (floor, AgentLink, floor, AgentLink …), so a change in background load on the machine
 * hits both alike, and the slices of each server are merged.
 */
async function sideBySide(
  servers: ChildServer[],
  req: Request,
  opts: { seconds: number; slice: number; connections: number; overallRate?: number },
): Promise<Map<ChildServer, Measurement>> {
  const rounds = Math.max(1, Math.round(opts.seconds / opts.slice));
  const per = opts.seconds / rounds;
  const slices = new Map<ChildServer, Slice[]>(servers.map((s) => [s, []]));
  for (let r = 0; r < rounds; r++) {
    for (const server of servers) {
      slices.get(server)!.push(await load(server, req, { seconds: per, connections: opts.connections, overallRate: opts.overallRate }));
    }
  }
  return new Map(servers.map((s) => [s, merge(slices.get(s)!)]));
}

async function call(base: string, method: string, urlPath: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${urlPath}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json: json as Record<string, unknown> };
}

async function expectStatus(server: ChildServer, req: Request, status: number) {
  const res = await call(server.base, req.method, req.path, req.headers, JSON.parse(req.body));
  if (res.status !== status) {
    throw new Error(`${server.name} ${req.method} ${req.path} answered ${res.status}, expected ${status}: ${JSON.stringify(res.json)}`);
  }
}

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
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-bench-'));
  const dataDir = path.join(tempDir, 'agentlink');
  const floorDb = path.join(tempDir, 'floor', 'floor.sqlite');
  fs.mkdirSync(path.dirname(floorDb), { recursive: true });

  log('AgentLink API benchmark');
  log(`  machine      ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${os.platform()} ${os.release()}`);
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
  if (exchanged.status !== 200) throw new Error(`POST /api/connections/public_token/exchange: ${exchanged.status} ${JSON.stringify(exchanged.json)}`);
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
    const measured = await sideBySide(both, e.req, { seconds: opts.duration, slice: opts.slice, connections: opts.connections, overallRate: opts.rate });
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
  const header = ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'max ms', '2xx', 'non-2xx+err', 'srv CPU %', 'loop CPU %', 'CPU us/req', 'other CPU %'];

  log('');
  log(`Closed loop (${opts.connections} connections, as fast as each server answers, ${opts.duration} s):`);
  log(table(header, endpoints.flatMap((e) => [floor, agentlink].map((s) => row(e.label, s, closed.get(key(e.label, s))!)))));
  log('');
  log(`Fixed rate (${opts.rate} req/s offered via autocannon overallRate over ${opts.connections} connections, ${opts.duration} s):`);
  log(table(header, endpoints.flatMap((e) => [floor, agentlink].map((s) => row(e.label, s, fixed.get(key(e.label, s))!)))));
  log(
    '  (autocannon releases each connection\'s per-second quota at the start of every second, so the offered load comes as ' +
      `bursts at concurrency ${Math.min(opts.connections, opts.rate)}; latencies are per 2xx response, full precision)`,
  );
  log('  (srv CPU % = server process, all threads, in % of one core; loop CPU % = its main/event-loop thread; CPU us/req = process CPU per 2xx;');
  log('   other CPU % = CPU used meanwhile by every other process on the machine, load generator excluded; kernel threads\n   writing the servers\' files to disk count here too)');

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
  log(`VERDICT overall: ${allMet ? 'PASS - AgentLink meets both targets on both endpoints' : 'FAIL - AgentLink misses at least one target'}`);
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
