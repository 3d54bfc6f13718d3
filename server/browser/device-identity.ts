import type { BrowserContextOptions, Page } from 'playwright-core';

import type { ContextIdentity } from '../egress/fenced-context';
import { clientHintHeaders, userAgentMetadata } from './client-hints';
import { chooseDevice, deviceLanguages, type DeviceProfile, PLATFORM_FACTS, upgradedDevice } from './device-profile';

/**
 * Putting a connection's device on a browser context. Three layers, because no one of them reaches everything:
 * - the context options (user agent, locale, time zone, window): every page and worker of the context;
 * - per page, Chromium's own user-agent override (navigator.platform, navigator.userAgentData, the language list):
 *   what Playwright's options leave at the machine's values or at "HeadlessChrome";
 * - at the egress proxy, the identity headers of every request of every realm (User-Agent, Sec-CH-UA-*, the
 *   language list): a popup's first request or a worker's leave before any page-level override can reach them.
 */
export function deviceContextOptions(device: DeviceProfile): BrowserContextOptions {
  return {
    userAgent: device.userAgent,
    locale: device.locale,
    timezoneId: device.timezoneId,
    viewport: { ...device.viewport },
    screen: { ...device.screen },
    deviceScaleFactor: 1,
    isMobile: false,
    hasTouch: false,
  };
}

/** The device as the fenced context applies it (options, each page, each request): see openFencedContext. */
export function deviceIdentity(device: DeviceProfile): ContextIdentity {
  const hints = clientHintHeaders(device);
  const override = {
    userAgent: device.userAgent,
    acceptLanguage: deviceLanguages(device).join(','),
    platform: PLATFORM_FACTS[device.platform].navigatorPlatform,
    userAgentMetadata: userAgentMetadata(device),
  };
  return {
    options: deviceContextOptions(device),
    rewriteHeaders(headers) {
      if ('user-agent' in headers) headers['user-agent'] = device.userAgent;
      for (const name of Object.keys(headers)) if (Object.hasOwn(hints, name)) headers[name] = hints[name];
      // Playwright hands Chromium the bare locale as its language list; a page's own value is left alone.
      if (headers['accept-language'] === device.locale) headers['accept-language'] = device.acceptLanguage;
    },
    async preparePage(page: Page) {
      // The session stays attached for the page's life: Chromium drops a DevTools session's overrides when it detaches.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setUserAgentOverride', override);
    },
  };
}

/** Where the running browser's version comes from (BrowserManager; absent on test doubles). */
export interface BrowserVersionSource {
  browserVersion?(): Promise<string>;
}

/**
 * The device to present: the stored one, reporting the running browser's version (an upgraded Chrome on the same
 * machine), or a new one drawn for `seed`. Null only when nothing is stored and the browser cannot say its version
 * (then the context keeps the browser's own identity, as before devices existed).
 */
export async function deviceForBrowser(
  source: BrowserVersionSource,
  stored: DeviceProfile | null,
  seed: string,
): Promise<DeviceProfile | null> {
  const version = source.browserVersion ? await source.browserVersion() : null;
  if (!version) return stored;
  if (!stored) return chooseDevice(seed, version);
  return upgradedDevice(stored, version) ?? stored;
}
