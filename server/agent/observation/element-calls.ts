import type { JSHandle, Locator } from 'playwright-core';

import { timeBound } from '../../browser/time-bound';
import { type HeldValue, referenceOf } from './element-refs';

/**
 * Functions run on the element a tool acts on, in Playwright's utility world (issue 36: nothing of ours in the page):
 * the tools' reads of a control (its checked or expanded state, the value typed into it, its scroll area, a select's
 * options) and the click's fast-path check call nothing the page's scripts could wrap and record, and a listener they
 * add is not one of the page's world. The element is the observation's reference (element-refs.ts: DocRefs.evaluate).
 * A locator that is not an observation's reference, or a document only Playwright reaches, is evaluated through the
 * locator, in the page's world, as Playwright does.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- page functions take the element type they act on
type OnElement<A, R> = (el: any, arg: A) => R | Promise<R>;

/**
 * The bound of a call that names none. Playwright's evaluate was bounded by the page's default timeout; a call in the
 * utility world is a read of one element, which a renderer that answers nothing for this long will not give.
 */
const CALL_TIMEOUT_MS = 5_000;

/**
 * `fn(element, arg)`, its result by value. Rejects when the element is gone, at once (Playwright would wait out
 * `timeout` for an element the reference can never match again), or when the call takes longer than `timeout`.
 */
export async function evaluateOnElement<R, A = undefined>(
  loc: Locator,
  fn: OnElement<A, R>,
  arg?: A,
  opts: { timeout?: number } = {},
): Promise<R> {
  const ref = referenceOf(loc);
  const call = ref?.observed.evaluate<R>(ref.chain, ref.kind, ref.n, String(fn), arg);
  // 0 is Playwright's "no timeout": bounded by the default here all the same.
  const inWorld = call ? await timeBound(call, opts.timeout && opts.timeout > 0 ? opts.timeout : CALL_TIMEOUT_MS) : null;
  if (inWorld) return inWorld.value;
  return loc.evaluate(fn as never, arg as never, opts) as Promise<R>;
}

/**
 * `fn(element, arg)`, its result kept where it was made, by reference; null when the result is not an object.
 * Not bounded here (`timeout` bounds only the wait for a locator's element): a caller that stops waiting still gets
 * the value when it comes, to undo what the function set up.
 */
export async function evaluateHandleOnElement<A>(
  loc: Locator,
  fn: OnElement<A, unknown>,
  arg: A,
  opts: { timeout?: number } = {},
): Promise<HeldValue | null> {
  const ref = referenceOf(loc);
  const inWorld = ref ? await ref.observed.evaluateHandle(ref.chain, ref.kind, ref.n, String(fn), arg) : null;
  if (inWorld) return inWorld.held;
  const element = await loc.elementHandle(opts);
  try {
    return heldByPlaywright(await element.evaluateHandle(fn as never, arg as never));
  } finally {
    void element.dispose().catch(() => undefined);
  }
}

/**
 * A locator of the element `fn(element, arg)` finds from the tool's element (its label, the control it wraps), found in
 * Playwright's utility world and registered there, as the observation's own elements are: null when it finds none;
 * undefined for a locator that is not an observation's reference, or a document only Playwright reaches (the caller
 * then works through an element handle, in the page's world).
 */
export async function locateFromElement<A>(loc: Locator, fn: OnElement<A, Element | null>, arg?: A): Promise<Locator | null | undefined> {
  const ref = referenceOf(loc);
  if (!ref) return undefined;
  return timeBound(ref.observed.locateFound(loc.page(), ref, String(fn), arg), CALL_TIMEOUT_MS);
}

/** A Playwright handle as a HeldValue. */
function heldByPlaywright(handle: JSHandle): HeldValue {
  return {
    evaluate: <T>(fn: string) => handle.evaluate(functionOf(fn)) as Promise<T>,
    dispose: () => handle.dispose(),
  };
}

/** A stand-in function whose text is `source` (Playwright sends a function's text to the page). */
function functionOf(source: string): () => unknown {
  const fn = () => undefined;
  Object.defineProperty(fn, 'toString', { value: () => source });
  return fn;
}
