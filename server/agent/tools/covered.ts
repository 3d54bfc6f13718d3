import type { Locator } from 'playwright-core';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageBundle } from '../../page-code/page-bundle';
import { describeElement, type ElementRef, quote, withRefs } from '../observation';
import { remaining } from '../result/errors';
import type coverOfInPage from './covered.page';
import type { ToolContext } from './page-tool';

/**
 * A click that something covers (an open menu over the button, a cookie banner, a dialog) says what covers it and
 * what to try, instead of Playwright's bare "Timeout 8000ms exceeded" after eight seconds of retries:
 *   - before the waiting click, a trial click (Playwright's actionability checks, nothing is clicked) with a short
 *     timeout: when it fails because "<…> intercepts pointer events", the page is asked what covers the target's
 *     centre (covered.page.ts: the menu, dialog or floating box, by role and name) and the click fails at once
 *     with that and the way out (Escape closes a menu; a dialog is finished or closed);
 *   - the waiting click's own failure is explained the same way when it was an interception.
 */
const COVER_OF = () =>
  `function (r, a) { var el = r[a.k][a.n]; return el && el.isConnected ? (${pageBundle(PAGE_ENTRIES.coverOf)})(el, undefined, r) : null; }`;

/** How long the trial waits for a covered target to be uncovered (an animation ending) before it is explained. */
const TRIAL_MS = 1_500;

const INTERCEPTS = /(<[^\n]*?>)(?: from <[^\n]*?> subtree)? intercepts pointer events/;

/** The element Playwright's call log says intercepted the pointer, or null. */
export function interceptorIn(err: unknown): string | null {
  const m = INTERCEPTS.exec(String((err as Error)?.message ?? err));
  return m ? m[1]!.replace(/…/g, '...').slice(0, 120) : null;
}

const ADVICE = {
  menu: 'press Escape or close it, then click again',
  dialog: 'finish or close that dialog first (its close button, or Escape), then click again',
  other: 'close or dismiss it (its close or accept button, or Escape), or scroll it out of the way, then click again',
};

/**
 * Why a click on `at` cannot land, in words for the model, or null when nothing covers it (now). Asked with the
 * observation's references (what covers it may be an element it listed).
 */
export async function explainCover(tc: ToolContext, at: ElementRef, err: unknown): Promise<string | null> {
  const args = at.section ? { k: 'sec', n: at.section } : { k: 'el', n: at.index };
  const cover = await withRefs<ReturnType<typeof coverOfInPage>>(tc.page, at, COVER_OF(), args, Math.min(2_000, remaining(tc.run, 2_000)));
  const logged = interceptorIn(err);
  if (!cover && !logged) return null;
  let what: string;
  if (cover) {
    const listed = cover.index === null ? undefined : tc.snapshot.elements.find((e) => e.index === cover.index);
    // what the observation already said of it, else its role and (redacted) name, one line
    what = listed
      ? `[${listed.index}] ${describeElement(listed)}`
      : `${cover.role.replace(/[^\w-]/g, '_')}${cover.name ? ` ${quote(tc.redactor.text(cover.name))}` : ''}`;
  } else what = `the element ${quote(tc.redactor.text(logged!)).slice(1, -1)}`;
  return `the click was intercepted by ${what} covering the target; ${ADVICE[cover?.kind ?? 'other']}`;
}

/**
 * The trial: resolves when the target is actionable (or the trial failed for another reason: the waiting click
 * then has its say), or returns the explanation when something covers it.
 */
export async function coveredBeforeClick(tc: ToolContext, at: ElementRef, loc: Locator): Promise<string | null> {
  try {
    await loc.click({ trial: true, timeout: Math.min(TRIAL_MS, remaining(tc.run, TRIAL_MS)) });
    return null;
  } catch (err) {
    return interceptorIn(err) ? explainCover(tc, at, err) : null;
  }
}
