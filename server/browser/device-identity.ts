import type { BrowserContextOptions } from 'playwright-core';

import type { ContextIdentity } from '../egress/fenced-context';
import { PAGE_ENTRIES } from '../page-code/entries';
import { pageBundle } from '../page-code/page-bundle';
import { callExpression } from '../page-code/page-function';
import { clientHintHeaders } from './client-hints';
import { type DeviceFacts, deviceFacts } from './device-facts';
import { chooseDevice, type DeviceProfile, seedFor, upgradedDevice } from './device-profile';

/**
 * Putting a connection's device on a browser context, once, where every realm gets it:
 * - the context options (user agent, locale, time zone, window, pixel ratio): every page and worker of the context;
 * - one script every realm runs before its own (device.page.ts): each document through the context's init script,
 *   each worker script through the egress proxy (worker-prelude.ts). It says what the options cannot (platform, the
 *   language list, client hints, plugins, GPU, window frame, noise) and needs no DevTools session of its own, which
 *   another session on the page (the observation's, the live view's) could undo;
 * - at the egress proxy, the identity headers of every request of every realm (User-Agent, Sec-CH-UA-*, the
 *   language list): a popup's first request or a worker's leave before any script could reach them.
 */
export function deviceContextOptions(device: DeviceProfile): BrowserContextOptions {
  return {
    userAgent: device.userAgent,
    locale: device.locale,
    timezoneId: device.timezoneId,
    viewport: { ...device.viewport },
    screen: { ...device.screen },
    deviceScaleFactor: device.deviceScaleFactor ?? (device.platform === 'macOS' ? 2 : 1),
    isMobile: false,
    hasTouch: false,
  };
}

/** The script every realm of the device's contexts runs first (an expression calling device.page.ts with its facts). */
export function deviceScript(device: DeviceProfile, facts: DeviceFacts = factsOf(device)): string {
  const bundle = pageBundle(PAGE_ENTRIES.device);
  // How the prelude begins: a service worker's realm knows by it a worker script that already has it (device.page.ts).
  return callExpression(PAGE_ENTRIES.device, { ...facts, bundle: { head: `(${bundle.slice(0, 120)}`, length: bundle.length } });
}

/** What the device's script is told (a device stored before seeds draws the noise of seed 0 until seededDevice gives one). */
function factsOf(device: DeviceProfile): DeviceFacts {
  return deviceFacts({ ...device, noiseSeed: device.noiseSeed ?? 0 });
}

/** The device as the fenced context applies it (options, the realms' script, each request): see openFencedContext. */
export function deviceIdentity(device: DeviceProfile): ContextIdentity {
  const hints = clientHintHeaders(device);
  const facts = factsOf(device);
  return {
    options: deviceContextOptions(device),
    script: deviceScript(device, facts),
    rewriteHeaders(headers) {
      if ('user-agent' in headers) headers['user-agent'] = device.userAgent;
      for (const name of Object.keys(headers)) if (Object.hasOwn(hints, name)) headers[name] = hints[name];
      // The RTT client hint (sent only to a site that asks for it) says what navigator.connection.rtt says.
      if (headers.rtt === '0') headers.rtt = String(facts.rtt);
      // Playwright hands Chromium the bare locale as its language list; a page's own value is left alone.
      if (headers['accept-language'] === device.locale) headers['accept-language'] = device.acceptLanguage;
    },
  };
}

/**
 * A stored device as it is presented: one stored before devices had a seed gets the one its connection (`seed`: its id)
 * always gives, so its runs and its update-mode sign-ins draw the same noise.
 */
export function seededDevice(device: DeviceProfile | null, seed: string): DeviceProfile | null {
  return device && device.noiseSeed === undefined ? { ...device, noiseSeed: seedFor(seed) } : device;
}

/** Where the running browser's version comes from (BrowserManager; absent on test doubles). */
export interface BrowserVersionSource {
  browserVersion?(): Promise<string>;
}

/**
 * The device to present: the stored one, reporting the running browser's version (an upgraded Chrome on the same
 * machine), or a new one drawn for `seed`. A stored device from before devices had a seed of their own gets one drawn
 * from `seed` (the connection), so it keeps its noise from then on. Null only when nothing is stored and the browser
 * cannot say its version (then the context keeps the browser's own identity, as before devices existed).
 */
export async function deviceForBrowser(
  source: BrowserVersionSource,
  stored: DeviceProfile | null,
  seed: string,
): Promise<DeviceProfile | null> {
  const version = source.browserVersion ? await source.browserVersion() : null;
  const seeded = seededDevice(stored, seed);
  if (!version) return seeded;
  if (!seeded) return chooseDevice(seed, version);
  return upgradedDevice(seeded, version) ?? seeded;
}
