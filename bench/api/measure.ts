/** Measuring: CPU from /proc, autocannon slices, and side-by-side measurements of several servers. */
import fs from 'node:fs';

import autocannon from 'autocannon';

import type { ChildServer } from './child-servers';

/** Fields after the command name of a /proc stat line (so fields[1] is ppid, [11] utime, [12] stime). */
export function statFields(file: string): string[] | undefined {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

export const ticks = (f: string[]) => (Number(f[11]) + Number(f[12])) / 100; // utime + stime, USER_HZ = 100

/**
 * CPU seconds (user + system) a child server has used so far, from /proc: the process with all its threads
 * (event loop, libuv pool running SQLite, GC helpers) plus any processes it started (a browser, say), or only
 * its main thread (the event loop). Undefined off Linux.
 */
export function cpuSeconds(pid: number | undefined, mainThreadOnly = false): number | undefined {
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
export function machineBusySeconds(): number | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds used by this process (the load generator). */
export const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

export interface Request {
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Measurement {
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
export interface Slice {
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

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * One autocannon run. Latencies are taken from autocannon's per-response event (full ms precision; its own
 * histogram rounds to whole ms, and with a rate it back-fills "coordinated omission" values assuming a 1 ms
 * interval), counting 2xx responses only.
 */
export function load(
  server: ChildServer,
  req: Request,
  opts: { seconds: number; connections: number; overallRate?: number },
): Promise<Slice> {
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

export function merge(slices: Slice[]): Measurement {
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
export async function sideBySide(
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

export async function call(base: string, method: string, urlPath: string, headers: Record<string, string>, body?: unknown) {
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

export async function expectStatus(server: ChildServer, req: Request, status: number) {
  const res = await call(server.base, req.method, req.path, req.headers, JSON.parse(req.body));
  if (res.status !== status) {
    throw new Error(`${server.name} ${req.method} ${req.path} answered ${res.status}, expected ${status}: ${JSON.stringify(res.json)}`);
  }
}
