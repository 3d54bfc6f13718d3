/**
 * Replayable share: of the successful planner runs on the test corpora, how many the recorder would keep as a
 * trajectory (issue 24, "Replay learns filtered and sorted reads").
 *
 *   npm run bench:replayable
 *   npm run bench:replayable -- --only invoices   # the tasks whose id contains "invoices"
 *
 * Two corpora, each task run through the REAL planner loop (server/agent/planner/loop.ts) in real Chromium on the
 * realistic fixture sites (test/fixtures/realistic/), fenced like the corpus tests, with a stand-in model over the
 * OpenAI-compatible API on loopback:
 *   - the realistic corpus (test/agent-corpus/corpus-tasks.ts), driven by its label-picking model;
 *   - list reads: answers that are a subset of a list on the page (the overdue invoices, the open ones as a request
 *     parameter, the three largest, the first two paid ones …). The model's answer is the right one, read by hand
 *     with Playwright from the page it sees (what is measured is the recorder, not a model).
 * A successful run (completed, and its task's check passes for the corpus) is replayable when its run stayed clean
 * and the recorder's planResult traces its answer back to the final page (what strategies/index.ts stores).
 */
import { parseArgs } from 'node:util';

import { expect } from 'expect';
import type { Page } from 'playwright-core';

import { ChatClient } from '../server/agent/model/chat-client';
import { runPlanner } from '../server/agent/planner/loop';
import { parameterSlots } from '../server/agent/planner/placeholders';
import { planResult } from '../server/agent/replay/extraction';
import type { RunOutcome, TraceStep } from '../server/agent/run/context';
import { type CorpusRig, finishRun, openCorpusPage } from '../test/agent-corpus/corpus-harness';
import { CORPUS_TASKS } from '../test/agent-corpus/corpus-tasks';
import { LabelPicker } from '../test/agent-corpus/label-picker';
import { parseSteps, readKeys } from '../test/agent-corpus/steps';
import { startRealisticSites } from '../test/fixtures/realistic/server';
import { startBrowser } from '../test/support/live-server';
import { testRunContext } from '../test/support/run-context';
import { type ScriptTurn, startScriptedModelServer } from '../test/support/scripted-model-server';

// The corpus tasks' checks are written with jest's expect.
Object.assign(globalThis, { expect });

const { values } = parseArgs({ args: process.argv.slice(2), options: { only: { type: 'string' } } });

interface Row {
  number: string;
  amount: number;
  status: string;
}
/** The invoice rows the page shows, read by hand (the numbers as the page prints them: "$1,234.50" is 1234.5). */
async function invoiceRows(page: Page): Promise<Row[]> {
  await page.locator('table.data-table tbody tr').first().waitFor();
  return page.$$eval('table.data-table tbody tr', (trs) =>
    trs.map((tr) => {
      const td = tr.querySelectorAll('td');
      return {
        number: td[0]!.textContent!.trim(),
        amount: Number(td[3]!.textContent!.replace(/[^\d.]/g, '')),
        status: td[4]!.textContent!.trim(),
      };
    }),
  );
}

interface ListTask {
  id: string;
  page: string;
  action: string;
  parameters?: Record<string, unknown>;
  responseFormat: Record<string, unknown>;
  /** The answer, read by hand from the page the run starts on. */
  answer(page: Page): Promise<Record<string, unknown>>;
}

const byAmount = (rows: Row[]) => [...rows].sort((a, b) => b.amount - a.amount);
const LIST_TASKS: ListTask[] = [
  {
    id: 'list-overdue-invoices',
    page: '/invoices/',
    action: 'List the overdue invoices on the first page.',
    responseFormat: { invoices: ['string - invoice number'] },
    answer: async (p) => ({ invoices: (await invoiceRows(p)).filter((r) => r.status === 'Overdue').map((r) => r.number) }),
  },
  {
    id: 'list-invoices-by-status',
    page: '/invoices/',
    action: 'List the invoices on the first page whose status is {{parameters.status}}.',
    parameters: { status: 'open' },
    responseFormat: { invoices: [{ number: 'string - invoice number', amount: 'number - amount in dollars' }] },
    answer: async (p) => ({
      invoices: (await invoiceRows(p)).filter((r) => r.status === 'Open').map(({ number, amount }) => ({ number, amount })),
    }),
  },
  {
    id: 'list-three-largest-invoices',
    page: '/invoices/',
    action: 'Which are the three largest invoices on the first page, largest first?',
    responseFormat: { invoices: [{ number: 'string - invoice number', amount: 'number - amount in dollars' }] },
    answer: async (p) => ({
      invoices: byAmount(await invoiceRows(p))
        .slice(0, 3)
        .map(({ number, amount }) => ({ number, amount })),
    }),
  },
  {
    id: 'list-first-two-paid',
    page: '/invoices/',
    action: 'Give me the first two paid invoices on the first page.',
    responseFormat: { invoices: ['string - invoice number'] },
    answer: async (p) => ({
      invoices: (await invoiceRows(p))
        .filter((r) => r.status === 'Paid')
        .slice(0, 2)
        .map((r) => r.number),
    }),
  },
  {
    id: 'list-first-three-invoices',
    page: '/invoices/',
    action: 'List the first three invoices.',
    responseFormat: { invoices: ['string - invoice number'] },
    answer: async (p) => ({ invoices: (await invoiceRows(p)).slice(0, 3).map((r) => r.number) }),
  },
];

interface Outcome {
  corpus: string;
  id: string;
  succeeded: boolean;
  replayable: boolean;
  why: string;
}

async function attempt(
  rig: CorpusRig,
  corpus: string,
  id: string,
  o: { page: string; action: string; parameters?: Record<string, unknown>; responseFormat: Record<string, unknown> },
  prepare: (page: Page) => Promise<(t: ScriptTurn) => ReturnType<LabelPicker['script']>>,
  check: (outcome: RunOutcome, trace: TraceStep[], finish: () => ReturnType<typeof finishRun>) => Promise<string | null>,
): Promise<Outcome> {
  rig.sites.reset();
  const { context, page, provider, integrity, startingUrl } = await openCorpusPage(rig, o.page);
  try {
    rig.model.setScript(await prepare(page));
    const trace: TraceStep[] = [];
    const { action, parameters, responseFormat } = o;
    const ctx = testRunContext({
      ...{ organizationId: 'org_bench', action, parameters, responseFormat, startingUrl, provider, context, page, integrity },
      timeoutMs: 75_000,
      record: (s) => trace.push(s),
    });
    const client = new ChatClient({ baseUrl: rig.model.baseUrl, model: 'bench-replayable', timeoutMs: 10_000 });
    const run = await runPlanner(ctx, { client, options: { maxSteps: 30 } });
    const failed = await check(run.outcome, trace, () => finishRun(rig, context));
    if (failed !== null || !run.completion) return { corpus, id, succeeded: false, replayable: false, why: failed ?? 'no completion' };
    if (!integrity.clean) return { corpus, id, succeeded: true, replayable: false, why: `tainted: ${integrity.summary()}` };
    const plan = await planResult(ctx.page, run.completion.rawData, run.completion.data, parameterSlots(ctx.parameters), {
      constantsAllowed: run.completion.changedSomething,
      request: ctx.action,
    });
    return { corpus, id, succeeded: true, replayable: plan.ok, why: plan.ok ? '' : plan.reason };
  } catch (err) {
    return { corpus, id, succeeded: false, replayable: false, why: String((err as Error)?.message ?? err).split('\n')[0]! };
  } finally {
    await context.close();
  }
}

async function main() {
  const [sites, browser, model] = await Promise.all([startRealisticSites(), startBrowser(), startScriptedModelServer()]);
  const rig: CorpusRig = { sites, browser, model };
  const pick = <T extends { id: string }>(xs: T[]) => xs.filter((x) => !values.only || x.id.includes(values.only));
  const outcomes: Outcome[] = [];
  try {
    for (const task of pick(CORPUS_TASKS)) {
      const keys = readKeys(parseSteps(task.steps));
      const responseFormat: Record<string, unknown> = keys.length
        ? Object.fromEntries(keys.map((k) => [k, `string - the ${k} as shown on the page`]))
        : { completed: 'boolean - true when the action is done' };
      const picker = new LabelPicker(task.steps);
      const outcome = await attempt(
        rig,
        'realistic corpus',
        task.id,
        { page: task.page, action: task.action, responseFormat },
        async () => picker.script,
        async (o, trace, finish) => {
          if (o.status !== 'completed') return `${o.status}: ${'message' in o ? o.message : ''}`;
          // Success as the corpus test judges it: the task's check of the sites' state and the answer.
          try {
            task.check({ outcome: o, trace, log: picker.log, ...(await finish()) });
            return null;
          } catch (err) {
            return `check failed: ${String((err as Error)?.message ?? err).split('\n')[0]}`;
          }
        },
      );
      outcomes.push(outcome);
      process.stdout.write(
        `  ${outcome.replayable ? 'REPLAYABLE ' : outcome.succeeded ? 'not kept   ' : 'failed     '} ${task.id}${outcome.why ? `: ${outcome.why.slice(0, 160)}` : ''}\n`,
      );
    }
    for (const task of pick(LIST_TASKS)) {
      const outcome = await attempt(
        rig,
        'list reads',
        task.id,
        task,
        async (page) => {
          const data = await task.answer(page);
          return () => ({ tool: 'done', args: { success: true, data } });
        },
        async (o) => (o.status === 'completed' ? null : `${o.status}: ${'message' in o ? o.message : ''}`),
      );
      outcomes.push(outcome);
      process.stdout.write(
        `  ${outcome.replayable ? 'REPLAYABLE ' : outcome.succeeded ? 'not kept   ' : 'failed     '} ${task.id}${outcome.why ? `: ${outcome.why.slice(0, 160)}` : ''}\n`,
      );
    }
  } finally {
    await browser.close();
    await sites.close();
    await model.close();
  }
  const lines = ['', 'Replayable share of successful planner runs (recorded as a trajectory / completed):'];
  for (const corpus of [...new Set(outcomes.map((o) => o.corpus)), 'all']) {
    const of = outcomes.filter((o) => corpus === 'all' || o.corpus === corpus);
    const ok = of.filter((o) => o.succeeded);
    const kept = ok.filter((o) => o.replayable);
    lines.push(
      `  ${corpus.padEnd(18)} ${String(kept.length).padStart(3)} / ${String(ok.length).padEnd(3)} = ${ok.length ? ((100 * kept.length) / ok.length).toFixed(1) : '—'} %   (${of.length} tasks, ${of.length - ok.length} not completed)`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
