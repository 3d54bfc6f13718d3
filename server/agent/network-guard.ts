import dns from 'node:dns';
import net from 'node:net';

import type { BrowserContext, Frame } from 'playwright-core';

import type { Environment } from '../config';
import { hostMatchesDomain, isPrivateOrLocalHost } from '../domain/starting-url.policy';
import type { ProviderDefinition } from '../providers/catalogue';

/**
 * Keeps an agent's browser context on the provider: every request (navigations, scripts, images, XHR …)
 * must go to one of the provider's allowed domains on the provider's port; data:, blob: and about: stay
 * inside the page. In production, private and loopback addresses are refused always, including host names
 * that resolve to one. Blocked requests are aborted and reported, so the trace shows them.
 */
export interface BlockedRequest {
  url: string;
  resourceType: string;
  /** A navigation of the top frame (the run tried to leave the provider), not a sub-resource. */
  mainFrameNavigation: boolean;
  reason: string;
}

export type RequestVerdict = { ok: true } | { ok: false; reason: string };

const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:']);

export function checkRequestUrl(
  raw: string,
  provider: Pick<ProviderDefinition, 'allowedDomains' | 'homeUrl'>,
  environment: Environment,
): RequestVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (LOCAL_SCHEMES.has(url.protocol)) return { ok: true };
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) return { ok: false, reason: `${url.protocol} URLs are not allowed` };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (environment === 'production' && isPrivateOrLocalHost(host)) return { ok: false, reason: 'private or loopback address' };
  if (!provider.allowedDomains.some((d) => hostMatchesDomain(host, d))) return { ok: false, reason: `${host} is not an allowed domain` };
  const homePort = new URL(provider.homeUrl).port;
  if (url.port && url.port !== homePort) return { ok: false, reason: `port ${url.port} is not the provider's` };
  return { ok: true };
}

/** Production only: host names are resolved once per context, and refused when any address is private. */
async function resolvesToPrivate(host: string, cache: Map<string, Promise<boolean>>): Promise<boolean> {
  if (net.isIP(host)) return isPrivateOrLocalHost(host);
  let pending = cache.get(host);
  if (!pending) {
    pending = dns.promises
      .lookup(host, { all: true })
      .then((addrs) => addrs.some((a) => isPrivateOrLocalHost(a.address)))
      .catch(() => false); // unresolvable: the browser's own lookup fails too
    cache.set(host, pending);
  }
  return pending;
}

export async function installNetworkGuard(
  context: BrowserContext,
  opts: {
    provider: ProviderDefinition;
    environment: Environment;
    mainFrame: () => Frame | undefined;
    onBlocked: (b: BlockedRequest) => void;
  },
): Promise<void> {
  const dnsCache = new Map<string, Promise<boolean>>();
  await context.route('**/*', async (route) => {
    const request = route.request();
    const url = request.url();
    let verdict = checkRequestUrl(url, opts.provider, opts.environment);
    if (verdict.ok && opts.environment === 'production') {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      if (await resolvesToPrivate(host, dnsCache)) verdict = { ok: false, reason: 'resolves to a private or loopback address' };
    }
    if (verdict.ok) {
      await route.fallback().catch(() => undefined);
      return;
    }
    let mainFrameNavigation = false;
    try {
      mainFrameNavigation = request.isNavigationRequest() && request.frame() === opts.mainFrame();
    } catch {
      // a request of a service worker or a closed frame
    }
    opts.onBlocked({ url, resourceType: request.resourceType(), mainFrameNavigation, reason: verdict.reason });
    await route.abort('blockedbyclient').catch(() => undefined);
  });
}
