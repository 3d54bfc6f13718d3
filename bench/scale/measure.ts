import fs from 'node:fs';

import { cpuTicks, descendants, machineBusySeconds, statFields } from '../agent/process-tree';
import type { Cluster } from './cluster';
import { stageMeans, stageTotals } from './stages';

export const ACTION = 'Read my profile';
const FORMAT = { name: 'string - full name', followers: 'integer - number of followers' };

export interface RunRecord {
  requestId: string;
  status: string;
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  trace: { tool: string; target?: string }[];
}

async function call(base: string, c: Cluster, method: string, p: string, body?: unknown) {
  const res = await fetch(`${base}${p}`, { method, headers: c.headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!res.ok) throw new Error(`${method} ${p}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as RunRecord & Record<string, unknown>;
}

/** Posts one request through the i-th API process (round robin, as a load balancer would). */
export function submit(c: Cluster, i: number) {
  const base = c.apis[i % c.apis.length]!.base;
  return call(base, c, 'POST', '/api/agent-requests', {
    accessToken: c.accessToken,
    action: ACTION,
    startingUrl: c.startingUrl,
    responseFormat: FORMAT,
  });
}

export function read(c: Cluster, id: string, waitMs = 0) {
  return call(c.apis[0]!.base, c, 'GET', `/api/agent-requests/${id}${waitMs ? `?waitMs=${waitMs}` : ''}`);
}

/** Waits until every request has a final status (the server holds each read up to 30 s). */
export async function settle(c: Cluster, ids: string[]): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  for (const id of ids) {
    for (;;) {
      const r = await read(c, id, 30_000);
      if (['COMPLETED', 'FAILED', 'CANCELED'].includes(r.status)) {
        out.push(r);
        break;
      }
    }
  }
  return out;
}

const ms = (iso: string | null) => (iso ? new Date(iso).getTime() : NaN);

export function percentile(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
}

export interface Backlog {
  completed: number;
  total: number;
  /** Requests completed per second, from the first accept to the last completion. */
  perSecond: number;
  /** Share of the slots' time spent running requests, from the first start to the last completion. */
  slotsBusy: number;
  /** Median time of one run, claim to final write (with slots this busy, what throughput follows). */
  runMsP50: number;
  /**
   * CPU milliseconds per completed request of every process the deployment runs on (AgentLink processes, their
   * Chromium, PostgreSQL), from /proc: the work a deployment needs per request, whatever else the machine does.
   */
  cpuMsPerRequest: number;
  /** The same per kind of process (own time only, of the processes alive at both ends: a breakdown, not a total). */
  cpuMsPerRequestByKind: Record<string, number>;
  /** Cores other processes of the machine kept busy meanwhile, on average (how disturbed the timing was). */
  otherCores: number;
  /** Mean milliseconds per run of each stage (server/agent/run/stages.ts), from the workers' /metrics. */
  stages: Record<string, number>;
}

/**
 * CPU seconds so far of every process this bench started and theirs (the AgentLink processes, their Chromium, the
 * embedded PostgreSQL): summed, so time of a process that exited meanwhile, now in its parent's children's time,
 * still counts once.
 */
function deploymentCpuSeconds(): number {
  return descendants(process.pid).reduce((sum, pid) => sum + cpuTicks(pid), 0) / 100;
}

/** The same per kind of process: PostgreSQL, Chromium, and each AgentLink role (what a request's CPU is spent on). */
function cpuSecondsByKind(): Record<string, number> {
  const out: Record<string, number> = {};
  const kindOf = (pid: number): string => {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (/postgres/.test(cmd[0] ?? '')) return 'postgres';
      if (cmd.some((a) => /chrom|headless_shell/i.test(a))) return 'chromium';
      if (cmd.includes('worker')) return 'node: worker';
      if (cmd.includes('--role')) return 'node: api';
      if (cmd.includes('serve')) return 'node: serve';
      return 'other';
    } catch {
      return 'other';
    }
  };
  // A Chromium's helpers are its children: each counted under the kind of its own command line, never twice.
  for (const pid of descendants(process.pid)) {
    const kind = kindOf(pid);
    const f = statFields(pid);
    if (!f) continue;
    out[kind] = (out[kind] ?? 0) + (Number(f[11]) + Number(f[12])) / 100;
  }
  return out;
}

/** `n` requests posted at once (a backlog), then waited for: throughput and how busy the slots were. */
export async function backlog(c: Cluster, n: number): Promise<Backlog> {
  const stages0 = await stageTotals(c);
  const cpu0 = deploymentCpuSeconds();
  const kinds0 = cpuSecondsByKind();
  const machine0 = machineBusySeconds();
  const own0 = process.cpuUsage();
  const wall0 = Date.now();
  const ids = (await Promise.all(Array.from({ length: n }, (_, i) => submit(c, i)))).map((r) => r.requestId);
  const runs = await settle(c, ids);
  const cpu = deploymentCpuSeconds() - cpu0;
  const kinds1 = cpuSecondsByKind();
  const own = process.cpuUsage(own0);
  const others = machineBusySeconds() - machine0 - cpu - (own.user + own.system) / 1e6;
  const ok = runs.filter((r) => r.status === 'COMPLETED');
  // Read once every run's telemetry is in (it ends as the outcome is written, the read may come first).
  await new Promise((r) => setTimeout(r, 200));
  const stages = stageMeans(stages0, await stageTotals(c));
  const first = Math.min(...runs.map((r) => ms(r.createdAt)));
  const firstStart = Math.min(...ok.map((r) => ms(r.startedAt)));
  const last = Math.max(...ok.map((r) => ms(r.completedAt)));
  const busy = ok.reduce((sum, r) => sum + (ms(r.completedAt) - ms(r.startedAt)), 0);
  return {
    completed: ok.length,
    total: n,
    perSecond: ok.length / ((last - first) / 1000),
    slotsBusy: busy / (c.slots * (last - firstStart)),
    runMsP50: percentile(
      ok.map((r) => ms(r.completedAt) - ms(r.startedAt)),
      50,
    ),
    cpuMsPerRequest: (cpu * 1000) / ok.length,
    cpuMsPerRequestByKind: Object.fromEntries(
      Object.keys(kinds1).map((k) => [k, ((kinds1[k]! - (kinds0[k] ?? 0)) * 1000) / Math.max(1, ok.length)]),
    ),
    otherCores: Math.max(0, others) / ((Date.now() - wall0) / 1000),
    stages,
  };
}

/** One request at a time to idle workers, each posted through the next API process: accepted → RUNNING, in ms. */
export async function dispatchLatency(c: Cluster, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    await new Promise((r) => setTimeout(r, 150)); // every slot idle, every worker back at its poll
    const { requestId } = await submit(c, i);
    const [r] = await settle(c, [requestId]);
    if (r!.status === 'COMPLETED') out.push(ms(r!.startedAt) - ms(r!.createdAt));
  }
  return out;
}

/**
 * A backlog is queued, a worker holding a running request is killed with SIGKILL (its Chromium with it), and the
 * clock runs until that request is RUNNING again on another worker: the lease's expiry, the sweep, the re-send.
 */
export async function recovery(c: Cluster, n: number): Promise<{ recoveredMs: number; completed: number; total: number; rerun: number }> {
  const victim = c.workers[0]!;
  const ids = (await Promise.all(Array.from({ length: n }, (_, i) => submit(c, i)))).map((r) => r.requestId);
  // A request the victim holds: running, its trace's last attempt names the victim's pid.
  let held: string | null = null;
  const pid = victim.proc.pid!;
  for (const until = Date.now() + 30_000; !held && Date.now() < until;) {
    for (const id of ids) {
      const r = await read(c, id);
      const attempt = r.trace.filter((s) => s.tool === 'attempt').at(-1);
      if (r.status === 'RUNNING' && attempt?.target?.includes(`:${pid}:`)) {
        held = id;
        break;
      }
    }
  }
  if (!held) throw new Error('the victim worker never held a request');
  const tree = [pid, ...descendants(pid)];
  const killedAt = Date.now();
  for (const p of tree) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  let recoveredMs = NaN;
  for (const until = Date.now() + 90_000; Date.now() < until;) {
    const r = await read(c, held);
    if (r.attempts >= 2 && (r.status === 'RUNNING' || r.status === 'COMPLETED')) {
      recoveredMs = Date.now() - killedAt;
      break;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  const runs = await settle(c, ids);
  return {
    recoveredMs,
    completed: runs.filter((r) => r.status === 'COMPLETED').length,
    total: n,
    rerun: runs.filter((r) => r.attempts > 1).length,
  };
}
