import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { chromeBrands } from '../../server/browser/client-hints';
import { deviceIdentity } from '../../server/browser/device-identity';
import { chooseDevice, chromeUserAgent, type DeviceProfile } from '../../server/browser/device-profile';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext, openPage } from '../../server/egress/fenced-context';
import { startBrowser } from '../support/live-server';
import { eventually } from './agent-support';

/**
 * A connection's device on a real Chromium: every realm of a fenced context (the page, a popup's very first request,
 * a worker) presents the same user agent, platform, languages, time zone and client hints, and none says
 * "HeadlessChrome", while the context's requests go through its egress proxy as always.
 */
jest.setTimeout(60_000);

let browser: Browser;
let site: http.Server;
let port = 0;
const seen: { path: string; headers: http.IncomingHttpHeaders }[] = [];

const PAGE = `<!doctype html><title>device</title><p>device</p>`;
const WORKER = `fetch('/from-worker').then(() => postMessage([navigator.userAgent, navigator.languages.join(',')]))`;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    seen.push({ path, headers: req.headers });
    if (path === '/worker.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(WORKER);
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  browser = await startBrowser();
});

afterAll(async () => {
  await browser?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
});

const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  seen.length = 0;
});

async function fencedWith(device: DeviceProfile) {
  const policy = EgressPolicy.forProvider(
    { name: 'Device site', homeUrl: `http://device.localhost:${port}/`, allowedOrigins: ['device.localhost'] },
    'sandbox',
  );
  const context = await openFencedContext(browser, { policy, onBlocked: () => undefined, identity: deviceIdentity(device) });
  contexts.push(context);
  return { context, page: await openPage(context) };
}

const inPage = () =>
  ({
    userAgent: navigator.userAgent,
    platform: navigator.platform,
    languages: [...navigator.languages],
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    brands: (navigator as unknown as { userAgentData: { brands: { brand: string; version: string }[] } }).userAgentData.brands,
    uaPlatform: (navigator as unknown as { userAgentData: { platform: string } }).userAgentData.platform,
    screen: [screen.width, screen.height],
    viewport: [innerWidth, innerHeight],
    // What the taskbar keeps, and how much of it is at the top (a Mac's menu bar, a Linux panel; Windows' is below).
    bars: [screen.height - screen.availHeight, (screen as Screen & { availTop: number }).availTop],
  }) as const;

it('builds Chrome’s own brand list: the real browser’s, with Google Chrome for HeadlessChrome', async () => {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  const own = await page.evaluate(
    () => (navigator as unknown as { userAgentData: { brands: { brand: string; version: string }[] } }).userAgentData.brands,
  );
  const renamed = own.map((b) => (b.brand === 'HeadlessChrome' ? { ...b, brand: 'Google Chrome' } : b));
  expect(chromeBrands(browser.version())).toEqual(renamed);
});

it.each(['Windows', 'macOS', 'Linux'] as const)('presents a %s device the same way in the page, a popup and a worker', async (platform) => {
  const device: DeviceProfile = {
    ...chooseDevice(`conn-${platform}`, browser.version()),
    platform,
    userAgent: chromeUserAgent(platform, browser.version()),
    locale: 'de-DE',
    acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
    timezoneId: 'Europe/Berlin',
  };
  const navigatorPlatform = { Windows: 'Win32', macOS: 'MacIntel', Linux: 'Linux x86_64' }[platform];
  const { context, page } = await fencedWith(device);
  await page.goto(`http://device.localhost:${port}/`);
  const read = await page.evaluate(inPage);
  expect(read.bars[0]).toBeGreaterThan(0);
  expect(read.bars[1]).toBe(platform === 'Windows' ? 0 : read.bars[0]);
  expect(read).toEqual({
    userAgent: device.userAgent,
    platform: navigatorPlatform,
    languages: ['de-DE', 'de', 'en'],
    timeZone: 'Europe/Berlin',
    brands: chromeBrands(browser.version()),
    uaPlatform: platform,
    screen: [device.screen.width, device.screen.height],
    viewport: [device.viewport.width, device.viewport.height],
    bars: read.bars,
  });
  const [popup] = await Promise.all([
    context.waitForEvent('page'),
    page.evaluate((u) => void window.open(u), `http://device.localhost:${port}/popup`),
  ]);
  await popup.waitForLoadState('domcontentloaded');
  // A popup runs the context’s init script like every document of the context.
  await eventually(
    () => popup.evaluate(() => navigator.platform),
    (p) => p === navigatorPlatform,
  );
  const fromWorker = await page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        const w = new Worker('/worker.js');
        w.onmessage = (e) => resolve(e.data as string[]);
      }),
  );
  expect(fromWorker[0]).toBe(device.userAgent);

  // On the wire, every request of every realm says the same, the popup's first one included.
  const requests = seen.filter((r) => ['/', '/popup', '/worker.js', '/from-worker'].includes(r.path));
  expect(requests.map((r) => r.path).sort()).toEqual(['/', '/from-worker', '/popup', '/worker.js']);
  for (const { headers } of requests) {
    expect(headers['user-agent']).toBe(device.userAgent);
    expect(headers['accept-language']).toBe('de-DE,de;q=0.9,en;q=0.8');
    if (headers['sec-ch-ua'] !== undefined) {
      expect(headers['sec-ch-ua']).not.toMatch(/Headless/);
      expect(headers['sec-ch-ua-platform']).toBe(`"${platform}"`);
    }
  }
  expect(requests.find((r) => r.path === '/')!.headers['sec-ch-ua']).toBe(
    chromeBrands(browser.version())
      .map((b) => `"${b.brand}";v="${b.version}"`)
      .join(', '),
  );
});

it('starts the workers a page makes from its own Blob or a data: URL as the device too, the constructors unchanged to its scripts', async () => {
  const device: DeviceProfile = {
    ...chooseDevice('conn-inline-workers', browser.version()),
    platform: 'Windows',
    userAgent: chromeUserAgent('Windows', browser.version()),
    locale: 'de-DE',
    acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
    timezoneId: 'Europe/Berlin',
  };
  const { page } = await fencedWith(device);
  await page.goto(`http://device.localhost:${port}/`);
  const seenBy = await page.evaluate(async () => {
    // 'use strict' first, and a character outside ASCII: the page's script runs as it was written.
    const probe = `'use strict'; postMessage([navigator.platform, navigator.languages.join(','), navigator.userAgentData.platform, 'é'])`;
    const answer = (w: Worker | SharedWorker) =>
      new Promise<string[]>((resolve, reject) => {
        setTimeout(() => reject(new Error('no answer')), 10_000);
        w.onerror = (e) => reject(new Error(`worker error: ${(e as ErrorEvent).message ?? e.type}`));
        if (w instanceof Worker) {
          w.onmessage = (e) => resolve(e.data as string[]);
        } else {
          w.port.onmessage = (e) => resolve(e.data as string[]);
          w.port.start();
        }
      });
    const blobUrl = () => URL.createObjectURL(new Blob([probe], { type: 'text/javascript' }));
    // The usual pattern: the URL revoked as soon as the worker is made.
    const url = blobUrl();
    const revoked = new Worker(url);
    URL.revokeObjectURL(url);
    const shared = new SharedWorker(
      URL.createObjectURL(
        new Blob([`onconnect = (e) => { const p = e.ports[0]; ${probe.replace(/^'use strict'; postMessage/, 'p.postMessage')} }`]),
      ),
    );
    const b64 = btoa(String.fromCharCode(...new TextEncoder().encode(probe)));
    // Module workers: their own statements read the device (a static import of theirs still loads, and runs first).
    const dependency = `export const mark = 'é';`;
    const reads = `[navigator.platform, navigator.languages.join(','), navigator.userAgentData.platform, mark]`;
    const moduleProbe = (dep: string) => `import { mark } from ${JSON.stringify(dep)}; postMessage(${reads});`;
    const dataModule = `data:text/javascript,${encodeURIComponent(moduleProbe(`data:text/javascript,${encodeURIComponent(dependency)}`))}`;
    const blobOf = (script: string) => URL.createObjectURL(new Blob([script], { type: 'text/javascript' }));
    const revokedModule = () => {
      const url = blobOf(moduleProbe(blobOf(dependency)));
      const worker = new Worker(url, { type: 'module' });
      URL.revokeObjectURL(url);
      return worker;
    };
    class Sub extends Worker {}
    return {
      blob: await answer(revoked),
      shared: await answer(shared),
      dataText: await answer(new Worker(`data:text/javascript,${encodeURIComponent(probe)}`)),
      dataBase64: await answer(new Worker(`data:text/javascript;base64,${b64}`)),
      // A data: URL's script is read: the prelude goes after its "use strict", which stays a directive.
      dataStrict: await answer(
        new Worker(
          `data:text/javascript,${encodeURIComponent(`'use strict'; postMessage([(function () { return this; })() === undefined])`)}`,
        ),
      ),
      subclass: await answer(new Sub(blobUrl())),
      moduleBlob: await answer(revokedModule()),
      moduleData: await answer(new Worker(dataModule, { type: 'module' })),
      sharedModule: await answer(
        new SharedWorker(
          URL.createObjectURL(
            new Blob([`import { mark } from ${JSON.stringify(blobOf(dependency))}; onconnect = (e) => e.ports[0].postMessage(${reads});`], {
              type: 'text/javascript',
            }),
          ),
          { type: 'module' },
        ),
      ),
      looks: [
        Function.prototype.toString.call(Worker),
        Worker.name,
        Worker.length,
        Worker.prototype.constructor === Worker,
        new Worker(blobUrl()) instanceof Worker,
        Object.getOwnPropertyNames(window).filter((n) => /agentlink|__/i.test(n)).length,
      ],
    };
  });
  const expected = ['Win32', 'de-DE,de,en', 'Windows', 'é'];
  expect(seenBy).toEqual({
    blob: expected,
    shared: expected,
    dataText: expected,
    dataBase64: expected,
    dataStrict: [true],
    subclass: expected,
    moduleBlob: expected,
    moduleData: expected,
    sharedModule: expected,
    looks: ['function Worker() { [native code] }', 'Worker', 1, true, true, 0],
  });
});
