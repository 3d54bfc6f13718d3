import { randomBytes } from 'node:crypto';

import type { BrowserContext, CDPSession, Frame, Page, Route } from 'playwright-core';

import { pageDevTools } from './isolated-world';
import { type ProviderSession, SESSION_FORMAT, type SessionStorageOrigin, type StorageItem } from './session-format';
import { timeBound } from './time-bound';

/**
 * Taking a provider session out of a browser context after a run or a sign-in, and putting its sessionStorage back
 * into the next run's page. `keep` says which origins are the provider's (its egress policy): nothing of any other
 * origin is captured, restored, or shown to a page of another origin.
 */
export type OriginFilter = (origin: string) => boolean;

/** sessionStorage read from one origin is bounded on its own too (the whole session is bounded when sealed). */
const SESSION_STORAGE_MAX_CHARS = 1024 * 1024;
const EVALUATE_TIMEOUT_MS = 2_000;

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
    const { entries } = await timeBound(
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
    return await timeBound(
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

/** A run's tab, watched from its first document: every origin its frames went to (Playwright's "visited origins"). */
interface Watched {
  page: Page;
  /** The origins of the session the context was opened with (Playwright's storage state starts from them). */
  loaded: string[];
  visited: Set<string>;
  /** The context opened another page (a popup): its documents went unwatched. */
  otherPages: boolean;
}

const watched = new WeakMap<BrowserContext, Watched>();

/**
 * Opens the page's DevTools session, which its capture reads through, now, beside what the page does next (a run's
 * navigation): attaching to a tab costs its renderer a few milliseconds, which the capture would otherwise wait for.
 * `opened`: the page is the first of a context opened for this run with a session of these origins, and has shown
 * nothing yet; its documents are watched from here, which lets the capture read the session by DevTools alone.
 */
export function readyForCapture(page: Page, opened?: { loadedOrigins: string[] }): void {
  void pageDevTools(page);
  const context = page.context();
  if (!opened) {
    watched.delete(context); // a context an earlier run used: its documents went unwatched
    return;
  }
  const w: Watched = { page, loaded: opened.loadedOrigins, visited: new Set(), otherPages: context.pages().length !== 1 };
  watched.set(context, w);
  context.on('page', (p) => {
    if (p !== page) w.otherPages = true;
  });
  page.on('framenavigated', (frame) => {
    const origin = originOf(frame);
    if (origin) w.visited.add(origin);
  });
}

/**
 * The session read by DevTools alone, outside the page, when that reads exactly what Playwright's storage state would:
 * the context has one page, watched since its first document; every provider origin the context held or visited is
 * shown in that tab's process (its localStorage and sessionStorage read by DOMStorage) and keeps no IndexedDB (which only
 * Playwright's serialisation may restore). Null otherwise: the caller takes Playwright's storage state, which reads
 * the top document's origin in its utility world (a replay, whose steps never used that world, paid for setting up
 * Playwright's evaluation there at its end) and opens a page of its own to visit each other origin.
 */
async function captureByDevTools(
  context: BrowserContext,
  keep: OriginFilter,
  sessionStorage: Promise<SessionStorageOrigin[]>,
): Promise<ProviderSession | null> {
  const w = watched.get(context);
  const pages = context.pages();
  if (!w || w.otherPages || pages.length !== 1 || pages[0] !== w.page) return null;
  const tab = await pageDevTools(w.page);
  if (!tab) return null;
  const top = originOf(w.page.mainFrame());
  // In the order Playwright's storage state lists them: the page's origin, then those it started with, then visited.
  const origins = [...new Set([...(top ? [top] : []), ...w.loaded, ...w.visited])].filter(keep);
  const shown = new Set(w.page.frames().map(originOf));
  if (origins.some((o) => !shown.has(o))) return null;
  // Asked at once: the run's end waits for the slowest read (IndexedDB's list of databases), not for their sum.
  const [read, cookies, tabStorage] = await Promise.all([
    Promise.all(
      origins.map(async (origin) => {
        const storageKey = `${origin}/`;
        const [local, databases] = await Promise.all([
          timeBound(tab.send('DOMStorage.getDOMStorageItems', { storageId: { storageKey, isLocalStorage: true } }), EVALUATE_TIMEOUT_MS),
          timeBound(tab.send('IndexedDB.requestDatabaseNames', { storageKey }), EVALUATE_TIMEOUT_MS),
        ]);
        if (databases.databaseNames.length > 0) return null;
        const items = local.entries.filter((e): e is [string, string] => e.length === 2).map(([name, value]) => ({ name, value }));
        return { origin, localStorage: items, indexedDB: [] };
      }),
    ).catch(() => null),
    context.cookies(),
    sessionStorage,
  ]);
  if (!read || read.some((o) => o === null)) return null;
  return {
    format: SESSION_FORMAT,
    cookies: cookies as ProviderSession['cookies'],
    origins: read.filter((o): o is NonNullable<typeof o> => !!o && o.localStorage.length > 0),
    sessionStorage: tabStorage,
  };
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
  // sessionStorage is read the same way on both paths: asked once, beside whichever reads the rest.
  const sessionStorage = captureSessionStorage(context, keep);
  sessionStorage.catch(() => undefined); // awaited below; a rejection meanwhile is not an unhandled one
  const read = await captureByDevTools(context, keep, sessionStorage).catch(() => null);
  if (read) return read;
  // Both read the same pages and change nothing: asked at once, the run's end waits for one round trip, not two.
  const [state, tabStorage] = await Promise.all([
    context.storageState({ indexedDB: true }) as Promise<Omit<ProviderSession, 'format'>>,
    sessionStorage,
  ]);
  return {
    format: SESSION_FORMAT,
    cookies: state.cookies,
    origins: state.origins.filter((o) => keep(o.origin)),
    sessionStorage: tabStorage,
  };
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
