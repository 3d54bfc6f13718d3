import type { BrowserContext, Page, Request } from 'playwright-core';

import { PAGE_ENTRIES } from '../page-code/entries';
import { pageFunction } from '../page-code/page-function';
import { evaluateIsolated } from './isolated-world';
import type domQuiet from './page-quiet.page';
import { type RequestSink, watchRendererRequests } from './renderer-requests';

/**
 * Waiting for a page to settle after an action by what the page does, not by a fixed sleep: the navigation the
 * action started reaches DOMContentLoaded, the page's own requests (documents, fetch, XHR) started around the
 * action finish, and the DOM stops changing for a short quiet window. A static page settles in one quiet window
 * (a few tens of ms); a page that fetches and re-renders is waited for as long as it takes, up to a bound, so a page
 * that never goes quiet (a ticker, a long poll) costs at most `maxMs`.
 */
export interface QuietOptions {
  /**
   * How long the DOM must stay unchanged (default 30 ms: a re-render after a fetch lands within a task or a
   * microtask of the response, one batched into an animation frame within 17 ms).
   */
  quietMs?: number;
  /** The most this wait takes, whatever the page does (default 1000 ms). */
  maxMs?: number;
  /**
   * How long an unchanged DOM is waited for before it counts as quiet (default `quietMs`): a hover-intent timer
   * changes nothing for 100–300 ms, then opens its menu. Once the DOM changes, `quietMs` of stillness is enough.
   */
  leadMs?: number;
}

export const QUIET_MS = 30;
export const QUIET_MAX_MS = 1_000;
/** Requests started this long before the wait began still count (the action's own); older ones are the page's background. */
const RECENT_MS = 2_000;
const TRACKED_TYPES = new Set(['document', 'fetch', 'xhr']);

/** Open requests per page, as Playwright reports them (a Request) and as the renderer announces them (its id). */
const inflight = new WeakMap<Page, Map<Request | string, number>>();
/** When each page was last found quiet, and at which URL. */
const quietAt = new WeakMap<Page, { at: number; url: string }>();
const tracked = new WeakSet<BrowserContext>();
/** When each page last started or ended a tracked request (page-ready.ts waits for a quiet window of the network). */
const lastActivity = new WeakMap<Page, number>();
/** When each page's top frame last navigated, to a new document or by the history API (a route transition). */
const lastRoute = new WeakMap<Page, number>();

function watchRoutes(page: Page): void {
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) lastRoute.set(page, Date.now());
  });
}

const mapOf = (page: Page) => {
  let map = inflight.get(page);
  if (!map) inflight.set(page, (map = new Map()));
  return map;
};

/** The renderer's announcements, beside Playwright's events: a request is open while either source still has it. */
const RENDERER: RequestSink = {
  started: (page, id) => {
    mapOf(page).set(`renderer:${id}`, Date.now());
    lastActivity.set(page, Date.now());
  },
  ended: (page, id) => {
    inflight.get(page)?.delete(`renderer:${id}`);
    lastActivity.set(page, Date.now());
  },
};
const rendererTracked = new WeakSet<BrowserContext>();

export interface TrackOptions {
  /**
   * The context has routes (page.route, context.route): Playwright then reports a request only once Chromium's browser
   * process has paused it too, which a loaded machine delivered after the DOM had been still for the quiet window (a
   * filter chip's fetch missed, an old list read). Its renderer's own announcements are followed as well
   * (renderer-requests.ts). Off otherwise: without a route Playwright's event is that announcement, and a second
   * DevTools session per page costs a run about 5 ms (bench:agent).
   */
  routed?: boolean;
}

/**
 * Follows the requests of every page of a context (idempotent). Install it when the context opens so the first
 * action's requests are seen too; waitForQuiet installs it on first use otherwise.
 */
export function trackRequests(context: BrowserContext, opts: TrackOptions = {}): void {
  if (opts.routed && !rendererTracked.has(context)) {
    rendererTracked.add(context);
    const watch = (page: Page) => watchRendererRequests(page, RENDERER);
    for (const page of context.pages()) watch(page);
    context.on('page', watch);
  }
  if (tracked.has(context)) return;
  tracked.add(context);
  const pageOf = (request: Request): Page | null => {
    try {
      return request.frame().page();
    } catch {
      return null; // a service worker's request, or a frame already gone
    }
  };
  const done = (request: Request) => {
    const page = pageOf(request);
    if (!page) return;
    inflight.get(page)?.delete(request);
    lastActivity.set(page, Date.now());
  };
  for (const page of context.pages()) watchRoutes(page);
  context.on('page', watchRoutes);
  context.on('request', (request) => {
    if (!TRACKED_TYPES.has(request.resourceType())) return;
    const page = pageOf(request);
    if (!page) return;
    const map = mapOf(page);
    const from = request.redirectedFrom();
    if (from) map.delete(from);
    map.set(request, Date.now());
    lastActivity.set(page, Date.now());
  });
  context.on('requestfinished', done);
  context.on('requestfailed', done);
}

/**
 * The page's network as readiness sees it: whether a tracked request started since `since` is still open, how long
 * ago the last one started or ended, and when the top frame last navigated (Date.now() times; undefined: never seen).
 */
export function networkState(page: Page, since: number): { busy: boolean; lastActivity?: number; lastRoute?: number } {
  return { busy: busy(page, since), lastActivity: lastActivity.get(page), lastRoute: lastRoute.get(page) };
}

function busy(page: Page, since: number): boolean {
  const map = inflight.get(page);
  if (!map) return false;
  for (const started of map.values()) if (started >= since) return true;
  return false;
}

/**
 * Whether the page was found quiet after `time` (a performance.now() value) and is still at that URL: an action
 * that settled by itself needs no second wait before its outcome is read.
 */
export function settledSince(page: Page, time: number): boolean {
  const q = quietAt.get(page);
  return !!q && q.at >= time && !page.isClosed() && q.url === page.url();
}

/**
 * Whether the page has a request of its own (document, fetch, XHR) in flight that started after `time` (a Date.now()
 * value): what a read right after a plain navigation waits for, since content that is fetched is not drawn yet.
 */
export function requestsInFlight(page: Page, time: number): boolean {
  return busy(page, time);
}

/** Resolves true once the DOM has not changed for `quietMs`, false after `maxMs`; in the page (page-quiet.page.ts). */
const DOM_QUIET = pageFunction<typeof domQuiet>(PAGE_ENTRIES.pageQuiet);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or `fallback` after `ms` (the timer is cleared either way, so nothing outlives the wait). */
export async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export async function waitForQuiet(page: Page, opts: QuietOptions = {}): Promise<void> {
  const quietMs = opts.quietMs ?? QUIET_MS;
  let leadMs = Math.max(quietMs, opts.leadMs ?? quietMs);
  const started = Date.now();
  const until = started + Math.max(0, opts.maxMs ?? QUIET_MAX_MS);
  const since = started - RECENT_MS;
  trackRequests(page.context());
  const left = () => until - Date.now();
  while (left() > 0 && !page.isClosed()) {
    await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, left()) }).catch(() => undefined);
    while (busy(page, since) && left() > 0) await sleep(10);
    if (left() <= 0) return;
    // The page's own script may hang or replace the timers the check runs on: it is bounded from here too.
    const dom = await within<'quiet' | 'busy' | 'gone'>(
      evaluateIsolated(page, DOM_QUIET, { quietMs, leadMs, maxMs: left() }).then(
        (quiet) => (quiet === true ? 'quiet' : 'busy'),
        () => 'gone', // the document was replaced (a navigation) or the page closed: look again
      ),
      left() + 50,
      'busy',
    );
    if (dom === 'quiet' && !busy(page, since)) {
      quietAt.set(page, { at: performance.now(), url: page.url() });
      return;
    }
    if (dom === 'gone') await sleep(10);
    leadMs = quietMs; // the lead is waited once: after a navigation or a busy spell the page is already moving
  }
}
