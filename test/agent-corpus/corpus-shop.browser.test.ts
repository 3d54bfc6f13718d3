import { explain, runCorpusTask, useCorpusRig } from './corpus-harness';
import { CORPUS_TASKS } from './corpus-tasks';

/**
 * The realistic corpus (issue 12): 36 tasks on pages built the way real sites are built (web components, frames of
 * another origin, hover menus, listener-only controls, styled hidden inputs, date pickers, new tabs, long text),
 * each run through the real planner loop in real Chromium by a stand-in model that picks only by the labels it
 * reads in the observation. A task passes when the site's recorded state (and the answer) is right.
 *
 * Prints "corpus score: N/36 …" at the end, with the failing tasks by what they exercise.
 */
jest.setTimeout(150_000);

const rig = useCorpusRig();
const outcomes: { id: string; exercises: string[]; passed: boolean }[] = [];

afterAll(() => {
  if (!outcomes.length) return;
  const passed = outcomes.filter((o) => o.passed);
  const failing = new Map<string, string[]>();
  for (const o of outcomes.filter((x) => !x.passed)) for (const e of o.exercises) failing.set(e, [...(failing.get(e) ?? []), o.id]);
  const lines = [
    `corpus score: ${passed.length}/${outcomes.length} tasks completed with the right page state`,
    ...outcomes.map((o) => `  ${o.passed ? 'PASS' : 'FAIL'}  ${o.id}  [${o.exercises.join(', ')}]`),
    ...[...failing].map(([e, ids]) => `  failing on ${e}: ${ids.length}`),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
});

describe('realistic corpus: the planner with a label-picking model', () => {
  for (const task of CORPUS_TASKS) {
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
