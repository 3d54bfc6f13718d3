import type { Page } from 'playwright-core';

/**
 * Empties the HTTP cache of `page`'s browser context (DevTools Network.clearBrowserCache, scoped to that context's
 * storage). A run's context caches as any browser does (nothing routes its requests, which would turn the cache off):
 * within a run a page reads what a person's browser would. A context kept warm for the next run must not hand that run
 * answers cached by the last one (a list read an hour ago), so it is emptied as the next run takes it.
 */
export async function clearHttpCache(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Network.clearBrowserCache');
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}
