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
