import type { Page } from 'playwright-core';

import type { PageEntry } from '../../page-code/page-bundle';
import { topTarget } from './documents';
import { commitObserved, Observed, observedOf } from './element-refs';

/**
 * Page code that needs what the latest observation listed, without anything of it on the page (element-refs.ts):
 * a narrow observation of the top document (a replay's search for a step's element), and a call with the references
 * of one document (what covers an element, a link's href).
 */

/**
 * Runs a `function` entry, `(…args, refs)`, in the top document as an observation: what it lists in `refs` becomes
 * the page's latest observation, as a snapshot's would (the tools then act on its indexes).
 */
export async function observeWith<T>(page: Page, entry: PageEntry, args: unknown[]): Promise<T> {
  const o = new Observed();
  try {
    const { value, refs } = await (await topTarget(page, o)).capture<T>(entry, args);
    o.docs.set(Observed.key([]), refs);
    commitObserved(page, o);
    return value;
  } catch (err) {
    o.release();
    throw err;
  }
}

/**
 * `fn(refs, args)` (a function's source) in the document of `at` with the latest observation's references; null
 * when there is none, the document is gone, the call fails or it takes longer than `timeoutMs`.
 */
export async function withRefs<T>(
  page: Page,
  at: { frame?: readonly number[] },
  fn: string,
  args: unknown,
  timeoutMs = 2_000,
): Promise<T | null> {
  const refs = observedOf(page)?.docs.get(Observed.key(at.frame ?? []));
  if (!refs) return null;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
  return Promise.race([refs.call<T>(fn, args).catch(() => null), late]).finally(() => clearTimeout(timer));
}
