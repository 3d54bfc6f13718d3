import type { BrowserContext, BrowserContextOptions } from 'playwright-core';

import type { EgressPolicy } from './egress-policy';
import { type EgressBlock, PROXY_BYPASS, startEgressProxy } from './egress-proxy';
import type { Resolver } from './resolve';

/** What opening a fenced context needs of the browser manager. */
export interface ContextSource {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
}

/**
 * A browser context whose every connection goes through its own egress proxy (closed with the context). Service
 * workers are blocked (they would run outside the page's routing) and downloads refused; popups and new tabs are
 * pages of the same context, so the same proxy fences them.
 */
export async function openFencedContext(
  source: ContextSource,
  opts: { policy: EgressPolicy; onBlocked(block: EgressBlock): void; resolver?: Resolver; options?: BrowserContextOptions },
): Promise<BrowserContext> {
  const proxy = await startEgressProxy({ policy: opts.policy, onBlocked: opts.onBlocked, resolver: opts.resolver });
  let context: BrowserContext;
  try {
    context = await source.newContext({
      ...opts.options,
      proxy: { server: proxy.server, bypass: PROXY_BYPASS },
      serviceWorkers: 'block',
      acceptDownloads: false,
    });
  } catch (err) {
    await proxy.close();
    throw err;
  }
  context.once('close', () => void proxy.close());
  return context;
}
