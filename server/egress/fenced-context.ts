import type { BrowserContext, BrowserContextOptions } from 'playwright-core';

import type { EgressPolicy } from './egress-policy';
import { type ChangeGate, type ChangeSent, type EgressBlock, PROXY_BYPASS, startEgressProxy } from './egress-proxy';
import type { Resolver } from './resolve';

/** What opening a fenced context needs of the browser manager. */
export interface ContextSource {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /**
   * False for a browser this process did not launch (BROWSER_WS_ENDPOINT): it cannot be told to accept the proxy's
   * interception CA alone, so its fenced contexts skip the browser's own certificate check. Nothing is lost: every
   * connection of such a context ends at the proxy, which verifies the upstream certificate itself.
   */
  readonly trustsInterceptionCa?: boolean;
  /** Extra roots for upstream certificates (AGENTLINK_UPSTREAM_CA_FILE). */
  readonly upstreamCa?: readonly string[];
}

export interface FenceOptions {
  policy: EgressPolicy;
  onBlocked(block: EgressBlock): void;
  /** What the context may change (read mode); default: anything the policy lets through. */
  gate?: ChangeGate;
  /** Every request that may change something and every WebSocket message sent, in every realm. */
  onChangeSent?(change: ChangeSent): void;
  resolver?: Resolver;
  upstreamCa?: readonly string[];
  options?: BrowserContextOptions;
}

/**
 * A browser context whose every connection goes through its own egress proxy (closed with the context). The proxy
 * is where what leaves is decided, for every realm of the context; service workers are blocked anyway (they would
 * outlive the run's pages) and downloads refused; popups and new tabs are pages of the same context, so the same
 * proxy fences them.
 */
export async function openFencedContext(source: ContextSource, opts: FenceOptions): Promise<BrowserContext> {
  const proxy = await startEgressProxy({
    policy: opts.policy,
    onBlocked: opts.onBlocked,
    gate: opts.gate,
    onChangeSent: opts.onChangeSent,
    resolver: opts.resolver,
    upstreamCa: opts.upstreamCa ?? source.upstreamCa,
  });
  let context: BrowserContext;
  try {
    context = await source.newContext({
      ...opts.options,
      proxy: { server: proxy.server, bypass: PROXY_BYPASS },
      serviceWorkers: 'block',
      acceptDownloads: false,
      ...(source.trustsInterceptionCa === false ? { ignoreHTTPSErrors: true } : {}),
    });
  } catch (err) {
    await proxy.close();
    throw err;
  }
  context.once('close', () => void proxy.close());
  return context;
}
