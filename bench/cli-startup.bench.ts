/**
 * CLI start-up bench: what `agentlink --help` costs next to a command that loads what it runs, side by side in one run.
 *
 *   npx tsx bench/cli-startup.bench.ts              # 7 runs of each row (after 1 warm-up)
 *   npx tsx bench/cli-startup.bench.ts --runs 15
 *
 * Each run is a fresh `node bin/agentlink.js …` process (tsx over the sources, as `npx agentlink` in a checkout):
 *   - `--help`: only the command tables, the config module and the version load (server/main.ts loads each command's
 *     work when it runs);
 *   - `migrate` on a temp SQLite database: the store, its migrations and the roles module (server/cli/roles.ts: the
 *     API, the agent, the browser's driver) load as well.
 * Wall time and the child's CPU time (user + system, from the kernel's rusage), medians; then the ratios.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'agentlink.js');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Math.max(1, Number(values.runs));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** One run: its wall time, and the CPU its process used (the growth of this process's reaped-children CPU). */
function once(args: string[], env: Record<string, string>): { wallMs: number; cpuMs: number } {
  const started = performance.now();
  const before = childCpuMs();
  const res = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (res.status !== 0) throw new Error(`agentlink ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  return { wallMs, cpuMs: childCpuMs() - before };
}

/** The CPU the reaped children used, in ms (Linux: /proc/self/stat cutime + cstime, in ticks of 1/100 s). */
function childCpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[13]) + Number(fields[14]);
  return (ticks * 1000) / 100;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-cli-bench-'));
const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', AGENTLINK_DATA_DIR: dataDir, HOME: os.tmpdir() };
try {
  const rows: [string, string[]][] = [
    ['agentlink --help', ['--help']],
    ['agentlink migrate', ['migrate']],
  ];
  const results: Record<string, { wall: number[]; cpu: number[] }> = {};
  for (const [name] of rows) results[name] = { wall: [], cpu: [] };
  for (const [, args] of rows) once(args, env); // warm-up (tsx's compile cache, the database file)
  // Interleaved, so a change in the machine's load touches both rows alike.
  for (let i = 0; i < runs; i++) {
    for (const [name, args] of rows) {
      const r = once(args, env);
      results[name]!.wall.push(r.wallMs);
      results[name]!.cpu.push(r.cpuMs);
    }
  }
  console.log(`CLI start-up, ${runs} runs each (median), load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`);
  for (const [name] of rows) {
    const r = results[name]!;
    console.log(`  ${name.padEnd(20)} wall ${median(r.wall).toFixed(0).padStart(6)} ms   CPU ${median(r.cpu).toFixed(0).padStart(6)} ms`);
  }
  const help = results['agentlink --help']!;
  const migrate = results['agentlink migrate']!;
  console.log(
    `  migrate / --help:    wall ×${(median(migrate.wall) / median(help.wall)).toFixed(1)}   CPU ×${(median(migrate.cpu) / median(help.cpu)).toFixed(1)}`,
  );
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
