import fs from 'node:fs';

/**
 * Peak resident memory and CPU time of this process and every process it started (Chromium's browser, renderer,
 * GPU and utility processes), sampled from /proc. RSS counts pages shared between Chromium's processes once per
 * process, so the sum is an upper bound of what the service and its browser hold — the figure an operator's
 * container limit is checked against. Linux only; elsewhere the sampler reports null.
 */
export interface MemoryPeak {
  /** Bytes, at the sample where the sum was highest. */
  totalBytes: number;
  nodeBytes: number;
  childrenBytes: number;
  childProcesses: number;
  samples: number;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on every Linux that matters). */
const TICKS = 100;

/** Fields of /proc/<pid>/stat after "pid (comm)": comm may hold spaces and parentheses, so read after the last ')'. */
export function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  const f = statFields(pid);
  return f ? Number(f[1]) : null;
}

/** CPU ticks of a process and of its children it has reaped (a closed renderer's time stays in the tree). */
export function cpuTicks(pid: number): number {
  const f = statFields(pid);
  // utime, stime, cutime, cstime are fields 14–17 of the line, 12–15 after "pid (comm) ".
  return f ? Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) : 0;
}

function rssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0; // the process ended between the listing and the read
  }
}

/** Children of a process, from /proc/<pid>/task/<tid>/children (a short read each, not a walk of every process). */
function childrenOf(pid: number): number[] | null {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    try {
      for (const c of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(' ')) if (c) out.push(Number(c));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && tid === String(pid)) return null; // no children files on this kernel
    }
  }
  return out;
}

/** A process's own children. */
export function childProcesses(pid: number): number[] {
  return childrenOf(pid) ?? descendantsByScan(pid).filter((c) => parentOf(c) === pid);
}

/** This process's descendants (children, grandchildren …). */
export function descendants(root: number): number[] {
  if (childrenOf(root) === null) return descendantsByScan(root);
  const out: number[] = [];
  const stack = [...(childrenOf(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(childrenOf(pid) ?? []));
  }
  return out;
}

/** The same by reading every process's parent (kernels without the children files). */
function descendantsByScan(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const parent = parentOf(pid);
    if (parent === null) continue;
    const list = children.get(parent) ?? [];
    list.push(pid);
    children.set(parent, list);
  }
  const out: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * Proportional set size of these processes, in bytes: each page shared between them counted once in all (a fair
 * share of Chromium's shared memory, unlike RSS). 0 for a process gone meanwhile or not readable.
 */
export function pssBytes(pids: readonly number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      kb += m ? Number(m[1]) : 0;
    } catch {
      // gone, or not readable
    }
  }
  return kb * 1024;
}

export function sampleOnce(): Omit<MemoryPeak, 'samples'> {
  const kids = descendants(process.pid);
  const childrenBytes = kids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  const nodeBytes = process.memoryUsage.rss();
  return { totalBytes: nodeBytes + childrenBytes, nodeBytes, childrenBytes, childProcesses: kids.length };
}

/** Busy CPU seconds of the whole machine (all cores) so far, from /proc/stat. */
export function machineBusySeconds(): number {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS;
}

const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function childTicks(): Map<number, number> {
  return new Map(descendants(process.pid).map((pid) => [pid, cpuTicks(pid)]));
}

export interface TreeUsage {
  memory: MemoryPeak;
  /** CPU seconds this process and its descendants used while sampling, and the two parts of it. */
  cpuSeconds: number;
  nodeCpuSeconds: number;
  browserCpuSeconds: number;
  /** CPU seconds every other process of the machine used meanwhile (how disturbed the measurement was). */
  othersCpuSeconds: number;
}

/** Samples memory every `everyMs` until stopped; `stop()` returns the peak and the CPU used meanwhile. */
export function startTreeSampler(everyMs = 250): { stop(): TreeUsage | null } {
  if (!fs.existsSync('/proc/self/status')) return { stop: () => null };
  const ticks0 = childTicks();
  const own0 = ownCpuSeconds();
  const machine0 = machineBusySeconds();
  let peak: Omit<MemoryPeak, 'samples'> = sampleOnce();
  let samples = 1;
  const timer = setInterval(() => {
    const s = sampleOnce();
    samples += 1;
    if (s.totalBytes > peak.totalBytes) peak = s;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const s = sampleOnce();
      if (s.totalBytes > peak.totalBytes) peak = s;
      let children = 0;
      for (const [pid, t] of childTicks()) children += t - (ticks0.get(pid) ?? 0);
      const nodeCpuSeconds = ownCpuSeconds() - own0;
      const browserCpuSeconds = children / TICKS;
      const cpuSeconds = nodeCpuSeconds + browserCpuSeconds;
      return {
        memory: { ...peak, samples: samples + 1 },
        cpuSeconds,
        nodeCpuSeconds,
        browserCpuSeconds,
        othersCpuSeconds: Math.max(0, machineBusySeconds() - machine0 - cpuSeconds),
      };
    },
  };
}

/** Two measurements as one: CPU added up, the higher memory peak. */
export function combineUsage(a: TreeUsage | null, b: TreeUsage | null): TreeUsage | null {
  if (!a || !b) return a ?? b;
  return {
    memory: { ...(a.memory.totalBytes >= b.memory.totalBytes ? a.memory : b.memory), samples: a.memory.samples + b.memory.samples },
    cpuSeconds: a.cpuSeconds + b.cpuSeconds,
    nodeCpuSeconds: a.nodeCpuSeconds + b.nodeCpuSeconds,
    browserCpuSeconds: a.browserCpuSeconds + b.browserCpuSeconds,
    othersCpuSeconds: a.othersCpuSeconds + b.othersCpuSeconds,
  };
}
