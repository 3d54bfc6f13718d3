/**
 * `work`, or a rejection ("timed out after N ms") once `ms` have passed: the bound of a call to a browser that may never
 * answer (a renderer whose main thread spins, a page that does not close). The timer goes with the answer and keeps no
 * process alive; `work` itself goes on, and a rejection it gives later is not an unhandled one.
 */
export function timeBound<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
