import { randomUUID } from 'node:crypto';

import type { CDPSession, Locator, Page } from 'playwright-core';

import { HELD_STORE, heldSelector } from './element-ref-engine';
import { pageDevTools } from './isolated-world';
import { timeBound } from './time-bound';

/**
 * A playbook's read of the elements a locator finds, run in Playwright's utility world instead of the page's (issue 36:
 * nothing of ours in the page). `locator.evaluate` runs the read in the page's own world: a site that wraps the DOM's
 * getters and methods, as bot detectors do, records every call with Playwright's evaluation script in its stack, and
 * Playwright first builds its injected script there (listeners on the window included).
 *
 * Here the locator's elements are found where Playwright's locators always find them, its utility world, and held
 * there by the `agentlink-ref=!<token>` engine (element-ref-engine.ts); the read then runs in that world, by DevTools
 * (Runtime.callFunctionOn), on the elements held: the DOM is the page's, the prototypes and globals are the world's
 * own, which no script of the page reaches. A document's utility worlds are learned by the tab's DevTools session
 * (isolated-world.ts's, with Runtime.enable). Where none holds the elements (a frame's document, a tab without a
 * session), the read goes through Playwright in the page's world, as before.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- page functions take the element type they read
type OnElements<A, R> = (els: any[], arg: A) => R;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type OnElement<A, R> = (el: any, arg: A) => R;

/** A read of a few elements: a renderer that answers none for this long (its main thread spinning) will not. */
const READ_TIMEOUT_MS = 10_000;

interface Tab {
  cdp: CDPSession;
  /** frameId → Playwright's utility worlds of the document there (a document may have two: Playwright's affair). */
  utility: Map<string, Set<number>>;
  enabled: Promise<void>;
  /** The top frame's id: a tab's top frame keeps its id across its documents, so it is asked once. */
  top?: Promise<string>;
}

const tabs = new WeakMap<Page, Promise<Tab | null>>();

/** The tab's DevTools session (isolated-world.ts: one per page), told of its execution contexts from the first read on. */
function tabOf(page: Page): Promise<Tab | null> {
  let tab = tabs.get(page);
  if (!tab) {
    tab = pageDevTools(page).then((cdp): Tab | null => {
      if (!cdp) return null;
      const utility = new Map<string, Set<number>>();
      cdp.on('Runtime.executionContextCreated', (e) => {
        const frameId = (e.context.auxData as { frameId?: string } | undefined)?.frameId;
        if (frameId && e.context.name.startsWith('__playwright_utility_world'))
          utility.set(frameId, (utility.get(frameId) ?? new Set()).add(e.context.id));
      });
      cdp.on('Runtime.executionContextDestroyed', (e) => {
        for (const worlds of utility.values()) worlds.delete(e.executionContextId);
      });
      cdp.on('Runtime.executionContextsCleared', () => utility.clear());
      // The contexts that exist already are told before the reply.
      return { cdp, utility, enabled: cdp.send('Runtime.enable').then(() => undefined) };
    });
    tabs.set(page, tab);
  }
  return tab;
}

/**
 * The held list's read, in a utility world: `{ held: false }` where the list is not (another world of the document).
 * `one`: the function takes the one element held (`locator.evaluate`'s form), else the list.
 */
const READ_HELD = (fn: string) =>
  `function (token, arg, none, one) {
    var store = globalThis.${HELD_STORE};
    var els = store && store.get(token);
    if (!els && !none) return { held: false };
    if (store) store.delete(token);
    els = els || [];
    if (one && els.length !== 1) throw new Error('expected one element, found ' + els.length);
    return Promise.resolve((${fn})(one ? els[0] : els, arg)).then(function (value) { return { held: true, value: value }; });
  }`;

async function runOnHeld<R>(loc: Locator, fn: string, arg: unknown, one: boolean): Promise<{ value: R } | null> {
  const tab = await tabOf(loc.page());
  if (!tab) return null;
  await tab.enabled;
  const token = randomUUID();
  const found = await loc.locator(heldSelector(token)).count();
  tab.top ??= tab.cdp.send('Page.getFrameTree').then(
    (t) => t.frameTree.frame.id,
    (err: unknown) => {
      tab.top = undefined; // asked again by the next read
      throw err;
    },
  );
  for (const executionContextId of tab.utility.get(await tab.top) ?? []) {
    const call = tab.cdp.send('Runtime.callFunctionOn', {
      functionDeclaration: READ_HELD(fn),
      executionContextId,
      arguments: [{ value: token }, { value: arg ?? null }, { value: found === 0 }, { value: one }],
      returnByValue: true,
      awaitPromise: true,
    });
    // A world that went with its document: the next one, or Playwright's way. One that does not answer: an error.
    const r = await timeBound(
      call.catch(() => null),
      READ_TIMEOUT_MS,
    );
    if (r?.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    const answer = r?.result.value as { held: boolean; value?: R } | undefined;
    if (answer?.held) return { value: answer.value as R };
  }
  return null;
}

/**
 * `fn(elements, arg)` on every element `loc` finds now (none: an empty list; no wait, as `locator.evaluateAll`), its
 * result by value.
 */
export async function evaluateAllIsolated<R, A = undefined>(loc: Locator, fn: OnElements<A, R>, arg?: A): Promise<R> {
  const read = await runOnHeld<R>(loc, String(fn), arg, false);
  return read ? read.value : (loc.evaluateAll(fn as never, arg as never) as Promise<R>);
}

/**
 * `fn(element, arg)` on the one element `loc` finds, waited for as `locator.evaluate` waits (attached, within
 * `timeout`, with Playwright's strictness: two elements are an error), its result by value.
 */
export async function evaluateOneIsolated<R, A = undefined>(
  loc: Locator,
  fn: OnElement<A, R>,
  arg?: A,
  opts: { timeout?: number } = {},
): Promise<R> {
  await loc.waitFor({ state: 'attached', ...opts });
  const read = await runOnHeld<R>(loc, String(fn), arg, true);
  return read ? read.value : (loc.evaluate(fn as never, arg as never, opts) as Promise<R>);
}
