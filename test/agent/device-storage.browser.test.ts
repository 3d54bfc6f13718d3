import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { deviceFacts } from '../../server/browser/device-facts';
import { chooseDevice } from '../../server/browser/device-profile';
import { startBrowser } from '../support/live-server';
import { closeDeviceRig, openDevicePage, openPlainPage } from './device-page-support';

/**
 * The storage quota a device's realms read (device-storage.page.ts): its disk's, as a normal profile's origin has it,
 * not the off-the-record context's share of memory, which sites read as a private window (detectIncognito's test:
 * a quota under twice the JavaScript heap's limit). Everything else about the two calls is the browser's own.
 */
jest.setTimeout(60_000);

let browser: Browser;
let site: http.Server;
let port = 0;
const contexts: BrowserContext[] = [];

const WORKER = `onmessage = async () => postMessage((await navigator.storage.estimate()).quota);`;

beforeAll(async () => {
  site = http.createServer((req, res) =>
    req.url === '/worker.js'
      ? res.writeHead(200, { 'content-type': 'text/javascript' }).end(WORKER)
      : res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>storage</title>'),
  );
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  browser = await startBrowser();
});

afterAll(() => closeDeviceRig(contexts, browser, site));

const devicePage = async (seed: string) => (await openDevicePage(browser, { seed, host: 'storage', port, path: '/', contexts })).page;

/** detectIncognito's Chrome test (its storageQuotaChromePrivateTest), as sites run it: true means a private window. */
const LOOKS_PRIVATE = `new Promise((resolve, reject) => {
  const limit = performance.memory && performance.memory.jsHeapSizeLimit !== undefined ? performance.memory.jsHeapSizeLimit : 1073741824;
  navigator.webkitTemporaryStorage.queryUsageAndQuota(
    (_, quota) => resolve(Math.round(quota / (1024 * 1024)) < Math.round(limit / (1024 * 1024)) * 2),
    (e) => reject(e),
  );
})`;

const quotas = (page: Page) =>
  page.evaluate(async () => {
    const estimate = (await navigator.storage.estimate()).quota;
    const older = await new Promise<number>((resolve) =>
      (
        navigator as unknown as { webkitTemporaryStorage: { queryUsageAndQuota(ok: (u: number, q: number) => void): void } }
      ).webkitTemporaryStorage.queryUsageAndQuota((_usage, quota) => resolve(quota)),
    );
    const worker = await new Promise<number>((resolve) => {
      const w = new Worker('/worker.js');
      w.onmessage = (e) => resolve(e.data as number);
      w.postMessage(1);
    });
    return { estimate, older, worker };
  });

it("reads as a normal profile's storage on the device's disk, the same in the page and its workers, for each connection its own", async () => {
  const seeds = ['conn-storage-1', 'conn-storage-2', 'conn-storage-3', 'conn-storage-4', 'conn-storage-5', 'conn-storage-6'];
  const pages = await Promise.all(seeds.map(devicePage));
  const seen = await Promise.all(pages.map(quotas));
  seen.forEach((q, i) => {
    const expected = deviceFacts({
      ...chooseDevice(seeds[i]!, browser.version()),
      platform: 'Windows',
      noiseSeed: chooseDevice(seeds[i]!, browser.version()).noiseSeed!,
    }).storageQuota;
    expect(q).toEqual({ estimate: expected, older: expected, worker: expected });
  });
  expect(new Set(seen.map((q) => q.estimate)).size).toBeGreaterThan(1);
  for (const page of pages) expect(await page.evaluate(LOOKS_PRIVATE)).toBe(false);
  // The same connection again, in a new context: the same disk.
  expect(await quotas(await devicePage('conn-storage-1'))).toEqual(seen[0]);
  // Not vacuous: the same test finds a plain context of this browser private.
  expect(await (await openPlainPage(browser, port, contexts)).evaluate(LOOKS_PRIVATE)).toBe(true);
});

/** What a site's script can tell about the two calls besides the quota. */
const SHAPE = `(async () => {
  const out = {};
  const grab = async (name, run) => {
    try { out[name] = String(await run()); } catch (e) { out[name] = 'threw ' + (e && e.name) + ': ' + (e && e.message); }
  };
  const quota = navigator.webkitTemporaryStorage;
  await grab('estimate keys', async () => Object.keys(await navigator.storage.estimate()).join());
  await grab('estimate usage is a number', async () => typeof (await navigator.storage.estimate()).usage);
  await grab('estimate on {}', () => StorageManager.prototype.estimate.call({}));
  await grab('estimate source', () => navigator.storage.estimate.toString() + ' ' + navigator.storage.estimate.length);
  await grab('query with no callback', () => quota.queryUsageAndQuota());
  await grab('query with a callback that is not one', () => quota.queryUsageAndQuota(5));
  await grab('query on {}', () => Object.getPrototypeOf(quota).queryUsageAndQuota.call({}, () => 1));
  await grab('query answers at once', () => quota.queryUsageAndQuota(() => 1));
  await grab('query source', () => quota.queryUsageAndQuota.toString() + ' ' + quota.queryUsageAndQuota.length);
  await grab('the callback: its arguments, this, and the frames under it', () => new Promise((resolve) =>
    quota.queryUsageAndQuota(function () { 'use strict'; resolve([arguments.length, typeof arguments[0], typeof arguments[1], this === undefined, new Error('cb').stack.split('\\n').length].join()); })));
  await grab('a timer id taken between two timers of the page', () => new Promise((resolve) => {
    const first = setTimeout(() => undefined);
    quota.queryUsageAndQuota(() => resolve(setTimeout(() => undefined) - first));
  }));
  await grab('persistent storage, as the browser has it', () => new Promise((resolve) =>
    navigator.webkitPersistentStorage.queryUsageAndQuota((usage, q) => resolve(typeof usage + ' ' + typeof q))));
  return out;
})()`;

it('answers as the browser does in all else: the same keys, errors, native functions, and callbacks called from a task', async () => {
  const device = await devicePage('conn-storage-shape');
  const plain = await openPlainPage(browser, port, contexts);
  const [seen, expected] = await Promise.all([device.evaluate(SHAPE), plain.evaluate(SHAPE)]);
  expect(seen).toEqual(expected);
  expect(expected).toMatchObject({
    'estimate keys': 'quota,usage,usageDetails',
    'query answers at once': 'undefined',
    'the callback: its arguments, this, and the frames under it': '2,number,number,true,2',
  });
});
