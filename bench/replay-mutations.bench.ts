/**
 * Replay mutations (issue 34, "A replay answers right or not at all"): every replayable list read of the test corpora
 * is recorded on its page (the recorder's own planResult, from the answer read by hand), then its page is changed in
 * one way (the list grew, shrank, was reordered, emptied, an item renamed, a sibling list added beside it, controls
 * put between its items, its heading renamed, content added above it) and the replay's own readResult answers on the
 * changed page. Each answer is compared with the one read by hand from the changed page:
 *
 *   right      the replay answered, and its answer is the hand-read one
 *   fell back  the replay did not answer (its check failed: the planner takes over, or REPLAY_MISMATCH)
 *   wrong      the replay answered something else — the outcome that must never happen
 *
 *   npm run bench:replay-mutations
 *   npm run bench:replay-mutations -- --only invoices   # the reads whose id contains "invoices"
 *
 * Also prints what the check costs a replay: the median time of the result read with the check and without it
 * (the same plan with its checks taken off), side by side on the same pages.
 */
import { isDeepStrictEqual, parseArgs } from 'node:util';

import type { Page } from 'playwright-core';

import { planResult, readResult } from '../server/agent/replay/extraction';
import type { ResultPlan } from '../server/agent/replay/trajectory';
import { flowEditor } from '../test/agent-replay/flow-editor-page';
import { startRealisticSites } from '../test/fixtures/realistic/server';
import { startBrowser } from '../test/support/live-server';
import { type ListRead, mutate, type MutationKind, MUTATIONS } from './replay-mutations/mutations';
import { listReads } from './replay-mutations/reads';

const { values } = parseArgs({ args: process.argv.slice(2), options: { only: { type: 'string' } } });

type Verdict = 'right' | 'fell back' | 'wrong';

function unchecked(plan: ResultPlan): ResultPlan {
  if (plan.kind === 'list') return { kind: 'list', list: plan.list, item: plan.item };
  if (plan.kind === 'object')
    return { kind: 'object', properties: Object.fromEntries(Object.entries(plan.properties).map(([k, v]) => [k, unchecked(v)])) };
  return plan;
}

async function timeReads(page: Page, plan: ResultPlan, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await readResult(page, plan, []);
    out.push(performance.now() - t);
  }
  return out;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const [sites, browser] = await Promise.all([startRealisticSites(), startBrowser()]);
  const page = await browser.newPage();
  const reads = listReads({ sites, flowEditor }).filter((r) => !values.only || r.id.includes(values.only));
  const table = new Map<MutationKind, Record<Verdict, number>>(MUTATIONS.map((m) => [m.kind, { right: 0, 'fell back': 0, wrong: 0 }]));
  // The same reads without their checks, as a replay read them before issue 34: how many of them answered wrong.
  const before = new Map<MutationKind, Record<Verdict, number>>(MUTATIONS.map((m) => [m.kind, { right: 0, 'fell back': 0, wrong: 0 }]));
  const withCheck: number[] = [];
  const without: number[] = [];
  try {
    for (const read of reads) {
      await read.open(page);
      const answer = await read.answer(page);
      const recorded = await planResult(page, answer, answer, [], { constantsAllowed: false, request: read.action });
      if (!recorded.ok) {
        process.stdout.write(`  not recorded ${read.id}: ${recorded.reason}\n`);
        continue;
      }
      const plan = recorded.value;
      // The check's cost, side by side on the unchanged page (after a warm-up read of each).
      await timeReads(page, plan, 2);
      await timeReads(page, unchecked(plan), 2);
      for (let round = 0; round < 5; round++) {
        withCheck.push(...(await timeReads(page, plan, 4)));
        without.push(...(await timeReads(page, unchecked(plan), 4)));
      }
      const verdicts: string[] = [];
      for (const m of MUTATIONS) {
        await read.open(page);
        await mutate(page, read as ListRead, m.kind);
        const expected = await read.answer(page);
        const judge = (r: Awaited<ReturnType<typeof readResult>>): Verdict =>
          !r.ok ? 'fell back' : isDeepStrictEqual(r.value, expected) ? 'right' : 'wrong';
        before.get(m.kind)![judge(await readResult(page, unchecked(plan), []))]++;
        const got = await readResult(page, plan, []);
        const verdict = judge(got);
        table.get(m.kind)![verdict]++;
        verdicts.push(`${m.kind}=${verdict}`);
        if (verdict === 'wrong')
          process.stdout.write(
            `  WRONG ${read.id} / ${m.kind}: ${JSON.stringify(got.ok && got.value).slice(0, 200)} expected ${JSON.stringify(expected).slice(0, 200)}\n`,
          );
        else if (verdict === 'fell back' && m.keepsStructure)
          process.stdout.write(`  fell back ${read.id} / ${m.kind}: ${!got.ok ? got.reason : ''}\n`);
      }
      process.stdout.write(`  ${read.id}: ${verdicts.join(' ')}\n`);
    }
  } finally {
    await browser.close();
    await sites.close();
  }
  const lines = ['', `Replay on changed pages (${reads.length} recorded list reads × ${MUTATIONS.length} mutations):`];
  lines.push(
    `  ${'mutation'.padEnd(22)} ${'right'.padStart(6)} ${'fell back'.padStart(10)} ${'wrong'.padStart(6)}             unchecked (before): right / fell back / wrong`,
  );
  const sum = (of: typeof table, keeps: boolean | null) => {
    const s = { right: 0, 'fell back': 0, wrong: 0 };
    for (const m of MUTATIONS)
      if (keeps === null || m.keepsStructure === keeps) for (const k of Object.keys(s) as Verdict[]) s[k] += of.get(m.kind)![k];
    return s;
  };
  const row = (label: string, r: Record<Verdict, number>, b: Record<Verdict, number>) => {
    const n = r.right + r['fell back'] + r.wrong;
    lines.push(
      `  ${label.padEnd(22)} ${String(r.right).padStart(6)} ${String(r['fell back']).padStart(10)} ${String(r.wrong).padStart(6)}   ${(n ? ((100 * r.right) / n).toFixed(0) : '—').padStart(3)} % right   ${b.right} / ${b['fell back']} / ${b.wrong}`,
    );
  };
  for (const m of MUTATIONS) row(m.kind + (m.keepsStructure ? '' : ' *'), table.get(m.kind)!, before.get(m.kind)!);
  row('structure kept', sum(table, true), sum(before, true));
  row('all', sum(table, null), sum(before, null));
  lines.push('  * the list loses its structure (no item left to check): falling back is the right outcome');
  lines.push(
    '',
    `Result read per replay, median of ${withCheck.length}: with the check ${median(withCheck).toFixed(2)} ms, without ${median(without).toFixed(2)} ms ` +
      `(check ≈ ${(median(withCheck) - median(without)).toFixed(2)} ms, ×${(median(withCheck) / median(without)).toFixed(2)})`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
