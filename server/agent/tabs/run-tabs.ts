import type { BrowserContext, Page, Request } from 'playwright-core';

import { pageTargetsOf, type TargetCount } from '../../browser/page-targets';
import type { EgressPolicy } from '../../egress/egress-policy';
import { openPage } from '../../egress/fenced-context';
import { ToolError } from '../result/errors';
import { relativeUrl, titleOf } from './tab-pages';

/**
 * The tabs of one run. A link with target=_blank or a window.open() opens a page in the run's browser context
 * (the same egress proxy fences it); this tracker notices it at the context level, numbers it,
 * and keeps the run's *current* tab, the one the observation and the tools work on. The model switches and
 * closes tabs by number (switch_tab, close_tab); a replay finds a tab again by its URL and title.
 *
 * A new tab that lands outside the provider's site (the proxy refused it, so Chromium shows its error page) or
 * fails to load is closed at once and reported, never switched to. A run keeps at most MAX_TABS tabs: a page
 * that opens more has the extra ones closed. When the current tab closes itself the run moves to its opener (or
 * the newest tab); when every tab closed, a blank one is opened so the run can still navigate.
 */
export const MAX_TABS = 8;
const MAX_NOTES = 8;
/** How long after a refused popup request its tab may appear and still be attributed to it. */
const REFUSAL_WINDOW_MS = 5_000;
/** How long the tab list waits for a tab Chromium opened to reach Playwright (its set-up takes round trips). */
const ARRIVAL_MAX_MS = 5_000;

export type TabNote =
  | { kind: 'opened'; id: number }
  /** A tab closed by its page (window.close()); `now` is the tab the run moved to, when the closed one was current. */
  | { kind: 'closed'; id: number; now?: number }
  /** A new tab that landed outside the provider (or on an error page) was closed; `host` when known. */
  | { kind: 'refused'; host: string | null }
  | { kind: 'limit' }
  /** Every tab closed; a blank tab was opened. */
  | { kind: 'reopened'; id: number };

export interface TabInfo {
  id: number;
  url: string;
  title: string;
  current: boolean;
  /** Opened since the previous observation. */
  fresh: boolean;
}

/** What a recorded tab step names: the tab's URL (same-origin as a path) and title, redacted. */
export interface TabPattern {
  url: string;
  title: string;
}

interface Tab {
  id: number;
  page: Page;
  opener: number | null;
  fresh: boolean;
}

const isErrorPage = (url: string) => url.startsWith('chrome-error:');

export class RunTabs {
  private readonly tabs: Tab[] = [];
  private current: Tab;
  private nextId = 1;
  private notes: TabNote[] = [];
  private readonly refusedRequests: { host: string; at: number }[] = [];
  private readonly switchListeners: ((page: Page) => void)[] = [];
  /** Chromium's count of the context's page targets (null: unknown); `waited` is its `created` when last waited for. */
  private readonly targets: Promise<TargetCount | null>;
  private waited = -1;

  constructor(
    private readonly context: BrowserContext,
    first: Page,
    private readonly egress: EgressPolicy,
  ) {
    this.current = this.adopt(first, false);
    this.targets = pageTargetsOf(first);
    for (const page of context.pages()) if (page !== first) this.onPage(page);
    context.on('page', this.onPage);
    context.on('request', this.onRequest);
  }

  /** Stops following the context's new tabs and requests (stopWatchingTabs). */
  stop(): void {
    this.context.off('page', this.onPage);
    this.context.off('request', this.onRequest);
    this.switchListeners.length = 0;
  }

  /** The current tab's page (may have closed since: see currentPage). */
  get page(): Page {
    return this.current.page;
  }

  get currentId(): number {
    return this.current.id;
  }

  /** Called with the new current page whenever it changes (the worker keeps its state.page on it). */
  onSwitch(listener: (page: Page) => void): void {
    this.switchListeners.push(listener);
  }

  /**
   * The current page, open: when the current tab closed, the run is already on another one (see onClose); when
   * every tab closed, a blank tab is opened.
   */
  async currentPage(): Promise<Page> {
    if (!this.current.page.isClosed()) return this.current.page;
    const open = this.openTabs();
    if (open.length) {
      this.setCurrent(open[open.length - 1]!);
      return this.current.page;
    }
    const page = await openPage(this.context);
    const tab = this.tabs.find((t) => t.page === page) ?? this.adopt(page, false);
    this.note({ kind: 'reopened', id: tab.id });
    this.setCurrent(tab);
    return page;
  }

  /** The open tabs in the order they were opened, for the observation. */
  async list(): Promise<TabInfo[]> {
    return Promise.all(
      this.openTabs().map(async (t) => ({
        id: t.id,
        url: t.page.url(),
        title: await titleOf(t.page),
        current: t === this.current,
        fresh: t.fresh,
      })),
    );
  }

  /** The notes since the last call, and every tab stops being new. */
  takeNotes(): TabNote[] {
    const notes = this.notes;
    this.notes = [];
    for (const t of this.tabs) t.fresh = false;
    return notes;
  }

  /** Makes tab `id` the current one. */
  async switchTo(id: number): Promise<Page> {
    const tab = this.openTab(id);
    this.setCurrent(tab);
    await tab.page.bringToFront().catch(() => undefined);
    return tab.page;
  }

  /** Closes tab `id`; when it was the current one, the run moves to its opener (or the newest other tab). */
  async close(id: number): Promise<{ now: number }> {
    const tab = this.openTab(id);
    const others = this.openTabs().filter((t) => t !== tab);
    if (!others.length) throw new ToolError(`tab [${id}] is the only tab of this run; it stays open`);
    if (tab === this.current) this.setCurrent(this.fallbackFor(tab, others));
    this.forget(tab);
    await tab.page.close().catch(() => undefined);
    return { now: this.current.id };
  }

  /** Tab number and pattern of a tab (what a trajectory records of a tab step). */
  async patternOf(id: number, redact: (s: string) => string): Promise<TabPattern> {
    const tab = this.openTab(id);
    return { url: relativeUrl(redact(tab.page.url()), redact(this.current.page.url())), title: redact(await titleOf(tab.page)) };
  }

  /**
   * The one open tab a recorded pattern names: the same URL and title; else the same path and title; else the
   * same title; else the same path (a report's id in the query may differ between runs). Null when none or
   * several match at the first level that matches anything.
   */
  async find(pattern: TabPattern, redact: (s: string) => string): Promise<{ id: number } | { error: string }> {
    const base = redact(this.current.page.url());
    const seen = await Promise.all(
      this.openTabs().map(async (t) => ({ id: t.id, url: relativeUrl(redact(t.page.url()), base), title: redact(await titleOf(t.page)) })),
    );
    const path = (u: string) => u.split(/[?#]/)[0];
    const levels: ((s: (typeof seen)[number]) => boolean)[] = [
      (s) => s.url === pattern.url && s.title === pattern.title,
      (s) => path(s.url) === path(pattern.url) && s.title === pattern.title,
      (s) => pattern.title !== '' && s.title === pattern.title,
      (s) => path(s.url) === path(pattern.url),
    ];
    for (const test of levels) {
      const hits = seen.filter(test);
      if (hits.length === 1) return { id: hits[0]!.id };
      if (hits.length > 1) return { error: `${hits.length} open tabs match ${pattern.url} '${pattern.title}'` };
    }
    return { error: `no open tab shows ${pattern.url} '${pattern.title}'` };
  }

  /** What the observation shows: nothing while the run has one tab and nothing happened to its tabs (the usual case, at no cost). */
  async view(): Promise<{ tabs: TabInfo[]; notes: TabNote[] }> {
    await this.arrivals();
    if (this.notes.length === 0 && this.openTabs().length <= 1) return { tabs: [], notes: [] };
    const tabs = await this.list();
    return { tabs, notes: this.takeNotes() };
  }

  /** Waits (up to `ms`) for the one open tab a recorded pattern names, as a replay step needs it. */
  async waitFor(pattern: TabPattern, redact: (s: string) => string, ms: number): Promise<number> {
    const until = Date.now() + ms;
    for (;;) {
      const found = await this.find(pattern, redact);
      if ('id' in found) return found.id;
      if (Date.now() >= until) throw new ToolError(found.error);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * Waits, up to ARRIVAL_MAX_MS, until every page Chromium has opened in the context is one Playwright reported (and
   * so a tab of this list): a click that opened a tab is seen by the observation that follows it. Waits once per new
   * target: a target that never arrives (closed as it opened) costs one wait, not one per observation.
   */
  private async arrivals(): Promise<void> {
    const count = await this.targets;
    if (!count) return;
    const { created } = count();
    if (created === this.waited) return;
    const until = Date.now() + ARRIVAL_MAX_MS;
    while (count().open > this.context.pages().length && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    this.waited = created;
  }

  /** Stops watching the context (its pages close with it at the end of the run). */
  dispose(): void {
    this.context.off('page', this.onPage);
    this.context.off('request', this.onRequest);
  }

  private openTabs(): Tab[] {
    return this.tabs.filter((t) => !t.page.isClosed());
  }

  private openTab(id: number): Tab {
    const tab = this.openTabs().find((t) => t.id === id);
    if (!tab) {
      const ids = this.openTabs()
        .map((t) => `[${t.id}]`)
        .join(', ');
      throw new ToolError(`there is no open tab [${id}] (it closed, or never existed); the open tabs are ${ids || 'none'}`);
    }
    return tab;
  }

  private adopt(page: Page, fresh: boolean): Tab {
    const tab: Tab = { id: this.nextId++, page, opener: null, fresh };
    this.tabs.push(tab);
    void page
      .opener()
      .then((o) => {
        tab.opener = this.tabs.find((t) => t.page === o)?.id ?? null;
      })
      .catch(() => undefined);
    page.once('close', () => this.onClose(tab));
    // A background tab that later lands outside the provider (a script sends it elsewhere) is closed too.
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame() && tab !== this.current && this.landedOutside(frame.url())) this.refuse(tab, frame.url());
    });
    return tab;
  }

  private readonly onPage = (page: Page): void => {
    if (this.tabs.some((t) => t.page === page)) return;
    if (this.openTabs().length >= MAX_TABS) {
      this.note({ kind: 'limit' });
      void page.close().catch(() => undefined);
      return;
    }
    const tab = this.adopt(page, true);
    if (this.landedOutside(page.url())) this.refuse(tab, page.url());
    else this.note({ kind: 'opened', id: tab.id });
  };

  /** A popup's first request is made before its page exists (its frame() throws): remembered to name the host it was refused. */
  private readonly onRequest = (request: Request): void => {
    if (!request.isNavigationRequest()) return;
    try {
      request.frame();
      return;
    } catch {
      // a new tab's first navigation
    }
    if (this.egress.checkUrl(request.url(), { pageLocal: true }).ok) return;
    let host: string;
    try {
      host = new URL(request.url()).host;
    } catch {
      return;
    }
    this.refusedRequests.push({ host, at: Date.now() });
    if (this.refusedRequests.length > MAX_NOTES) this.refusedRequests.shift();
  };

  private landedOutside(url: string): boolean {
    if (isErrorPage(url)) return true;
    return !this.egress.checkUrl(url, { pageLocal: true }).ok;
  }

  private refuse(tab: Tab, url: string): void {
    let host: string | null = null;
    if (!isErrorPage(url)) {
      try {
        host = new URL(url).host;
      } catch {
        host = null;
      }
    } else {
      const recent = this.refusedRequests.filter((r) => Date.now() - r.at < REFUSAL_WINDOW_MS).pop();
      if (recent) {
        host = recent.host;
        this.refusedRequests.splice(this.refusedRequests.indexOf(recent), 1);
      }
    }
    this.notes = this.notes.filter((n) => !(n.kind === 'opened' && n.id === tab.id));
    this.note({ kind: 'refused', host });
    this.forget(tab);
    void tab.page.close().catch(() => undefined);
  }

  private onClose(tab: Tab): void {
    if (!this.tabs.includes(tab)) return; // closed by us: already accounted for
    this.forget(tab);
    let now: number | undefined;
    const open = this.openTabs();
    if (tab === this.current && open.length) {
      this.setCurrent(this.fallbackFor(tab, open));
      now = this.current.id;
    }
    this.note({ kind: 'closed', id: tab.id, ...(now === undefined ? {} : { now }) });
  }

  private forget(tab: Tab): void {
    const i = this.tabs.indexOf(tab);
    if (i >= 0) this.tabs.splice(i, 1);
  }

  private fallbackFor(tab: Tab, open: Tab[]): Tab {
    return open.find((t) => t.id === tab.opener) ?? open[open.length - 1]!;
  }

  private setCurrent(tab: Tab): void {
    if (tab === this.current) return;
    this.current = tab;
    for (const listener of this.switchListeners) listener(tab.page);
  }

  private note(n: TabNote): void {
    // The same event twice (a page opening a burst of popups) is said once.
    if (this.notes.length < MAX_NOTES && !this.notes.some((x) => JSON.stringify(x) === JSON.stringify(n))) this.notes.push(n);
  }
}

const trackers = new WeakMap<BrowserContext, RunTabs>();

/**
 * The tab tracker of a page's browser context, started on first use with `page` as tab [1]: the worker starts it
 * when it opens the run's page, and the planner, the replay and the tools find the same one.
 */
export function watchTabs(page: Page, egress: EgressPolicy): RunTabs {
  const context = page.context();
  let tabs = trackers.get(context);
  if (!tabs) {
    tabs = new RunTabs(context, page, egress);
    trackers.set(context, tabs);
  }
  return tabs;
}

/**
 * Ends the run's tab tracker of `context` (the run is over, its pages closed): a context kept warm for the next run
 * (warm-contexts.ts) starts that run's tracker afresh, its page as tab [1], with none of this run's listeners.
 */
export function stopWatchingTabs(context: BrowserContext): void {
  const tabs = trackers.get(context);
  if (!tabs) return;
  trackers.delete(context);
  tabs.stop();
}
