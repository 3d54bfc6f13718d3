/**
 * Public corpus benchmark: the W3C ARIA Authoring Practices Guide examples (test/fixtures/apg/, copied unmodified
 * from w3c/aria-practices under the W3C Software and Document License).
 *
 *   npm run bench:corpus                      # every task, then the named coverage
 *   npm run bench:corpus -- --only tree       # tasks whose id contains "tree"
 *   npm run bench:corpus -- --missing 12      # more of the unnamed controls per page
 *
 * 1. Episodes: every task of test/agent-corpus/apg-tasks.ts through the REAL planner loop in real Chromium, with the
 *    label-picking model (over the OpenAI-compatible API on loopback) that acts only on what the observation names.
 *    Solved = the run completed, its answer is right, and the page state read from the DOM afterwards is right.
 * 2. Named coverage: visible interactive elements (a ground truth from Chromium's accessibility tree and clickable
 *    bit, independent of the observation) that the observation lists with a non-empty name, on every example page
 *    as it loads and with its widgets opened (menus, pickers, dialogs, expanded trees).
 */
import { parseArgs } from 'node:util';

import { type ApgRig, type ApgTask, problems, runApgTask, startApgRig, stopApgRig } from '../test/agent-corpus/apg-harness';
import { APG_TASKS } from '../test/agent-corpus/apg-tasks';
import { type CoverageRow, measureCoverage, OPENED_STATES } from './corpus/coverage';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { only: { type: 'string' }, missing: { type: 'string', default: '8' }, 'no-coverage': { type: 'boolean' } },
});
const SHOW_MISSING = Math.max(0, Number(values.missing));

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');

interface Episode {
  task: ApgTask;
  solved: boolean;
  why: string;
  seconds: number;
}

/** Why a run failed, in a line: the model's own reason when it gave up, else what the check found. */
function reason(run: Awaited<ReturnType<typeof runApgTask>>, found: string[]): string {
  const o = run.outcome;
  if (o.status === 'failed' && 'reason' in o) return String(o.reason);
  if (o.status !== 'completed') return `${o.status}${'code' in o ? ` ${o.code}` : ''}${'message' in o ? `: ${o.message}` : ''}`;
  return found.join('; ');
}

async function episodes(rig: ApgRig, tasks: ApgTask[]): Promise<Episode[]> {
  const out: Episode[] = [];
  for (const task of tasks) {
    const t0 = performance.now();
    try {
      const run = await runApgTask(rig, task);
      const found = problems(task, run);
      out.push({ task, solved: !found.length, why: found.length ? reason(run, found) : '', seconds: (performance.now() - t0) / 1000 });
    } catch (err) {
      out.push({ task, solved: false, why: `harness error: ${(err as Error).message}`, seconds: (performance.now() - t0) / 1000 });
    }
    const e = out[out.length - 1]!;
    process.stdout.write(
      `  ${e.solved ? 'PASS' : 'FAIL'}  ${task.id.padEnd(30)} ${e.seconds.toFixed(1).padStart(5)} s  ${e.why.slice(0, 160)}\n`,
    );
  }
  return out;
}

/**
 * What kind of failure a run is, from the model's reason or the check: what the observation did not show (the
 * picker only acts on what it lists), or an action on the wrong element (the check read a different page state).
 */
function kind(e: Episode): string {
  if (e.solved) return '';
  if (/is in the page text but not listed/.test(e.why)) return 'shown only as text, not listed as an element';
  if (/cannot find/.test(e.why)) return 'not in the observation at all';
  if (/stays collapsed|no expanded or collapsed state/.test(e.why)) return 'no expander listed / no expanded state';
  if (/^page state/.test(e.why)) return 'completed, but acted on the wrong element (page state wrong)';
  if (/^answer/.test(e.why)) return 'completed with a wrong answer';
  if (/failed twice/.test(e.why)) return 'a tool failed';
  return 'other';
}

function printEpisodes(eps: Episode[]) {
  const solved = eps.filter((e) => e.solved).length;
  const byPattern = new Map<string, { n: number; ok: number }>();
  for (const e of eps) {
    const p = byPattern.get(e.task.pattern) ?? { n: 0, ok: 0 };
    p.n += 1;
    p.ok += e.solved ? 1 : 0;
    byPattern.set(e.task.pattern, p);
  }
  const lines = [
    '',
    `episodes solved: ${solved}/${eps.length} (${pct(solved, eps.length)})`,
    ...[...byPattern].map(([p, c]) => `  ${p.padEnd(32)} ${c.ok}/${c.n}`),
    '',
    'failures by kind:',
  ];
  const kinds = new Map<string, string[]>();
  for (const e of eps.filter((x) => !x.solved)) kinds.set(kind(e), [...(kinds.get(kind(e)) ?? []), e.task.id]);
  for (const [k, ids] of kinds) lines.push(`  ${String(ids.length).padStart(2)}  ${k}: ${ids.join(', ')}`);
  if (!kinds.size) lines.push('  none');
  lines.push('');
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printCoverage(rows: CoverageRow[]) {
  const head = `${'page state'.padEnd(52)} ${'present'.padStart(7)} ${'listed'.padStart(6)} ${'named'.padStart(5)} ${'named%'.padStart(7)}`;
  const lines = [head, '-'.repeat(head.length)];
  for (const r of rows) {
    const a = r.audit;
    lines.push(
      `${r.state.padEnd(52)} ${String(a.present).padStart(7)} ${String(a.listed).padStart(6)} ${String(a.named).padStart(5)} ${pct(a.named, a.present).padStart(7)}`,
    );
  }
  const sum = (k: 'present' | 'listed' | 'named') => rows.reduce((s, r) => s + r.audit[k], 0);
  lines.push('-'.repeat(head.length));
  lines.push(
    `${'all states'.padEnd(52)} ${String(sum('present')).padStart(7)} ${String(sum('listed')).padStart(6)} ${String(sum('named')).padStart(5)} ${pct(sum('named'), sum('present')).padStart(7)}`,
  );
  lines.push(
    '',
    '(ground truth: bench/observation/ground-truth.ts, shared with bench:observation; it does not count a listener-only',
    " control nested inside another control, such as treeview-navigation's expander arrows inside their links, nor rows",
    ' and grid cells, such as the treegrid rows: the episodes above measure those)',
  );
  lines.push(
    '',
    `named coverage: ${sum('named')}/${sum('present')} visible interactive elements listed with a name (${pct(sum('named'), sum('present'))}); listed at all: ${sum('listed')} (${pct(sum('listed'), sum('present'))})`,
  );
  if (SHOW_MISSING) {
    lines.push('', 'Present but not listed (×) or listed without a name (∅):');
    for (const r of rows) {
      const off = r.audit.controls.filter((c) => !c.named);
      if (!off.length) continue;
      const shown = off.slice(0, SHOW_MISSING).map((c) => `${c.listed ? '∅' : '×'} ${c.role} '${c.name.slice(0, 30)}'`);
      lines.push(`  ${r.state}: ${shown.join(', ')}${off.length > SHOW_MISSING ? `, … ${off.length - SHOW_MISSING} more` : ''}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main() {
  const rig = await startApgRig();
  try {
    const tasks = APG_TASKS.filter((t) => !values.only || t.id.includes(values.only));
    process.stdout.write(`Public corpus: ${tasks.length} tasks on ${new Set(tasks.map((t) => t.page)).size} W3C APG example pages\n`);
    printEpisodes(await episodes(rig, tasks));
    if (values['no-coverage']) return;
    const pages = [...new Set(APG_TASKS.map((t) => t.page))];
    const rows: CoverageRow[] = [];
    for (const state of [...pages.map((page) => ({ page })), ...OPENED_STATES]) rows.push(await measureCoverage(rig, state));
    printCoverage(rows);
  } finally {
    await stopApgRig(rig);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
