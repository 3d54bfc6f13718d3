import type { TaskRun } from './corpus-harness';

/**
 * How the corpus's tasks (corpus-tasks-*.ts) check a run: its result (only when it completed), the events the sites
 * recorded, the pages viewed on the shop, and the money pattern the steps read prices with.
 */

/** The run's result; throws unless the run completed. */
export function result(run: TaskRun): Record<string, unknown> {
  if (run.outcome.status !== 'completed') throw new Error(`the run did not complete`);
  return run.outcome.result as Record<string, unknown>;
}

/** The events of a type, without the fields every event has. */
export function recorded(run: TaskRun, type: string): Record<string, unknown>[] {
  return run.events(type).map(({ type: _t, page: _p, origin: _o, ...rest }) => rest);
}

/** Whether the run viewed a page of the shop. */
export const viewed = (run: TaskRun, path: string) => run.events('view').some((e) => e.origin === 'shop' && e.page === path);

/** A read pattern for an amount of money ($1,099.00). */
export const MONEY = '/\\$[\\d,]+\\.\\d\\d/';
