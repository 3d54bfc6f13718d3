import type { Browser, BrowserContext } from 'playwright-core';

import { deviceIdentity } from '../../server/browser/device-identity';
import { chooseDevice, deviceLanguages } from '../../server/browser/device-profile';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { detect, type DetectorSite, startDetectorSite } from '../support/detector-site';
import { startBrowser } from '../support/live-server';

/**
 * A connection's device as bot-detection scripts judge it (issue #36): on a site that runs FingerprintJS BotD,
 * FingerprintJS, fpscanner and a probe of its own in the page, a dedicated worker and a service worker, a fenced context with a connection's
 * device is not a bot, reads the same in every realm and in its request headers, keeps one visitorId across contexts
 * of the connection and another for another connection, and shows nothing of ours.
 */
jest.setTimeout(90_000);

let browser: Browser;
let site: DetectorSite;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [browser, site] = await Promise.all([startBrowser(), startDetectorSite()]);
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
  await browser?.close();
  await site?.close();
});

async function visit(connectionId: string) {
  const device = chooseDevice(connectionId, browser.version());
  const policy = EgressPolicy.forProvider(
    { name: 'Invoices', homeUrl: `${site.origin}/`, allowedOrigins: ['detector.localhost'] },
    'sandbox',
  );
  const context = await openFencedContext(browser, { policy, onBlocked: () => undefined, identity: deviceIdentity(device) });
  contexts.push(context);
  const found = await detect(context, site.origin);
  await context.close();
  return { device, found };
}

it('is not a bot, contradicts itself nowhere, keeps its visitorId per connection and differs across connections', async () => {
  const first = await visit('conn-a');
  expect(first.found.detectors).toEqual([]);
  expect(first.found.bot).toBe(false);
  expect(first.found.fpscanner).toEqual([]);
  expect(first.found.contradictions).toEqual([]);
  expect(first.found.traces).toEqual([]);
  // The page, its worker and the headers say the device's languages and platform.
  expect(first.found.page.languages).toEqual(deviceLanguages(first.device));
  expect(first.found.worker.languages).toEqual(deviceLanguages(first.device));
  expect(first.found.serviceWorker?.languages).toEqual(deviceLanguages(first.device));
  expect(first.found.serviceWorker?.userAgent).toBe(first.device.userAgent);
  // The time zone is the device's (not the host's UTC) in the service worker too: no override reaches it, but it runs
  // in the page's renderer process, whose time zone the context's emulation set.
  expect(first.device.timezoneId).not.toBe('UTC');
  expect(first.found.serviceWorker?.timeZone).toBe(first.device.timezoneId);
  expect(site.headers.get('/probe-worker.js')?.['accept-language']).toBe(first.device.acceptLanguage);
  // A network estimate, as a person's browser has (the probe also compares it across the page and its workers).
  expect(first.found.page.rtt).toBeGreaterThan(0);
  expect(site.headers.get('/')?.['user-agent']).toBe(first.found.page.userAgent);

  const again = await visit('conn-a');
  expect(again.found.visitorId).toBe(first.found.visitorId);
  const other = await visit('conn-b');
  expect(other.found.bot).toBe(false);
  expect(other.found.visitorId).not.toBe(first.found.visitorId);
});

it('catches a plain Playwright context, the detectors and the probe being live', async () => {
  const policy = EgressPolicy.forProvider(
    { name: 'Invoices', homeUrl: `${site.origin}/`, allowedOrigins: ['detector.localhost'] },
    'sandbox',
  );
  const context = await openFencedContext(browser, { policy, onBlocked: () => undefined });
  contexts.push(context);
  const found = await detect(context, site.origin);
  expect(found.bot).toBe(true);
  // Playwright's Runtime domain reads what the page logs: fpscanner's hasCDP, and the probe's own check.
  expect(found.fpscanner).toEqual(expect.arrayContaining(['hasCDP']));
  expect(found.contradictions).toEqual(
    expect.arrayContaining(['a debugger reads what the page logs', 'a debugger reads what a worker logs', 'HeadlessChrome']),
  );
});

it('stays the same device when another DevTools session opens on the page (the observation, the live view)', async () => {
  const device = chooseDevice('conn-a', browser.version());
  const policy = EgressPolicy.forProvider(
    { name: 'Invoices', homeUrl: `${site.origin}/`, allowedOrigins: ['detector.localhost'] },
    'sandbox',
  );
  const context = await openFencedContext(browser, { policy, onBlocked: () => undefined, identity: deviceIdentity(device) });
  contexts.push(context);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Runtime.enable');
  await cdp.detach();
  await page.goto(`${site.origin}/`);
  await page.waitForFunction(() => 'detected' in window);
  const found = await page.evaluate(() => (window as unknown as { detected: { visitorId: string; contradictions: string[] } }).detected);
  expect(found.contradictions).toEqual([]);
  expect(found.visitorId).toBe((await visit('conn-a')).found.visitorId);
});

it('is the same device in the live view, at the widget’s size, as in its runs', async () => {
  const device = chooseDevice('conn-a', browser.version());
  const policy = EgressPolicy.forProvider(
    { name: 'Invoices', homeUrl: `${site.origin}/`, allowedOrigins: ['detector.localhost'] },
    'sandbox',
  );
  // As live-sign-in.ts opens it: the device, with the viewport the person's widget has.
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: () => undefined,
    identity: deviceIdentity(device),
    options: { viewport: { width: 1024, height: 700 } },
  });
  contexts.push(context);
  const live = await detect(context, site.origin);
  expect(live.contradictions).toEqual([]);
  expect(live.visitorId).toBe((await visit('conn-a')).found.visitorId);
});
