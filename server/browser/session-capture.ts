import { randomBytes } from 'node:crypto';

import type { BrowserContext, CDPSession, Frame, Page, Route } from 'playwright-core';

import { pageDevTools } from './isolated-world';
import { type ProviderSession, SESSION_FORMAT, type SessionStorageOrigin, type StorageItem } from './session-format';

/**
 * Taking a provider session out of a browser context after a run or a sign-in, and putting its sessionStorage back
 * into the next run's page. `keep` says which origins are the provider's (its egress policy): nothing of any other
 * origin is captured, restored, or shown to a page of another origin.
 */
export type OriginFilter = (origin: string) => boolean;

/** sessionStorage read from one origin is bounded on its own too (the whole session is bounded when sealed). */
const SESSION_STORAGE_MAX_CHARS = 1024 * 1024;
const EVALUATE_TIMEOUT_MS = 2_000;

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);

function originOf(frame: Frame): string | null {
  try {
    const url = new URL(frame.url());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** Items up to the bound, in the browser's order: whole items only, as many as fit. */
function bounded(entries: Iterable<readonly [string, string]>, max = SESSION_STORAGE_MAX_CHARS): StorageItem[] {
  const items: StorageItem[] = [];
  let total = 0;
  for (const [name, value] of entries) {
    total += name.length + value.length;
    if (total > max) break;
    items.push({ name, value });
  }
  return items;
}

/**
 * The sessionStorage of an origin shown in the tab `cdp` is attached to, read by DevTools (DOMStorage), outside the
 * page: no script runs in any world of the document, so a page that wraps Storage's methods or the `sessionStorage`
 * getter sees no call of ours at the end of every run (issue 36: nothing of ours in the page). Null when this target
 * holds no frame of that origin (a frame in a process of its own), or the tab does not answer.
 */
async function readByDevTools(cdp: CDPSession, origin: string): Promise<StorageItem[] | null> {
  try {
    const { entries } = await withTimeout(
      cdp.send('DOMStorage.getDOMStorageItems', { storageId: { storageKey: `${origin}/`, isLocalStorage: false } }),
      EVALUATE_TIMEOUT_MS,
    );
    return bounded(entries.filter((e): e is [string, string] => e.length === 2).map(([name, value]) => [name, value] as const));
  } catch {
    return null;
  }
}

/**
 * The same read through a session of the frame's own (a frame of another site, in its own process: Playwright opens
 * sessions only for those), or, where DevTools cannot name the frame's storage (a browser that partitions a
 * third-party frame's storage by its top site), from inside the frame, as before: the session is still captured.
 */
async function readFromFrame(context: BrowserContext, frame: Frame, origin: string): Promise<StorageItem[] | null> {
  const own = await context.newCDPSession(frame).catch(() => null);
  if (own) {
    try {
      const items = await readByDevTools(own, origin);
      if (items) return items;
    } finally {
      await own.detach().catch(() => undefined);
    }
  }
  try {
    return await withTimeout(
      frame.evaluate((max) => {
        const items: { name: string; value: string }[] = [];
        let total = 0;
        for (let i = 0; i < sessionStorage.length; i++) {
          const name = sessionStorage.key(i);
          const value = name === null ? null : sessionStorage.getItem(name);
          if (name === null || value === null) continue;
          total += name.length + value.length;
          if (total > max) break;
          items.push({ name, value });
        }
        return items;
      }, SESSION_STORAGE_MAX_CHARS),
      EVALUATE_TIMEOUT_MS,
    );
  } catch {
    return null; // the frame navigated or hangs: its origin is captured from another frame, or not at all
  }
}

/**
 * Opens the page's DevTools session, which its capture reads through, now, beside what the page does next (a run's
 * navigation): attaching to a tab costs its renderer a few milliseconds, which the capture would otherwise wait for.
 */
export function readyForCapture(page: Page): void {
  void pageDevTools(page);
}

/** sessionStorage per provider origin, from every page of the context (the first page that shows an origin wins). */
async function captureSessionStorage(context: BrowserContext, keep: OriginFilter): Promise<SessionStorageOrigin[]> {
  const captured = new Map<string, StorageItem[]>();
  for (const page of context.pages()) {
    const shown = new Map<string, Frame[]>();
    for (const frame of page.frames()) {
      const origin = originOf(frame);
      if (!origin || captured.has(origin) || !keep(origin)) continue;
      shown.set(origin, [...(shown.get(origin) ?? []), frame]);
    }
    if (shown.size === 0) continue;
    // One DevTools session of the tab reads every origin its process holds (the top document and same-process frames).
    // The page's own session (kept for the page's life: isolated-world.ts).
    const tab = await pageDevTools(page);
    for (const [origin, frames] of shown) {
      let items = tab ? await readByDevTools(tab, origin) : null;
      for (const frame of frames) {
        if (items) break;
        items = await readFromFrame(context, frame, origin);
      }
      if (items && items.length > 0) captured.set(origin, items);
    }
  }
  return [...captured].map(([origin, items]) => ({ origin, items }));
}

/** Everything the context holds for the provider's origins: cookies, localStorage, IndexedDB and sessionStorage. */
export async function captureSession(context: BrowserContext, keep: OriginFilter): Promise<ProviderSession> {
  // Both read the same pages and change nothing: asked at once, the run's end waits for one round trip, not two.
  const [state, sessionStorage] = await Promise.all([
    context.storageState({ indexedDB: true }) as Promise<Omit<ProviderSession, 'format'>>,
    captureSessionStorage(context, keep),
  ]);
  return { format: SESSION_FORMAT, cookies: state.cookies, origins: state.origins.filter((o) => keep(o.origin)), sessionStorage };
}

/**
 * Puts a session's sessionStorage back into a fresh page, before it goes anywhere. sessionStorage belongs to a tab, so
 * it is written from inside this page: for each provider origin, the page opens an empty document of that origin
 * that this browser serves itself (page.route fulfils it; nothing goes on the network and no script of the site
 * runs), the items are written there, and the tab keeps them for that origin. No page of another origin ever gets
 * them: unlike an init script, which every frame of every origin would run with the data in it.
 */
export async function restoreSessionStorage(page: Page, session: ProviderSession, keep: OriginFilter): Promise<void> {
  const blank = `/__agentlink-session-restore-${randomBytes(8).toString('hex')}`;
  for (const { origin, items } of session.sessionStorage ?? []) {
    if (items.length === 0 || !keep(origin)) continue;
    const url = `${origin}${blank}`;
    const serve = (route: Route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title></title>' });
    await page.route(url, serve);
    try {
      await page.goto(url, { waitUntil: 'commit' });
      await page.evaluate((entries) => {
        for (const { name, value } of entries) {
          try {
            sessionStorage.setItem(name, value);
          } catch {
            return; // over the browser's quota: the rest would not fit either
          }
        }
      }, items);
    } finally {
      await page.unroute(url, serve).catch(() => undefined);
    }
  }
}
