import { type ApgRig, type ApgTask, explainApg, problems, runApgTask, startApgRig, stopApgRig } from './apg-harness';
import { APG_TASKS } from './apg-tasks';

/**
 * The public corpus in `npm test`: the quick subset of the tasks on the W3C ARIA Authoring Practices Guide examples
 * (test/fixtures/apg/, pages copied unmodified), each through the real planner loop in real Chromium with the
 * label-picking model, checked against the page state read from the DOM afterwards. `npm run bench:corpus` runs
 * every task (the ones the current observation cannot do among them) and prints the score and named coverage.
 */
jest.setTimeout(90_000);

const rig = {} as ApgRig;
beforeAll(async () => {
  Object.assign(rig, await startApgRig());
});
afterAll(async () => {
  await stopApgRig(rig);
});

const QUICK = APG_TASKS.filter((t) => t.quick);

describe('public corpus (W3C APG examples): the planner with a label-picking model', () => {
  it('has a quick subset of distinct tasks on the copied pages', () => {
    expect(QUICK.length).toBeGreaterThanOrEqual(8);
    expect(new Set(APG_TASKS.map((t) => t.id)).size).toBe(APG_TASKS.length);
  });

  for (const task of QUICK) {
    test(`${task.id}: ${task.action}`, async () => {
      const run = await runApgTask(rig, task);
      const found = problems(task, run);
      if (found.length) throw new Error(`${found.join('; ')}\n\n${explainApg(run)}`);
    });
  }

  it('fails a run that completes after acting on the wrong element: the state is read from the page, not the model', async () => {
    const task = APG_TASKS.find((t) => t.id === 'menu-button-action')!;
    const wrong: ApgTask = { ...task, steps: ["click 'Actions'", "click 'Action 2'", 'done'] };
    const run = await runApgTask(rig, wrong);
    expect(run.outcome.status).toBe('completed');
    expect(run.state).toBe('Action 2');
    expect(problems(wrong, run)).toEqual(['page state "Action 2", expected "Action 3"']);
  });

  it('fails a run that gives a wrong answer, even when the page state is right', async () => {
    const task = APG_TASKS.find((t) => t.id === 'tabs-manual-read')!;
    const wrong: ApgTask = {
      ...task,
      steps: [task.steps[0]!, "read born as /\\((\\w+ \\d+), \\d{4}/ near 'Ida Henriette da Fonseca'", 'done'],
    };
    const run = await runApgTask(rig, wrong);
    expect(problems(wrong, run)).toEqual(['answer {"born":"July 27"}, expected {"born":"July 27, 1802"}']);
  });
});
