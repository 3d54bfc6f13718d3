import type { Page } from 'playwright-core';

import type { ProviderDefinition } from '../../providers/provider';
import { isProviderLoginPage } from '../../providers/provider';
import { anyMatch } from '../login-engine';

/**
 * Has the person finished signing in on the live page? The provider's `signedIn` declaration decides (every part
 * given must hold); without one, its recipe's success signals; without either, a page of the provider's own (not an
 * identity provider's) that is not its sign-in page, with at least one cookie of the provider's host.
 */
export async function isSignedIn(page: Page, provider: ProviderDefinition): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(page.url());
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const signal = provider.signedIn;
  if (signal && (signal.cookies?.length || signal.urlPattern || signal.element)) {
    if (signal.urlPattern && !safeRegExp(signal.urlPattern)?.test(url.href)) return false;
    if (signal.cookies?.length) {
      const names = new Set((await page.context().cookies()).map((c) => c.name));
      if (!signal.cookies.every((n) => names.has(n))) return false;
    }
    if (signal.element) {
      try {
        if ((await page.locator(signal.element).count()) === 0) return false;
      } catch {
        return false; // an invalid selector, or the document changed while we looked
      }
    }
    return true;
  }
  if (provider.login) return anyMatch(page, provider.login.success);
  const ownHost = provider.allowedOrigins.some((d) => {
    const host = d.includes('://') ? new URL(d).hostname : d;
    return host.startsWith('*.') ? url.hostname.endsWith(host.slice(1)) : url.hostname === host;
  });
  if (!ownHost || isProviderLoginPage(provider, url)) return false;
  return (await page.context().cookies(url.href)).length > 0;
}

function safeRegExp(source: string): RegExp | null {
  try {
    return new RegExp(source);
  } catch {
    return null;
  }
}
