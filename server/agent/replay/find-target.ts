import type { Page } from 'playwright-core';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { type ObservedElement, observeWith, type PageSnapshot, type Redactor, SECRET_MASK, TOKEN_MASK } from '../observation';
import type { Found } from './find-targets.page';
import type { ElementDescriptor } from './trajectory';

/**
 * Finding a replay step's element again without a full snapshot. The page lists, by the snapshot's own rules,
 * the elements that have the step's role (find-targets.page.ts); here their names are redacted as the snapshot's are,
 * and those whose role, name and scope are the descriptor's make a partial snapshot that the step's tool acts on
 * (the element keeps the index the page gave it, held by reference as a snapshot's are; its twins are all there, so
 * positions count alike).
 *
 * Null means "take the full snapshot": the page has what only the snapshot reads (frames, shadow roots), or the
 * script failed. The narrow view lists no more than the snapshot would, so a match it finds the snapshot finds too.
 */
/** Past this many elements of one role the full snapshot is as cheap, and bounded. */
const MAX_CANDIDATES = 500;

const NAVIGATED = /Execution context was destroyed|Cannot find context|navigat|frame was detached/i;

function redacted(e: ObservedElement, r: Redactor): ObservedElement {
  return {
    ...e,
    name: r.text(e.name),
    scope: e.scope === null ? null : r.text(e.scope),
    ...(e.value !== undefined ? { value: r.text(e.value) } : {}),
    ...(e.options ? { options: e.options.map((o) => r.text(o)) } : {}),
  };
}

/**
 * Whether a recorded name can only be read off the page as itself: redaction leaves a mark wherever it changes a
 * string (a mask, a placeholder, a broken-up "{{"), so a name without any is the raw name, and the page may
 * compare names before anything is redacted.
 */
function rawNameOf(name: string): string | null {
  return [SECRET_MASK, TOKEN_MASK, '{{', '{ {'].some((mark) => name.includes(mark)) ? null : name;
}

/** `redactor` may still be coming (the page is searched meanwhile): it is only needed for the names found. */
export async function findTargets(
  page: Page,
  d: ElementDescriptor,
  redactorOrPromise: Redactor | Promise<Redactor>,
): Promise<PageSnapshot | null> {
  const args = { role: d.role, name: rawNameOf(d.name), max: MAX_CANDIDATES };
  let found: Found | null = null;
  // A navigation may replace the document mid-call: look again at the new one (twice at most), else let the snapshot decide.
  for (let attempt = 0; attempt < 3 && !found; attempt++) {
    try {
      found = await observeWith<Found>(page, PAGE_ENTRIES.findTargets, [args]);
    } catch (err) {
      if (page.isClosed() || !NAVIGATED.test(String((err as Error)?.message ?? err))) return null;
      await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined);
    }
  }
  if (!found || 'fallback' in found) return null;
  const redactor = await redactorOrPromise;
  const elements = found.elements
    .map((e) => redacted(e, redactor))
    .filter((e) => e.role === d.role && e.name === d.name && (e.scope ?? null) === (d.scope ?? null));
  return {
    url: redactor.text(found.url),
    title: redactor.text(found.title),
    modal: found.modal,
    elements,
    lines: [],
    truncated: { elements: 0, text: false },
  };
}
