import type { CDPSession, Page } from 'playwright-core';

/**
 * Page code that only looks at a document (is it drawn, has it gone quiet) runs in an isolated world of our own, not
 * in the page's: the DOM is the same, the page's scripts reach none of it. A site that wraps MutationObserver,
 * setTimeout or querySelector (to spot automation, or as zone.js does in every Angular app) neither records our calls
 * nor runs its own code inside our check, and cannot replace the timers the check counts on.
 *
 * Through the tab's DevTools session (one per page, opened once and kept as long as the page): the world is made once
 * per document (Page.createIsolatedWorld for the top frame's current loader) and the function called in it by
 * Runtime.callFunctionOn, its text the same each time (compiled once), its argument by value. Where no session can be
 * opened, the function runs in the page's world through Playwright, as before.
 */
const WORLD = '__agentlink_isolated__';

interface World {
  loaderId: string;
  contextId: Promise<number>;
}

interface Tab {
  cdp: CDPSession;
  /** The world made in the top frame's document of this loader (a new document needs its own). */
  world?: World;
}

const tabs = new WeakMap<Page, Promise<Tab | null>>();

/** The world of the top frame's current document: the one made for it, or a new one (made once per document). */
async function worldOf(tab: Tab): Promise<number> {
  const { frame } = (await tab.cdp.send('Page.getFrameTree')).frameTree;
  if (tab.world?.loaderId !== frame.loaderId) {
    const contextId = tab.cdp
      .send('Page.createIsolatedWorld', { frameId: frame.id, worldName: WORLD, grantUniveralAccess: false })
      .then((r) => r.executionContextId);
    contextId.catch(() => undefined); // a world that could not be made is asked for again by the next call
    tab.world = { loaderId: frame.loaderId, contextId };
  }
  return tab.world.contextId;
}

function tabOf(page: Page): Promise<Tab | null> {
  let tab = tabs.get(page);
  if (!tab) {
    tab = page
      .context()
      .newCDPSession(page)
      .then((cdp): Tab => {
        const made: Tab = { cdp };
        // Each new document of the tab gets its world as it commits, beside its loading: the first check after a
        // navigation (page-ready's) finds it made instead of waiting for it.
        page.on('framenavigated', (frame) => {
          if (frame === page.mainFrame()) worldOf(made).catch(() => undefined);
        });
        return made;
      })
      .catch(() => null);
    tabs.set(page, tab);
  }
  return tab;
}

/** The page's own DevTools session (null where none can be opened): opened on first use, kept for the page's life. */
export async function pageDevTools(page: Page): Promise<CDPSession | null> {
  return (await tabOf(page))?.cdp ?? null;
}

/**
 * `fn(arg)` in the isolated world of the page's top document (a promise it returns is awaited), its result by value.
 * Rejects when the document went away meanwhile (a navigation), as Playwright's evaluate does.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function evaluateIsolated<F extends (arg: any) => unknown>(
  page: Page,
  fn: F,
  arg: Parameters<F>[0],
): Promise<Awaited<ReturnType<F>>> {
  const tab = await tabOf(page);
  if (!tab) return (await page.evaluate(fn as never, arg)) as Awaited<ReturnType<F>>;
  try {
    const executionContextId = await worldOf(tab);
    const r = await tab.cdp.send('Runtime.callFunctionOn', {
      functionDeclaration: String(fn),
      executionContextId,
      arguments: [{ value: arg }],
      awaitPromise: true,
      returnByValue: true,
    });
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result.value as Awaited<ReturnType<F>>;
  } catch (err) {
    tab.world = undefined; // made again in the next document (or this one, should only the world have gone)
    throw err;
  }
}
