import type { Page } from 'playwright-core';

import { PAGE_ENTRIES } from '../page-code/entries';
import { pageFunction } from '../page-code/page-function';
import { evaluateIsolated } from './isolated-world';
import { networkState, trackRequests, within } from './page-quiet';
import type pageReady from './page-ready.page';
import type { ReadyCheck } from './page-ready.page';

/**
 * Waiting until a page has drawn its content, before the agent's first look at it and after each navigation. A
 * single-page app answers the navigation with an empty shell, then fetches and renders: observed at
 * DOMContentLoaded it shows a header and a footer, or nothing at all, and a model that trusts that fails the run or
 * spends a call on `wait`. Ready means, all at once: the document loaded; no document, fetch or XHR request open and
 * none started or ended for a quiet window; no route transition (history API) within that window; the DOM unchanged
 * for the window; and the content shown — the provider's `readyWhen` (a selector, a text) when it declares one, else
 * a main landmark holding something. Bounded by a budget: a page that never settles costs the budget once, and the
 * observation says it may still be loading.
 *
 * Playwright's `networkidle` is not enough (500 ms of no connections at all, never after a route transition, and
 * never on a page with a long-lived connection), nor is a selector wait (which selector, on an app we never saw?).
 */
export interface ReadyWhen {
  selector?: string;
  text?: string;
}

export interface ReadyOptions {
  readyWhen?: ReadyWhen;
  /** The most the wait takes (default READY_BUDGET_MS). */
  budgetMs?: number;
  /** The quiet window of the network, the route and the DOM (default READY_QUIET_MS). */
  quietMs?: number;
}

export interface Readiness {
  ready: boolean;
  waitedMs: number;
  /** When not ready: what the page was still doing or lacking when the budget ran out. */
  pending?: 'network' | 'route' | 'dom' | 'content' | 'readyWhen' | 'load';
}

/**
 * 100 ms: a fetch an app starts after its script runs begins within a task or two of the previous step ending, and a
 * render after a response lands in the same task or the next animation frame; a tenth of a second of nothing covers
 * both with room, and costs a static page about that once per navigation.
 */
export const READY_QUIET_MS = 100;
/** 5 s: past that, a page is slow or never settles (a ticker, a long poll); the model is told and may `wait`. */
export const READY_BUDGET_MS = 5_000;
/**
 * How long past the budget a look may answer before the page counts as hung (its script holding the main thread).
 * 1 s, not a quarter: on a loaded machine the look's trip to the page and back took over 300 ms, and a slow answer
 * taken for a hung page said 'dom' (still changing) of a still page whose declared sign was missing. Only a truly hung
 * page pays it, once.
 */
const HUNG_AFTER_MS = 1_000;
/** Requests started this long before the wait still count: the page load's own API calls. */
const RECENT_MS = 5_000;

const PAGE_READY = pageFunction<typeof pageReady>(PAGE_ENTRIES.pageReady);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const PENDING_WORDS: Record<NonNullable<Readiness['pending']>, string> = {
  load: 'the document had not finished loading',
  network: 'requests were still open',
  route: 'the address had just changed',
  dom: 'the page was still changing',
  content: 'no main content was shown yet',
  readyWhen: "the provider's ready sign had not appeared",
};

/** The observation's note when the budget ran out (ours, outside the page's untrusted content). */
export function loadingNote(r: Readiness): string | undefined {
  if (r.ready) return undefined;
  const why = r.pending ? ` (${PENDING_WORDS[r.pending]} after ${(r.waitedMs / 1000).toFixed(1)} s)` : '';
  return `The page may still be loading${why}. If what you need is not shown, use wait and look again.`;
}

export async function waitForReady(page: Page, opts: ReadyOptions = {}): Promise<Readiness> {
  const quietMs = opts.quietMs ?? READY_QUIET_MS;
  const started = Date.now();
  const until = started + Math.max(0, opts.budgetMs ?? READY_BUDGET_MS);
  const left = () => until - Date.now();
  const since = started - RECENT_MS;
  trackRequests(page.context());
  const readyWhen = opts.readyWhen && (opts.readyWhen.selector || opts.readyWhen.text) ? opts.readyWhen : undefined;
  let pending: Readiness['pending'] = 'load';
  const result = (ready: boolean): Readiness => ({ ready, waitedMs: Date.now() - started, ...(ready ? {} : { pending }) });

  while (left() > 0 && !page.isClosed()) {
    const loaded = await page
      .waitForLoadState('domcontentloaded', { timeout: Math.max(1, left()) })
      .then(() => true)
      .catch(() => false);
    if (!loaded) {
      pending = 'load';
      break;
    }
    // What is pending is only ever what was seen: a budget that runs out between two looks keeps the last look's
    // reason (a page that never stops changing is 'dom', not 'network' because the budget ended before its next check).
    // The network: nothing open now. Its quiet window runs alongside the DOM's (checked after it): a static page
    // costs one window, not two.
    let net = networkState(page, since);
    if (net.busy) pending = 'network';
    while (net.busy && left() > 0) {
      await sleep(10);
      net = networkState(page, since);
    }
    if (left() <= 0) break;
    const checkedAt = Date.now();
    // The page's own script may hang the check or replace its timers: bounded from here too.
    const check = await within<ReadyCheck | 'gone' | 'hung'>(
      // The in-page wait ends a little before the budget so its answer (what was missing) comes back within it.
      evaluateIsolated(page, PAGE_READY, { quietMs, maxMs: Math.max(quietMs, left() - 100), ...(readyWhen ? { readyWhen } : {}) }).catch(
        () => 'gone' as const,
      ),
      left() + HUNG_AFTER_MS,
      'hung',
    );
    if (check === 'gone') {
      // The document was replaced (a navigation) or the page closed: look again.
      await sleep(10);
      continue;
    }
    if (check === 'hung') {
      pending = 'dom';
      break;
    }
    net = networkState(page, since);
    const routeMoved = (net.lastRoute ?? 0) >= checkedAt || Date.now() - (net.lastRoute ?? 0) < quietMs;
    const netMoved = net.busy || (net.lastActivity ?? 0) >= checkedAt;
    const netQuietFor = Date.now() - (net.lastActivity ?? 0);
    if (check.ready && !routeMoved && !netMoved && netQuietFor >= quietMs) return result(true);
    pending = routeMoved ? 'route' : netMoved || netQuietFor < quietMs ? 'network' : (check.missing ?? 'dom');
    if (check.ready && !routeMoved && !netMoved) {
      // Drawn and still, the network quiet since before the check, but not for a whole window yet: the rest of it.
      await sleep(quietMs - netQuietFor);
      net = networkState(page, since);
      if (!net.busy && (net.lastActivity ?? 0) < checkedAt && (net.lastRoute ?? 0) < checkedAt) return result(true);
      continue;
    }
    if (!check.ready && check.quiet && !routeMoved && !netMoved) break; // the in-page wait used the whole budget
  }
  return result(false);
}
