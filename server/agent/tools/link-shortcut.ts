import type { Request } from 'playwright-core';

import { type ObservedElement, withRefs } from '../observation';
import { templateOf } from '../planner/placeholders';
import { act, observed, timeout, type ToolContext, type ToolOutcome } from './page-tool';

/**
 * A link click replayed as the navigation it made. A planner's click on a same-origin link that took the tab to the
 * link's href (its server's redirects allowed) is recorded with that href (path and query, string parameter values as their placeholders); a replay
 * finds the link again as every step does and, when the live link still carries the same href, opens it with a
 * `goto` instead of clicking and waiting for the click's navigation to settle — what a hand-written script does.
 *
 * Anything else is an ordinary click: a link in a frame, to a new tab or a download, to this very page (a fragment
 * or `#`, handled by the page's scripts), to another origin, a click whose navigation did not start at the href or
 * that a script followed with another (or routed in the page with no navigation at all), a live href that differs, a URL the run's egress policy refuses, an href the redactor would change.
 */

/** The href of refs.el[index] when it is a link that opens in this tab, else null (in the page). */
const HREF = `function (r, index) {
  var link = r.el[index];
  if (!link || !link.isConnected || link.tagName !== 'A' || typeof link.href !== 'string') return null;
  if ((link.target && link.target !== '_self') || link.hasAttribute('download')) return null;
  return link.href;
}`;

/** The link's href when following it is a plain same-origin navigation of this tab, else null. */
async function plainHref(tc: ToolContext, el: ObservedElement): Promise<URL | null> {
  if (el.role !== 'link' || el.tag !== 'a' || el.frame?.length) return null;
  // One call on the listed element of the top document, through the observation's reference (a locator's evaluate
  // costs several round trips).
  const raw = await withRefs<string>(tc.page, {}, HREF, el.index);
  if (!raw) return null;
  let url: URL;
  let here: URL;
  try {
    url = new URL(raw);
    here = new URL(tc.page.url());
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== here.origin) return null;
  if (url.pathname === here.pathname && url.search === here.search) return null;
  return url;
}

/** How an href is stored and compared: path and query, parameter values as placeholders; null when the redactor would change it. */
function storedForm(url: URL, tc: ToolContext): string | null {
  const path = url.pathname + url.search;
  if (tc.redactor.text(path) !== path) return null;
  return templateOf(path, tc.slots);
}

/** A click on a link being watched: the link's href, and the main frame's navigation requests the click made. */
export interface LinkClick {
  href: URL;
  navigations: Request[];
  stop(): void;
}

/** Before a click: the link's href, and a watch on the navigations the click makes (null: not a plain link). */
export async function linkBeforeClick(tc: ToolContext, el: ObservedElement): Promise<LinkClick | null> {
  const href = await plainHref(tc, el).catch(() => null);
  if (!href) return null;
  const page = tc.page;
  const navigations: Request[] = [];
  const onRequest = (r: Request) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) navigations.push(r);
  };
  page.on('request', onRequest);
  return { href, navigations, stop: () => page.off('request', onRequest) };
}

/**
 * After the click settled: `{ href }` when the click was the navigation to the link's href — the tab's one navigation
 * started at the href (its server's redirects are part of it, as they would be of a goto) — else `{}`.
 */
export function linkRecord(tc: ToolContext, click: LinkClick | null): Record<string, unknown> {
  if (!click) return {};
  click.stop();
  const [first, ...rest] = click.navigations;
  if (!first || rest.some((r) => r.redirectedFrom() === null) || tc.page.isClosed()) return {};
  const started = new URL(first.url());
  const { href } = click;
  if (started.origin !== href.origin || started.pathname !== href.pathname || started.search !== href.search) return {};
  const stored = storedForm(href, tc);
  return stored ? { href: stored } : {};
}

/** On replay: opens the recorded href when the live link still carries it (null: click as usual). */
export async function followRecordedLink(recorded: Record<string, unknown>, tc: ToolContext, index: number): Promise<ToolOutcome | null> {
  if (typeof recorded.href !== 'string') return null;
  const el = observed(tc, index);
  const live = await plainHref(tc, el);
  if (!live || storedForm(live, tc) !== recorded.href || !tc.egress.checkUrl(live).ok) return null;
  await act('navigation', () => tc.page.goto(live.toString(), { waitUntil: 'domcontentloaded', timeout: timeout(tc) }));
  return { message: `opened ${tc.redactor.text(live.pathname + live.search)}`, target: el, record: { href: recorded.href } };
}
