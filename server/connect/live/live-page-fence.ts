import type { BrowserContext, Frame, Page } from 'playwright-core';

import type { EgressPolicy } from '../../egress/egress-policy';
import type { LiveStatusCode } from './live-protocol';

/** How often a page refused elsewhere is taken back, at most (a provider that is down must not make this loop). */
const MAX_BACKS_PER_MINUTE = 3;

/**
 * What a live view's page may do while the person drives it: windows other than the page are closed, and a top-level
 * navigation outside the policy's origins (the egress proxy refused it; the browser shows its network error page) is
 * reported and taken back to the last allowed page. While `paused()` (a run's own page, the run at work) both are left
 * to the run: its tabs are its business (server/agent/tabs/), and its egress proxy refuses the rest.
 */
export class LivePageFence {
  private lastGoodUrl: string;
  private lastBlockedHost: string | null = null;
  private backs: number[] = [];
  private readonly off: () => void;

  constructor(
    context: BrowserContext,
    private readonly page: Page,
    private readonly policy: EgressPolicy,
    private readonly notify: (code: LiveStatusCode, message: string, host?: string | null) => void,
    private readonly paused: () => boolean,
  ) {
    this.lastGoodUrl = page.url();
    const onPopup = (popup: Page) => {
      if (popup === this.page || this.paused()) return;
      void popup.close().catch(() => undefined);
      this.notify('POPUP_BLOCKED', 'The page tried to open another window; it was closed.');
    };
    const onNavigated = (frame: Frame) => {
      if (frame === this.page.mainFrame() && !this.paused()) this.navigated(frame.url());
    };
    context.on('page', onPopup);
    page.on('framenavigated', onNavigated);
    this.off = () => {
      context.off('page', onPopup);
      page.off('framenavigated', onNavigated);
    };
  }

  /** The page is where the view begins (after its start address loaded): the page to come back to. */
  settled(): void {
    if (this.policy.checkUrl(this.page.url()).ok) this.lastGoodUrl = this.page.url();
  }

  /** The egress proxy's report of a refused connection: the host the next refused navigation names. */
  blocked(url: string): void {
    this.lastBlockedHost = hostOf(url) ?? url.replace(/:\d+$/, '');
  }

  /** Undoes the listeners (a borrowed page lives on after the view). */
  stop(): void {
    this.off();
  }

  private navigated(url: string): void {
    if (this.policy.checkUrl(url).ok) {
      this.lastGoodUrl = url;
      return;
    }
    if (url === 'about:blank') return;
    const host = this.lastBlockedHost ?? hostOf(url);
    this.notify('NAVIGATION_BLOCKED', `The page tried to go to ${host ?? 'another site'}, which is not allowed here.`, host);
    const now = Date.now();
    this.backs = this.backs.filter((t) => now - t < 60_000);
    if (this.backs.length >= MAX_BACKS_PER_MINUTE) return;
    this.backs.push(now);
    const back = this.lastGoodUrl;
    setTimeout(() => void this.page.goto(back, { waitUntil: 'domcontentloaded' }).catch(() => undefined), 0);
  }
}

function hostOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : null;
  } catch {
    return null;
  }
}
