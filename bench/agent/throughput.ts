import { combineUsage, startTreeSampler, type TreeUsage } from './process-tree';

/**
 * The throughput row of bench:agent: N actions through the API at once against the floor script run N times
 * with the worker's parallelism. The floor runs in two halves, before and after the API burst, so a machine whose
 * background load drifts during the run weighs on both sides alike.
 */
export interface Throughput {
  label: string;
  completed: number;
  seconds: number;
  usage: TreeUsage | null;
  note: string;
}

/** Runs `task` `total` times, at most `parallel` at once; resolves with how many succeeded and the failures. */
async function pool(total: number, parallel: number, task: () => Promise<unknown>) {
  let started = 0;
  let ok = 0;
  const errors: string[] = [];
  await Promise.all(
    Array.from({ length: Math.min(parallel, total) }, async () => {
      while (started < total) {
        started += 1;
        try {
          await task();
          ok += 1;
        } catch (err) {
          errors.push(String((err as Error)?.message ?? err));
        }
      }
    }),
  );
  return { ok, errors };
}

async function floorRun(total: number, parallel: number, once: () => Promise<unknown>) {
  const sampler = startTreeSampler();
  const t0 = performance.now();
  const res = await pool(total, parallel, once);
  return { ...res, seconds: (performance.now() - t0) / 1000, usage: sampler.stop() };
}

/** One burst of `actions` requests through the API: its actions per second, CPU and memory, and how each ended. */
export async function measureBurst(
  label: string,
  actions: number,
  burst: (n: number) => Promise<string[]>,
  expected: string,
): Promise<Throughput> {
  const sampler = startTreeSampler();
  const t0 = performance.now();
  const ends = await burst(actions);
  const seconds = (performance.now() - t0) / 1000;
  const usage = sampler.stop();
  const tally = new Map<string, number>();
  for (const e of ends) tally.set(e, (tally.get(e) ?? 0) + 1);
  const note = [...tally]
    .filter(([k]) => k !== expected)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  return { label, completed: tally.get(expected) ?? 0, seconds, usage, note };
}

function floorRow(label: string, before: Awaited<ReturnType<typeof floorRun>>, after: Awaited<ReturnType<typeof floorRun>>): Throughput {
  const errors = [...before.errors, ...after.errors];
  return {
    label,
    completed: before.ok + after.ok,
    seconds: before.seconds + after.seconds,
    usage: combineUsage(before.usage, after.usage),
    note: errors.length ? `${errors.length} failed, first: ${errors[0]}` : '',
  };
}

/**
 * `burst` posts every request at once and resolves with how each ended ("COMPLETED PLAYBOOK", "HTTP 429 …").
 * `fencedOnce`, the floor's steps inside a run's fence (fenced-floor.ts), runs like the floor: half before the burst,
 * half after, in mirrored order (floor, fenced | burst | fenced, floor) so drift weighs on each alike.
 */
export async function measureThroughput(o: {
  actions: number;
  parallel: number;
  floorOnce: () => Promise<unknown>;
  fencedOnce?: () => Promise<unknown>;
  burst: (n: number) => Promise<string[]>;
  expected: string;
}): Promise<{ floor: Throughput; fenced: Throughput | null; api: Throughput }> {
  const half = Math.floor(o.actions / 2);
  const before = await floorRun(half, o.parallel, o.floorOnce);
  const fencedBefore = o.fencedOnce ? await floorRun(half, o.parallel, o.fencedOnce) : null;

  const api = await measureBurst(`API: ${o.actions} requests at once (playbook)`, o.actions, o.burst, o.expected);

  const fencedAfter = o.fencedOnce ? await floorRun(o.actions - half, o.parallel, o.fencedOnce) : null;
  const after = await floorRun(o.actions - half, o.parallel, o.floorOnce);
  return {
    floor: floorRow(`floor: hand-written script, ${o.parallel} in parallel`, before, after),
    fenced: fencedBefore && fencedAfter ? floorRow("floor inside the run's fence (see fenced-floor.ts)", fencedBefore, fencedAfter) : null,
    api,
  };
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const rate = (t: Throughput) => t.completed / t.seconds;

/**
 * The rows, side by side: actions/s, completed, ratio to the floor (and, for the API, to the fenced floor), CPU per
 * action (this process + its browser), peak RSS.
 */
export function throughputRows(r: { floor: Throughput; fenced: Throughput | null; api: Throughput }, actions: number): string[] {
  const row = (t: Throughput, ratios: Throughput[]) => {
    const u = t.usage;
    const per = (s: number) => ((s * 1000) / Math.max(1, t.completed)).toFixed(0);
    const detail = u
      ? `${per(u.cpuSeconds).padStart(4)} ms CPU/action (node ${per(u.nodeCpuSeconds)} + browser ${per(u.browserCpuSeconds)})   ` +
        `peak RSS ${mb(u.memory.totalBytes).padStart(7)} (node ${mb(u.memory.nodeBytes)} + ${u.memory.childProcesses} browser processes ${mb(u.memory.childrenBytes)})   ` +
        `others used ${u.othersCpuSeconds.toFixed(1)} CPU-s`
      : 'CPU and peak RSS n/a (no /proc)';
    const ratio = ratios.map((b) => `${(rate(t) / rate(b)).toFixed(2)} x ${b === r.floor ? 'floor' : 'fenced'}`).join(', ');
    return (
      `  ${t.label.padEnd(50)} ${rate(t).toFixed(2).padStart(6)} actions/s  ${`${t.completed}/${actions} done`.padEnd(14)}` +
      `${ratio.padEnd(28)}   ${detail}${t.note ? `   (${t.note})` : ''}`
    );
  };
  return [row(r.floor, []), ...(r.fenced ? [row(r.fenced, [r.floor])] : []), row(r.api, r.fenced ? [r.floor, r.fenced] : [r.floor])];
}
