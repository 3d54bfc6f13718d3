import type { Page } from 'playwright-core';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageFunctions } from '../../page-code/page-function';
import { elementLocator, evaluateHandleOnElement, type HeldValue, type ObservedElement } from '../observation';
import type directClickInPage from './direct-click.page';

/**
 * The click tool's fast path, for the common case: an element of the top document on a page that is standing still.
 *
 * Playwright's click proves an element actionable before it clicks (attached, visible, enabled, stable over two
 * animation frames, not covered) and guards the click itself; on a still page those proofs cost about 50 ms a
 * click (its injected script is built anew in every document, and stability waits frames), which is most of what
 * a replayed step costs beyond the page's own loading. Here the same proofs are one evaluate in the page, and the
 * click is the same trusted CDP mouse input Playwright sends (page.mouse), guarded the way Playwright guards it:
 * when the first button event of the click reaches anything but the element (a dialog slid over it meanwhile),
 * that event and the rest of the click are cancelled at the window, before the document and its elements see them.
 *
 * Whatever this cannot prove — the element is in a frame or a shadow root, off screen, disabled, hidden,
 * moving, covered, not unique, or the page does not answer quickly — is `unproven`, and nothing was clicked: the
 * caller then does Playwright's click, which waits, scrolls, retries and reports what is wrong.
 */
export type DirectClick = 'clicked' | 'unproven';

/** How long the page has to answer the check; a page whose main thread is busy longer gets Playwright's waiting click. */
const CHECK_MS = 400;
/** The guard removes itself after this long even if the click's last event never came. */
const GUARD_MS = 2_000;

/** In the page (direct-click.page.ts): the check that resolves the click point and sets the guard; the guard's answer. */
const {
  checkAndGuard: CHECK_AND_GUARD,
  pointOf: POINT_OF,
  intercepted: INTERCEPTED,
} = pageFunctions<typeof directClickInPage>(PAGE_ENTRIES.directClick);

/** Clicks `el` through the fast path when its actionability can be proven at once; `unproven` means nothing was clicked. */
export async function clickDirectly(page: Page, el: ObservedElement, opts: { checkMs?: number } = {}): Promise<DirectClick> {
  if (el.frame?.length || el.section) return 'unproven';
  // The tests give the check longer: what they prove is its reasons, not this machine's speed under load.
  const checkMs = opts.checkMs ?? CHECK_MS;
  const args = { notAfter: Date.now() + checkMs, guardMs: GUARD_MS };
  let timer: NodeJS.Timeout | undefined;
  // The check runs on the element through the observation's reference, in Playwright's utility world (element-calls.ts),
  // and the guard is held there by reference: neither is ever on the page, whose scripts see no call of ours and no
  // listener of their world.
  const checking = elementLocator(page, el)
    .then((loc) => evaluateHandleOnElement(loc, CHECK_AND_GUARD, args, { timeout: checkMs }))
    .catch(() => null);
  const guard = await Promise.race([
    checking,
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), checkMs + 100))),
  ]).finally(() => clearTimeout(timer));
  // A guard left behind would judge the next click by this element: it is taken down whatever happens.
  const takeDown = (g: HeldValue | null) => void g?.evaluate(String(INTERCEPTED)).catch(() => undefined);
  if (!guard) {
    void checking.then(takeDown); // a check that answered too late may have set its guard after all
    return 'unproven';
  }
  const point = await guard.evaluate<{ x: number; y: number } | null>(String(POINT_OF)).catch(() => null);
  if (!point) {
    takeDown(guard);
    return 'unproven';
  }
  try {
    await page.mouse.click(point.x, point.y);
  } catch (err) {
    takeDown(guard);
    throw err;
  }
  // The guard says whether the click was cancelled. A document already replaced has no guard to ask: the click
  // started that navigation, since a cancelled click does nothing.
  const intercepted = await guard.evaluate<string | null>(String(INTERCEPTED)).catch(() => null);
  void guard.dispose().catch(() => undefined);
  return intercepted ? 'unproven' : 'clicked';
}
