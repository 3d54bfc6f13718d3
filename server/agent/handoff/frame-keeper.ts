import type { CDPSession, Page } from 'playwright-core';

import { releasePageSession } from '../../browser/webauthn-environment';

/**
 * The latest picture of a run's page, kept while the run works, for runs whose writes wait for approval. A write held
 * at the network is often a navigation (a form post), and while a navigation is pending Chromium answers no DevTools
 * command for that page: a view opened then could not start its screencast, nor take a screenshot. A screencast started
 * before keeps its last frame: the page as it was when the write left it, which is what the person approves.
 * Frames come only when the page repaints; each is acknowledged at once (a slow consumer never queues frames here).
 */
const QUALITY = 60;

export class FrameKeeper {
  private page: Page | null = null;
  private cdp: CDPSession | null = null;
  private last: Buffer | null = null;
  private stopped = false;

  constructor(private readonly current: () => Page | undefined) {}

  /** The latest frame of the run's current page (follows the run to another tab on the next call). */
  frame(): Buffer | null {
    const page = this.current();
    if (page && page !== this.page && !this.stopped) void this.follow(page);
    return this.last;
  }

  async follow(page: Page): Promise<void> {
    if (this.stopped || page === this.page) return;
    this.page = page;
    // Released, never detached: a detach would take the page's WebAuthn environment with it (webauthn-environment.ts).
    if (this.cdp) await releasePageSession(this.cdp);
    this.cdp = null;
    try {
      const cdp = await page.context().newCDPSession(page);
      if (this.page !== page || this.stopped) return void (await releasePageSession(cdp));
      this.cdp = cdp;
      cdp.on('Page.screencastFrame', (f: { data: string; sessionId: number }) => {
        if (this.cdp !== cdp) return; // a frame of a session let go of
        this.last = Buffer.from(f.data, 'base64');
        void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => undefined);
      });
      const size = page.viewportSize();
      await cdp.send('Page.startScreencast', {
        format: 'jpeg',
        quality: QUALITY,
        ...(size ? { maxWidth: size.width, maxHeight: size.height } : {}),
      });
    } catch {
      // the page closed, or is mid-navigation: the next frame() call tries again
      if (this.page === page) this.page = null;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.cdp) await releasePageSession(this.cdp);
    this.cdp = null;
  }
}
