import type http from 'node:http';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { deviceIdentity } from '../../server/browser/device-identity';
import { chooseDevice, chromeUserAgent, type DeviceProfile } from '../../server/browser/device-profile';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext, openPage } from '../../server/egress/fenced-context';

export interface DevicePageOptions {
  /** The connection's seed: the same seed, the same device and noise. */
  seed: string;
  /** The site's host name on loopback (`<host>.localhost`), its port, and the path the page opens. */
  host: string;
  port: number;
  path?: string;
  /** What the device says beyond a Windows platform and user agent (a locale, a time zone …). */
  device?: Partial<DeviceProfile>;
  /** Scripts the context runs first besides the device's (the WebAuthn gate BrowserManager's contexts have). */
  initScripts?: string[];
  /** Every context opened, for the test file's afterAll to close. */
  contexts: BrowserContext[];
}

/**
 * A page of a loopback site in a fenced context presenting a Windows device (the machine is Linux, so whatever the
 * page or a worker reads of the host instead of the device shows), as the device tests of this folder open it.
 * Returns the page and the device script (what the egress proxy also puts in front of worker scripts).
 */
export async function openDevicePage(browser: Browser, opts: DevicePageOptions): Promise<{ page: Page; script: string }> {
  const device: DeviceProfile = {
    ...chooseDevice(opts.seed, browser.version()),
    platform: 'Windows',
    userAgent: chromeUserAgent('Windows', browser.version()),
    ...opts.device,
  };
  const origin = `http://${opts.host}.localhost:${opts.port}`;
  const policy = EgressPolicy.forProvider(
    { name: opts.host, homeUrl: `${origin}/`, allowedOrigins: [`${opts.host}.localhost`] },
    'sandbox',
  );
  const identity = deviceIdentity(device);
  const context = await openFencedContext(browser, { policy, onBlocked: () => undefined, identity });
  opts.contexts.push(context);
  for (const content of opts.initScripts ?? []) await context.addInitScript({ content });
  const page = await openPage(context);
  await page.goto(`${origin}${opts.path ?? '/'}`);
  return { page, script: identity.script };
}

/** The same loopback site's page in a plain context (no device, nothing of ours): what a device page is compared with. */
export async function openPlainPage(browser: Browser, port: number, contexts: BrowserContext[]): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  return page;
}

/** What a device test file opened, closed: its contexts, its browser, its site. */
export async function closeDeviceRig(contexts: BrowserContext[], browser: Browser | undefined, site: http.Server): Promise<void> {
  await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
  await browser?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
}
