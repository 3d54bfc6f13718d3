import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { startBrowser } from '../support/live-server';
import { closeDeviceRig, openDevicePage } from './device-page-support';

/**
 * navigator.getBattery() in a device's pages (device-battery.page.ts): a desktop's answer in every page of a shared
 * browser, however many others have asked, and the same answer a plain Chromium gives its one page, as its own.
 * (Headless Chromium with no power service on the machine answers only the first page that asks; others never settle.)
 */
jest.setTimeout(60_000);

let browser: Browser;
let plainBrowser: Browser;
let site: http.Server;
let port = 0;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>battery</title>'));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  [browser, plainBrowser] = await Promise.all([startBrowser(), startBrowser()]);
});

afterAll(async () => {
  await plainBrowser?.close();
  await closeDeviceRig(contexts, browser, site);
});

const devicePage = async (seed: string) => (await openDevicePage(browser, { seed, host: 'battery', port, path: '/', contexts })).page;

/** The battery as a page reads it, given up after 5 s (a promise that never settles answers 'never settled'). */
const readBattery = (page: Page) =>
  page.evaluate(async () => {
    const settled = await Promise.race([
      (
        navigator as unknown as {
          getBattery(): Promise<{ charging: boolean; chargingTime: number; dischargingTime: number; level: number }>;
        }
      ).getBattery(),
      new Promise<'never settled'>((r) => setTimeout(() => r('never settled'), 5_000)),
    ]);
    if (settled === 'never settled') return settled;
    const { charging, chargingTime, dischargingTime, level } = settled;
    return { charging, chargingTime, dischargingTime: String(dischargingTime), level };
  });

it('answers every page of a shared browser at once with a desktop battery, not only the first page that asks', async () => {
  const pages = await Promise.all(['conn-battery-1', 'conn-battery-2', 'conn-battery-3'].map(devicePage));
  pages.push(await pages[0]!.context().newPage());
  await pages[3]!.goto(`http://battery.localhost:${port}/`);
  const desktop = { charging: true, chargingTime: 0, dischargingTime: 'Infinity', level: 1 };
  expect(await Promise.all(pages.map(readBattery))).toEqual([desktop, desktop, desktop, desktop]);
  // Asked again, one after another: still answered.
  for (const page of pages) expect(await readBattery(page)).toEqual(desktop);
});

/** What a site's script can tell about the answer besides its values. */
const SHAPE = `(async () => {
  const out = {};
  const grab = async (name, run) => {
    try { out[name] = String(await run()); } catch (e) { out[name] = 'threw ' + (e && e.name) + ': ' + (e && e.message); }
  };
  const thenStacks = [];
  Object.defineProperty(Object.prototype, 'then', { configurable: true, get() { thenStacks.push(new Error('then').stack); return undefined; } });
  const first = navigator.getBattery();
  const b = await first;
  delete Object.prototype.then;
  await grab('frames under a then of the page, when the answer is handed over', () => thenStacks.join());
  await grab('the same promise every time', () => navigator.getBattery() === first);
  await grab('instanceof BatteryManager', () => b instanceof BatteryManager && b instanceof EventTarget);
  await grab('toString tag', () => Object.prototype.toString.call(b));
  await grab('own keys', () => Reflect.ownKeys(b).length);
  await grab('getter on {}', () => Object.getOwnPropertyDescriptor(BatteryManager.prototype, 'level').get.call({}));
  await grab('getter source', () => Object.getOwnPropertyDescriptor(BatteryManager.prototype, 'level').get.toString());
  await grab('setter source', () => Object.getOwnPropertyDescriptor(BatteryManager.prototype, 'onlevelchange').set.toString());
  await grab('getBattery source', () => navigator.getBattery.toString() + ' ' + navigator.getBattery.length + ' ' + navigator.getBattery.name);
  await grab('getBattery on {}', () => Navigator.prototype.getBattery.call({}));
  await grab('a handler kept', () => { const f = () => 1; b.onlevelchange = f; return b.onlevelchange === f; });
  await grab('a handler of an object kept', () => { const o = {}; b.onchargingchange = o; return b.onchargingchange === o; });
  await grab('a handler of a number is null', () => { b.onlevelchange = 5; return b.onlevelchange; });
  await grab('a handler on {}', () => { Object.getOwnPropertyDescriptor(BatteryManager.prototype, 'onlevelchange').set.call({}, null); return 'set'; });
  await grab('a listener added and an event dispatched', () => { let heard = 0; b.addEventListener('x', () => heard++); b.dispatchEvent(new Event('x')); return heard; });
  await grab('a handler called for its event, as the target', () => {
    const heard = [];
    b.onlevelchange = function (e) { heard.push('first ' + e.type + ' ' + (this === b)); };
    b.dispatchEvent(new Event('levelchange'));
    b.onlevelchange = function (e) { heard.push('second ' + e.type); };
    b.dispatchEvent(new Event('levelchange'));
    b.onlevelchange = null;
    b.dispatchEvent(new Event('levelchange'));
    return heard.join('; ') + ' | ' + b.onlevelchange;
  });
  await grab('a frame of the page: its getter asked about this battery', () => {
    const frame = document.createElement('iframe');
    document.body.appendChild(frame);
    const level = Object.getOwnPropertyDescriptor(frame.contentWindow.BatteryManager.prototype, 'level').get.call(b);
    frame.remove();
    return level;
  });
  await grab('still no own keys', () => Reflect.ownKeys(b).length);
  return out;
})()`;

it("answers in a frame of the page's origin too, with a battery of the frame's own", async () => {
  const page = await devicePage('conn-battery-frame');
  const seen = await page.evaluate(async () => {
    const frame = document.createElement('iframe');
    document.body.appendChild(frame);
    const win = frame.contentWindow as unknown as typeof window & { BatteryManager: { prototype: object } };
    const b = await Promise.race([
      (win.navigator as unknown as { getBattery(): Promise<{ level: number }> }).getBattery(),
      new Promise<null>((r) => setTimeout(() => r(null), 5_000)),
    ]);
    return b && [b.level, Object.getPrototypeOf(b) === win.BatteryManager.prototype];
  });
  expect(seen).toEqual([1, true]);
});

it('answers as the browser does in all else: one promise, a BatteryManager, native getters and setters, the same errors', async () => {
  const device = await devicePage('conn-battery-shape');
  const plainContext = await plainBrowser.newContext();
  const plain = await plainContext.newPage();
  await plain.goto(`http://127.0.0.1:${port}/`);
  const [seen, expected] = await Promise.all([device.evaluate(SHAPE), plain.evaluate(SHAPE)]);
  expect(seen).toEqual(expected);
  // Not vacuous: a plain Chromium's one page is answered here, with a BatteryManager.
  expect(expected).toMatchObject({ 'instanceof BatteryManager': 'true', 'toString tag': '[object BatteryManager]' });
  await plainContext.close();
});
