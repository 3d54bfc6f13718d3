/**
 * Routing without a model (issue #24): accuracy of the ranked text search, the values read from the action and
 * the result fields fitted by name and description, on the held-out paraphrases (test/playbooks/routing-corpus/
 * held-out.ts, written before tuning and never tuned on) and on the dev set (dev.ts, tuned on), per category.
 *
 *   npm run bench:routing                     # held-out and dev, per category, against the recorded baseline
 *   npm run bench:routing -- --failures       # and every case that failed, with why
 *   npm run bench:routing -- --save-baseline  # record this code's figures as the baseline (bench/routing/baseline.json)
 *
 * It also times the values read from a long hostile action (measured here; test/playbooks/sentence-values.test.ts only
 * checks the answer).
 *
 * The baseline is the same script's output on the code before tuning (its commit is in the file): both figures
 * come from the same cases and the same evaluation, so the difference is the router's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { sentenceValues } from '../server/agent/playbooks/sentence-values';
import { DEV } from '../test/playbooks/routing-corpus/dev';
import { accuracy, CATEGORIES, evaluate, percent, type Tally } from '../test/playbooks/routing-corpus/evaluate';
import { HELD_OUT } from '../test/playbooks/routing-corpus/held-out';
import { builtInCatalogue, builtInPlaybooks } from '../test/support/integrations';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { failures: { type: 'boolean', default: false }, 'save-baseline': { type: 'boolean', default: false } },
});

type Figures = ReturnType<typeof accuracy>;
interface Baseline {
  commit: string;
  note: string;
  heldOut: Figures;
  dev: Figures;
}

const BASELINE = join(__dirname, 'routing', 'baseline.json');
const fmt = (t: Tally | undefined) => (t ? `${t.ok}/${t.total} ${percent(t).toFixed(1).padStart(5)} %` : '—');

async function main() {
  const registry = builtInPlaybooks();
  const catalogue = builtInCatalogue('http://localhost:3000');
  const sets = { heldOut: await evaluate(HELD_OUT, registry, catalogue), dev: await evaluate(DEV, registry, catalogue) };
  const now = { heldOut: accuracy(sets.heldOut), dev: accuracy(sets.dev) };

  if (values['save-baseline']) {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname }).toString().trim();
    const baseline: Baseline = { commit, note: 'router before tuning for issue #24', ...now };
    writeFileSync(BASELINE, `${JSON.stringify(baseline, null, 2)}\n`);
    console.log(`baseline recorded: ${BASELINE} (commit ${commit})`);
  }
  const before: Baseline | null = existsSync(BASELINE) ? (JSON.parse(readFileSync(BASELINE, 'utf8')) as Baseline) : null;

  for (const [label, key] of [
    ['HELD-OUT (never tuned on)', 'heldOut'],
    ['DEV (tuned on)', 'dev'],
  ] as const) {
    console.log(`\n${label}: ${now[key].overall.total} requests`);
    console.log(`${'category'.padEnd(16)}${`before${before ? ` (${before.commit})` : ''}`.padEnd(26)}now`);
    for (const cat of CATEGORIES) {
      console.log(`${cat.padEnd(16)}${fmt(before?.[key].byCategory[cat]).padEnd(26)}${fmt(now[key].byCategory[cat])}`);
    }
    console.log(`${'overall'.padEnd(16)}${fmt(before?.[key].overall).padEnd(26)}${fmt(now[key].overall)}`);
    // A miss is a refusal (the model or the caller can still route it) or, worse, another playbook run instead.
    const mustRun = sets[key].filter((o) => o.case.expect !== null);
    const wrong = mustRun.filter((o) => !o.ok && /^ran /.test(o.why ?? '')).length;
    console.log(`another playbook ran instead of the right one: ${wrong} of ${mustRun.length} requests that should run`);
  }
  // The values read from a long hostile action: unclosed quotes and a long run of capitalised words, at 1x (the test's
  // input) and 4x the length; growing much faster than the length is a rule that backtracks.
  for (const times of [1, 4]) {
    const hostile = `${"'a".repeat(2000 * times)} to ${'A '.repeat(1000 * times)}`;
    const started = performance.now();
    sentenceValues(hostile);
    console.log(`\nsentence values of a hostile action of ${hostile.length} chars: ${(performance.now() - started).toFixed(1)} ms`);
  }
  if (values.failures) {
    for (const [label, list] of Object.entries(sets)) {
      const failed = list.filter((o) => !o.ok);
      console.log(`\nfailures (${label}): ${failed.length}`);
      for (const f of failed)
        console.log(`  [${f.case.category}] ${f.case.provider}: ${f.case.action}\n      want ${f.case.expect}; ${f.why}`);
    }
  }
}

void main();
