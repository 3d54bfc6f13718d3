import type { ApgTask } from './apg-harness';
import { FORM_TASKS } from './apg-tasks-forms';
import { POPUP_TASKS } from './apg-tasks-popups';

/**
 * The public corpus's tasks: what a user asks on each W3C ARIA Authoring Practices Guide example
 * (test/fixtures/apg/site/patterns/), the steps a person would take (read by the label-picking model), and the state
 * the example's own script leaves in the DOM when the task is done. The states are read with plain DOM queries,
 * never through the observation; the ones that depend on today's date are computed when checked.
 *
 * `quick` marks the subset that runs in `npm test` (eight tasks, one per pattern family: menu button, combobox,
 * date picker, modal dialog, tabs, accordion, checkbox, toolbar menu); `npm run bench:corpus` runs them all.
 */
export const APG_TASKS: ApgTask[] = [...POPUP_TASKS, ...FORM_TASKS];
