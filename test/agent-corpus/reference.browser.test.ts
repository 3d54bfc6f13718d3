import { finishRun, openCorpusPage, useCorpusRig } from './corpus-harness';
import { CORPUS_TASKS } from './corpus-tasks';
import { REFERENCE_RUNS } from './reference-runs';

/**
 * The corpus can be done: every task, done by hand with Playwright (./reference-runs.ts) in the same fenced
 * context the agent gets, leaves the state its check asks for. And its check can fail: the same check on the
 * untouched page (nothing done, no answer) must reject it.
 */
jest.setTimeout(60_000);

const rig = useCorpusRig();

test('every corpus task has a reference run', () => {
  expect(Object.keys(REFERENCE_RUNS).sort()).toEqual(CORPUS_TASKS.map((t) => t.id).sort());
});

test("the sites' record is read once what the pages reported is in, however late it arrives", async () => {
  rig.sites.reset();
  const { context, page } = await openCorpusPage(rig, '/signup/');
  try {
    // The page's report reaches the site 1.5 s after it is sent, as on a loaded machine: a quiet period alone (300 ms)
    // read the record before it, and the task's check failed.
    await context.route('**/__log', async (route) => {
      await new Promise((r) => setTimeout(r, 1_500));
      await route.fallback();
    });
    await REFERENCE_RUNS['signup-invalid-email']!({ page, context });
    const done = await finishRun(rig, context);
    expect(done.events('signup_invalid')).toHaveLength(1);
  } finally {
    await context.close();
  }
});

describe('the corpus tasks done by hand', () => {
  for (const task of CORPUS_TASKS) {
    test(`${task.id}`, async () => {
      rig.sites.reset();
      const { context, page } = await openCorpusPage(rig, task.page);
      try {
        // Nothing was done: only what the page sends as it loads, which its load event already waited for.
        const untouched = await finishRun(rig, context, 100);
        expect(() =>
          task.check({ outcome: { status: 'completed', result: { completed: true } }, trace: [], log: [], ...untouched }),
        ).toThrow();
        const answer = await REFERENCE_RUNS[task.id]!({ page, context });
        const done = await finishRun(rig, context);
        task.check({ outcome: { status: 'completed', result: answer ?? { completed: true } }, trace: [], log: [], ...done });
      } finally {
        await context.close();
      }
    });
  }
});
