import type { Browser, BrowserContext, Page } from 'playwright-core';

import { releasePageSession } from './webauthn-environment';

/**
 * The page targets Chromium holds, per browser context, known the moment Chromium creates them.
 *
 * Why: Playwright reports a new tab (the context's 'page' event) only once it has set the tab up, several DevTools
 * round trips later (hundreds of milliseconds on a busy machine), while Chromium announces the target as the click or
 * window.open() creates it. A run's tab list waits on the difference (RunTabs.view), so the observation taken right
 * after a click that opened a tab lists that tab instead of missing it for one step.
 */
class PageTargets {
  private readonly byContext = new Map<string, { live: Set<string>; created: number }>();
  private readonly contextOf = new Map<string, string>();

  static async watch(browser: Browser): Promise<PageTargets> {
    const cdp = await browser.newBrowserCDPSession();
    const targets = new PageTargets();
    cdp.on('Target.targetCreated', ({ targetInfo }) => {
      if (targetInfo.type === 'page' && targetInfo.browserContextId) targets.add(targetInfo.targetId, targetInfo.browserContextId);
    });
    cdp.on('Target.targetDestroyed', ({ targetId }) => targets.remove(targetId));
    // The reply comes after the targetCreated events of the pages that already exist.
    await cdp.send('Target.setDiscoverTargets', { discover: true });
    return targets;
  }

  /** The context's open page targets, and how many it ever had (a count that only grows: "something new opened"). */
  of(contextId: string): { open: number; created: number } {
    const c = this.byContext.get(contextId);
    return { open: c?.live.size ?? 0, created: c?.created ?? 0 };
  }

  private add(targetId: string, contextId: string): void {
    let c = this.byContext.get(contextId);
    if (!c) this.byContext.set(contextId, (c = { live: new Set(), created: 0 }));
    if (c.live.has(targetId)) return;
    c.live.add(targetId);
    c.created++;
    this.contextOf.set(targetId, contextId);
  }

  private remove(targetId: string): void {
    const contextId = this.contextOf.get(targetId);
    if (contextId === undefined) return;
    this.contextOf.delete(targetId);
    const c = this.byContext.get(contextId)!;
    c.live.delete(targetId);
    if (c.live.size === 0) this.byContext.delete(contextId);
  }
}

const watchers = new WeakMap<Browser, Promise<PageTargets | null>>();
const contextIds = new WeakMap<BrowserContext, Promise<string | null>>();

/** The browser context's DevTools id, read once through one of its pages. */
function contextIdOf(page: Page): Promise<string | null> {
  const context = page.context();
  let id = contextIds.get(context);
  if (!id) {
    id = (async () => {
      const cdp = await context.newCDPSession(page);
      const { targetInfo } = await cdp.send('Target.getTargetInfo');
      // Kept attached: a page's WebAuthn environment goes when any session of the page detaches (webauthn-environment.ts).
      await releasePageSession(cdp);
      return targetInfo.browserContextId ?? null;
    })().catch(() => null);
    contextIds.set(context, id);
  }
  return id;
}

/** How many page targets a context has in Chromium right now, and how many it ever had. */
export type TargetCount = () => { open: number; created: number };

/**
 * The live count of `page`'s context's page targets, as Chromium sees them; null when the browser cannot tell (not
 * Chromium, or it went away): the caller then goes by Playwright's pages alone.
 */
export async function pageTargetsOf(page: Page): Promise<TargetCount | null> {
  const browser = page.context().browser();
  if (!browser) return null;
  let watcher = watchers.get(browser);
  if (!watcher) {
    watcher = PageTargets.watch(browser).catch(() => null);
    watchers.set(browser, watcher);
  }
  const [targets, contextId] = await Promise.all([watcher, contextIdOf(page)]);
  if (!targets || !contextId) return null;
  return () => targets.of(contextId);
}
