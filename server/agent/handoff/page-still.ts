import type { CDPSession, Page } from 'playwright-core';

import { within } from '../../browser/page-quiet';
import { releasePageSession } from '../../browser/webauthn-environment';

/**
 * A picture of a paused run's page, taken as the run pauses, so the person's view opens on it at once. A write held at
 * the network is often a navigation (a form post), and while it is pending the page answers no DevTools command that
 * reaches its renderer (a screencast cannot start); Page.captureScreenshot is answered by the browser process itself,
 * so it still works then (measured: about 90 ms, a session opened mid-navigation too). One still per pause, instead of
 * a screencast kept running while the run works: a screencast makes Chromium capture every repaint, and a page that
 * animates (a spinner while its write is held) cost 1.9 CPU-seconds per second that way, against 0.08 without it.
 */
const QUALITY = 60;
/** The most the still is waited for (a page closing answers nothing). */
const STILL_MS = 1_500;

export async function pageStill(page: Page | undefined): Promise<Buffer | null> {
  if (!page || page.isClosed()) return null;
  const opening = page.context().newCDPSession(page);
  let cdp: CDPSession | null = null;
  try {
    cdp = await within(opening, STILL_MS, null);
    if (!cdp) return null;
    const shot = await within(
      cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: QUALITY }) as Promise<{ data: string }>,
      STILL_MS,
      null,
    );
    return shot ? Buffer.from(shot.data, 'base64') : null;
  } catch {
    return null; // the page closed with its run
  } finally {
    // Released, never detached: a detach would take the page's WebAuthn environment with it (webauthn-environment.ts).
    if (cdp) void releasePageSession(cdp);
    else void opening.then(releasePageSession, () => undefined);
  }
}
