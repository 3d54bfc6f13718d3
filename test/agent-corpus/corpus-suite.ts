import { explain, runCorpusTask, useCorpusRig } from './corpus-harness';
import { CORPUS_TASKS } from './corpus-tasks';

/**
 * The realistic corpus (issue 12) in two jest files, by the sites a task runs on: every task runs in exactly one of
 * them (the second takes what the first does not). One file of 36 planner runs took about 100 s on one jest worker
 * while the other had nothing left to run (jest starts files it has no timings for by size, and this one is small);
 * two halves run side by side. Each file prints its part of the score.
 */
const SHOP_AND_READING = /^(store|checkout|news|article)-/;

export const CORPUS_PARTS = {
  'shop and reading': CORPUS_TASKS.filter((t) => SHOP_AND_READING.test(t.id)),
  'apps and forms': CORPUS_TASKS.filter((t) => !SHOP_AND_READING.test(t.id)),
};

/**
 * Each task through the real planner loop in real Chromium, by a stand-in model that picks only by the labels it
 * reads in the observation (corpus-harness.ts). A task passes when the site's recorded state (and the answer) is
 * right. Prints "corpus score (<part>): N/M …" at the end, with the failing tasks by what they exercise.
 */
export function describeCorpusPart(part: keyof typeof CORPUS_PARTS): void {
  const tasks = CORPUS_PARTS[part];
  const rig = useCorpusRig();
  const outcomes: { id: string; exercises: string[]; passed: boolean }[] = [];

  afterAll(() => {
    if (!outcomes.length) return;
    const passed = outcomes.filter((o) => o.passed);
    const failing = new Map<string, string[]>();
    for (const o of outcomes.filter((x) => !x.passed)) for (const e of o.exercises) failing.set(e, [...(failing.get(e) ?? []), o.id]);
    const lines = [
      `corpus score (${part}): ${passed.length}/${outcomes.length} tasks completed with the right page state`,
      ...outcomes.map((o) => `  ${o.passed ? 'PASS' : 'FAIL'}  ${o.id}  [${o.exercises.join(', ')}]`),
      ...[...failing].map(([e, ids]) => `  failing on ${e}: ${ids.length}`),
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);
  });

  describe(`realistic corpus (${part}): the planner with a label-picking model`, () => {
    test('this part has tasks, and the two parts together are the whole corpus, each task once', () => {
      expect(tasks.length).toBeGreaterThan(0);
      const ids = Object.values(CORPUS_PARTS).flatMap((p) => p.map((t) => t.id));
      expect(ids.sort()).toEqual(CORPUS_TASKS.map((t) => t.id).sort());
    });

    for (const task of tasks) {
      test(`${task.id}: ${task.action}`, async () => {
        let run: Awaited<ReturnType<typeof runCorpusTask>> | undefined;
        try {
          run = await runCorpusTask(rig, task);
          task.check(run);
          outcomes.push({ id: task.id, exercises: task.exercises, passed: true });
        } catch (err) {
          outcomes.push({ id: task.id, exercises: task.exercises, passed: false });
          const e = err as Error;
          if (run) e.message = `${e.message}\n\n${explain(run)}`;
          throw e;
        }
      });
    }
  });
}
