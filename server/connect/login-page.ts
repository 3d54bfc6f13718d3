import type { Locator, Page } from 'playwright-core';

import { evaluateIsolated } from '../browser/isolated-world';
import { waitForReady } from '../browser/page-ready';
import { EgressPolicy } from '../egress/egress-policy';
import type { ProviderDefinition } from '../providers/catalogue';
import type { PageSignal, Target } from '../providers/login-recipe';

/** How the login engine (login-engine.ts) reads a sign-in page: its recipe's targets and signals, where it is, its errors. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function locate(page: Page, target: Target): Locator {
  if ('label' in target) return page.getByLabel(target.label, { exact: typeof target.label === 'string' }).first();
  if ('role' in target) return page.getByRole(target.role, { name: target.name, exact: typeof target.name === 'string' }).first();
  if ('placeholder' in target) return page.getByPlaceholder(target.placeholder, { exact: true }).first();
  return page.locator(target.css).first();
}

/** The provider's own environment decides: a production provider is never reached on a local address. */
export function onAllowedHost(page: Page, provider: ProviderDefinition): boolean {
  return EgressPolicy.forSignIn(provider, provider.environment).checkUrl(page.url()).ok;
}

async function visible(locator: Locator): Promise<boolean> {
  try {
    return await locator.isVisible();
  } catch {
    return false; // the document changed while we looked
  }
}

async function matches(page: Page, signal: PageSignal): Promise<boolean> {
  let path: string;
  try {
    path = new URL(page.url()).pathname;
  } catch {
    return false;
  }
  if (signal.path && !signal.path.test(path)) return false;
  if (signal.pathNot && signal.pathNot.test(path)) return false;
  if (signal.cookie) {
    const cookies = await page.context().cookies(page.url());
    if (!cookies.some((c) => c.name === signal.cookie)) return false;
  }
  if (signal.heading && !(await visible(page.getByRole('heading', { name: signal.heading }).first()))) return false;
  if (signal.alert && !(await visible(page.getByRole('alert').filter({ hasText: signal.alert }).first()))) return false;
  if (signal.visible && !(await visible(locate(page, signal.visible)))) return false;
  return true;
}

export async function anyMatch(page: Page, signals: PageSignal[]): Promise<boolean> {
  for (const s of signals) if (await matches(page, s)) return true;
  return false;
}

/** Waits until the page runs a new document (one that began after `began`), up to `maxMs`; then until it is parsed. */
export async function waitForNewDocument(page: Page, began: number | null, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    try {
      const current = await evaluateIsolated(page, () => performance.timeOrigin, undefined);
      if (current !== began) break;
    } catch {
      // The old document went away mid-evaluation: a navigation is under way.
    }
    await sleep(50);
  }
  await page.waitForLoadState('domcontentloaded').catch(() => undefined);
}

export function errorName(err: unknown): string {
  if (err instanceof Error) return err.name === 'Error' ? 'error' : err.name;
  return 'error';
}

/**
 * How long a page the recipe does not recognise must have stood settled before it counts as a step the recipe does not
 * know. Settled is page-ready.ts's ready (loaded, no request open, DOM and address unchanged, content shown) over a half
 * second window. 5 s covers an interstitial that moves on by a timer ("signing you in…"); waiting out the whole step
 * budget (20 s) for a page that stopped changing only kept the person from their live view that much longer.
 */
export const SETTLED_UNKNOWN_MS = 5_000;
const SETTLED_QUIET_MS = 500;

/**
 * Watches, beside the looks for the recipe's signals, whether the page has stood settled for `settledMs`: a
 * look that finds it changing starts the count again. In the background, so the looks keep their pace; `stop()` ends it.
 */
export function watchSettled(page: Page, settledMs = SETTLED_UNKNOWN_MS): { settled(): boolean; stop(): void } {
  let since: number | null = null;
  let stopped = false;
  void (async () => {
    while (!stopped && !page.isClosed()) {
      const { ready } = await waitForReady(page, { quietMs: SETTLED_QUIET_MS, budgetMs: SETTLED_QUIET_MS + 300 }).catch(() => ({
        ready: false,
      }));
      since = ready ? (since ?? Date.now()) : null;
      // A look that failed at once (a document going away) is not repeated at once: no busy loop on a dying page.
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    settled: () => since !== null && Date.now() - since >= settledMs,
    stop: () => {
      stopped = true;
    },
  };
}
