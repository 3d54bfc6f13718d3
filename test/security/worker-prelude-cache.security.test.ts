import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { deviceIdentity } from '../../server/browser/device-identity';
import { chooseDevice, deviceLanguages } from '../../server/browser/device-profile';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { startBrowser } from '../support/live-server';

/**
 * The egress proxy puts the device's prelude in front of a worker's script (worker-prelude.ts). The page must never be
 * able to read that code back, nor have its own data altered: a worker's answer that is not JavaScript is not touched,
 * and a prefixed one is never cached (an ordinary fetch of the same URL would get our code, with the device's facts
 * and noise seed). Attacked by the site's own page, with real Chromium behind the real proxy; the site's answers say
 * they may be cached for ten minutes.
 */
jest.setTimeout(60_000);

const SCRIPT = 'postMessage(navigator.languages.join());';
const DATA = '{"a":1}';
const CACHED = { 'cache-control': 'max-age=600', etag: '"v1"', 'last-modified': 'Sat, 01 Nov 2026 00:00:00 GMT' };

let browser: Browser;
let site: http.Server;
let origin = '';
let context: BrowserContext;
let page: Page;
let prelude = '';
let languages = '';
const asked: string[] = [];

beforeAll(async () => {
  browser = await startBrowser();
  site = http.createServer((req, res) => {
    asked.push(`${String(req.headers['sec-fetch-dest'])} ${req.url}`);
    if (req.url === '/w.js') return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', ...CACHED }).end(SCRIPT);
    if (req.url === '/data.json') return res.writeHead(200, { 'content-type': 'application/json', ...CACHED }).end(DATA);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>site</title>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://cache.localhost:${(site.address() as AddressInfo).port}`;
  const policy = EgressPolicy.forProvider({ name: 'Site', homeUrl: `${origin}/`, allowedOrigins: ['cache.localhost'] }, 'sandbox');
  const device = chooseDevice('conn-cache', browser.version());
  languages = deviceLanguages(device).join();
  const identity = deviceIdentity(device);
  prelude = identity.script;
  context = await openFencedContext(browser, { policy, identity, onBlocked: () => undefined });
  page = await context.newPage();
  await page.goto(`${origin}/`);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

it("a worker's script is prefixed for the worker only: the page's own fetch of it gets the site's script", async () => {
  const seen = await page.evaluate(async () => {
    const w = new Worker('/w.js');
    const said = await new Promise((r) => (w.onmessage = (e) => r(e.data)));
    w.terminate();
    return { said, text: await (await fetch('/w.js')).text() };
  });
  expect(seen.said).toBe(languages); // the worker ran with the device's prelude (no override gives it the whole list)
  expect(seen.text).toBe(SCRIPT);
});

it("an answer to a worker that is not JavaScript is passed on as it is: the page's data stays the site's", async () => {
  const text = await page.evaluate(async () => {
    const w = new Worker('/data.json');
    await new Promise((r) => (w.onerror = r)); // not a script: the worker fails once its answer came
    return (await fetch('/data.json')).text();
  });
  expect(asked).toContain('worker /data.json');
  expect(text).toBe(DATA);
});

it('the prelude names nothing of ours', () => {
  expect(prelude).not.toMatch(/agentlink/i);
});
