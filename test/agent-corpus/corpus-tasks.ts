import type { CorpusTask } from './corpus-harness';
import { COMMERCE_TASKS } from './corpus-tasks-commerce';
import { FORM_TASKS } from './corpus-tasks-forms';

/**
 * The corpus's 36 tasks: what a user asks on each realistic page (test/fixtures/realistic/), the steps a person
 * would take (read by the label-picking model), and what the site must have recorded afterwards. A task passes only
 * when the run completed AND the page state (and the answer) is right: a run that "completes" after clicking the
 * wrong thing fails here.
 *
 * The tasks, in this order: corpus-tasks-commerce.ts (storefront, checkout, mega menu, invoices table) and
 * corpus-tasks-forms.ts (form kits, consent overlay, reports in new tabs, date pickers, article); how they check a
 * run: corpus-checks.ts. (The jest files split them by site instead: corpus-suite.ts.)
 */
export const CORPUS_TASKS: CorpusTask[] = [...COMMERCE_TASKS, ...FORM_TASKS];
