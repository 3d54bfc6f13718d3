import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { startBrowser } from '../support/live-server';
import { closeDeviceRig, openDevicePage, openPlainPage } from './device-page-support';

/**
 * Workers whose script is more than one answer of the network to a worker's request. Those a site's service worker answers itself: from its Cache (stored at install with addAll, which
 * the egress proxy sees as a plain fetch, not a worker's script) or fetched on through the proxy. Each starts as the
 * connection's device, with the prelude once: the service worker's realm adds it to what came from its Cache and
 * leaves an answer that already has it as it is.
 */
jest.setTimeout(60_000);

// What a worker reports: the device as it reads it, whether it runs in strict mode, and the line and column its own
// first statement is at. The prelude goes on the first line, after the script's "use strict": every line keeps its
// number, strict stays strict, and a second prelude would push the column further right.
const STRICT = '"use strict";';
const BODY = `postMessage([navigator.platform, navigator.languages.join(','), (function () { return this; })() === undefined, .../:(\\d+):(\\d+)\\)?$/.exec(new Error().stack.split('\\n')[1]).slice(1).map(Number)]);`;
const PROBE = `${STRICT}${BODY}`;
const SERVICE_WORKER = `
const CACHE = 'scripts';
self.addEventListener('install', (e) => e.waitUntil(caches.open(CACHE).then((c) => c.addAll(['/cached.js', '/cached-module.js', '/preluded.js']))));
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  const path = new URL(e.request.url).pathname;
  if (path.startsWith('/cached')) e.respondWith(caches.match(e.request).then((r) => r || fetch(e.request)));
  else if (path === '/through.js' || path === '/preluded.js') e.respondWith(caches.match(e.request).then((r) => r || fetch(e.request)));
  else if (path === '/looks') {
    const own = FetchEvent.prototype.respondWith;
    e.respondWith(new Response(JSON.stringify([own.name, own.length, Function.prototype.toString.call(own), Object.getOwnPropertyNames(self).filter((n) => /agentlink|__/i.test(n))])));
  } else if (path === '/shared.js') e.respondWith(caches.match('/cached.js').then((r) => r.text()).then((t) => new Response('onconnect = (c) => { const postMessage = (m) => c.ports[0].postMessage(m); ' + t + ' };', { headers: { 'content-type': 'text/javascript' } })));
});`;

// The same service worker, then a lie detector's traps on everything the service worker's answer to a worker's
// script could be read with (getters, methods, species, Symbol.hasInstance), counted; /trap-hits answers the count.
const TRAPPED_SERVICE_WORKER = `${SERVICE_WORKER}
self.addEventListener('fetch', (e) => { if (new URL(e.request.url).pathname === '/trap-hits') e.respondWith(new Response(hits.join('|'))); });
const hits = [];
const R = Reflect.apply;
const D = Object.defineProperty;
const G = Object.getOwnPropertyDescriptor;
const getters = [[Response.prototype, ['status', 'statusText', 'type', 'redirected', 'bodyUsed', 'headers', 'ok', 'url', 'body']],
  [FetchEvent.prototype, ['request']], [Request.prototype, ['destination', 'url']], [Promise, [Symbol.species]]];
const methods = [[Response.prototype, ['clone', 'text', 'arrayBuffer', 'blob']], [Headers.prototype, ['get', 'has', 'set', 'delete', 'append', 'forEach', 'entries', 'keys', 'values', Symbol.iterator]],
  [Promise.prototype, ['then', 'catch', 'finally']], [Promise, ['resolve']], [RegExp.prototype, ['exec', 'test']], [Reflect, ['apply', 'construct']],
  [Function.prototype, ['call', 'apply', 'bind']], [Array.prototype, ['forEach', 'includes', 'indexOf', 'push', Symbol.iterator]]];
const trapGetter = (o, k) => { const d = G(o, k); const get = d.get; D(o, k, { configurable: true, enumerable: d.enumerable, get: function () { hits[hits.length] = String(k); return R(get, this, []); } }); };
const trapMethod = (o, k) => { const f = o[k]; D(o, k, { configurable: true, writable: true, value: function (...a) { hits[hits.length] = String(k); return R(f, this, a); } }); };
for (let i = 0; i < getters.length; i++) for (let j = 0; j < getters[i][1].length; j++) trapGetter(getters[i][0], getters[i][1][j]);
D(Promise.prototype, 'constructor', { configurable: true, get: () => ((hits[hits.length] = 'constructor'), Promise) });
D(Response, Symbol.hasInstance, { configurable: true, value: function (v) { hits[hits.length] = 'hasInstance'; return R(Function.prototype[Symbol.hasInstance], this, [v]); } });
for (let i = 0; i < methods.length; i++) for (let j = 0; j < methods[i][1].length; j++) trapMethod(methods[i][0], methods[i][1][j]);
`;

// A WebGL read in a worker: the connection's noise is in its pixels (in stripes two pixels wide: the noise goes only
// where the picture changes, never on a flat fill).
const GL = `const draw = () => {
  const gl = new OffscreenCanvas(32, 32).getContext('webgl');
  gl.clearColor(0.2, 0.4, 0.6, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
  gl.enable(gl.SCISSOR_TEST);
  gl.clearColor(0.6, 0.4, 0.2, 1);
  for (let x = 0; x < 32; x += 4) { gl.scissor(x, 0, 2, 32); gl.clear(gl.COLOR_BUFFER_BIT); }
  const pixels = new Uint8Array(32 * 32 * 4);
  gl.readPixels(0, 0, 32, 32, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  return [...pixels];
}`;

let browser: Browser;
let site: http.Server;
let port = 0;
/** The script the egress proxy puts in front of the test device's worker scripts. */
let proxyPrelude = '';

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const js = (body: string) => res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
    if (path === '/sw.js') return js(SERVICE_WORKER);
    if (path === '/sw-trapped.js') return js(TRAPPED_SERVICE_WORKER);
    if (path === '/sw-module.js') return js(`import './sw-dep.js';\n${SERVICE_WORKER}`);
    if (path === '/sw-dep.js') return js('export const dep = 1;');
    if (['/cached.js', '/cached-module.js', '/through.js', '/plain.js'].includes(path)) return js(PROBE);
    if (path === '/gl-classic.js') return js(`${GL}; postMessage([navigator.platform, draw()]);`);
    if (path === '/gl-module.js') return js(`import { early } from './gl-a.js'; ${GL}; postMessage([early, draw()]);`);
    if (path === '/gl-a.js') return js(`import { before } from './gl-b.js'; export const early = before;`);
    if (path === '/gl-b.js') return js(`export const before = navigator.platform;`);
    // A script the proxy prefixed once, as a service worker could have kept it: the site serves it so here.
    if (path === '/preluded.js') return js(`${STRICT};${proxyPrelude};${BODY}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>served workers</title>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  browser = await startBrowser();
});

const contexts: BrowserContext[] = [];
afterAll(() => closeDeviceRig(contexts, browser, site));

/** A page of the site in a fenced context presenting a Windows device (the machine is Linux), in German, in Berlin. */
async function devicePage(seed: string) {
  const device = { locale: 'de-DE', acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8', timezoneId: 'Europe/Berlin' };
  const { page, script } = await openDevicePage(browser, { seed, host: 'served', port, device, contexts });
  proxyPrelude = script;
  return page;
}

it('starts a module worker as the device in every module of its graph, its noise drawn once however many ran the prelude', async () => {
  const page = await devicePage('conn-module-graph');
  const seen = await page.evaluate(async () => {
    const answer = (w: Worker) =>
      new Promise<[string, number[]]>((resolve, reject) => {
        setTimeout(() => reject(new Error('no answer')), 10_000);
        w.onerror = (e) => reject(new Error(`worker error: ${(e as ErrorEvent).message ?? e.type}`));
        w.onmessage = (e) => resolve(e.data as [string, number[]]);
      });
    return {
      classic: await answer(new Worker('/gl-classic.js')),
      module: await answer(new Worker('/gl-module.js', { type: 'module' })),
    };
  });
  // The innermost import's first statement (evaluated before its importers', so before theirs) reads the device.
  expect([seen.classic[0], seen.module[0]]).toEqual(['Win32', 'Win32']);
  // The same pixels in a worker of one script (one prelude) and one of three modules (three): the noise is there once.
  expect(seen.module[1]).toEqual(seen.classic[1]);
  const stripes = (i: number) => (Math.floor(i / 4) % 32) % 4 < 2;
  const drawn = (i: number) => (stripes(i) ? [153, 102, 51, 255] : [51, 102, 153, 255])[i % 4];
  expect(seen.classic[1].every((v, i) => (v & 0xfe) === (drawn(i)! & 0xfe))).toBe(true); // the stripes, lowest bits aside
  expect(seen.classic[1].some((v, i) => v !== drawn(i))).toBe(true);
});

// A module service worker with an import runs the prelude twice (each module's answer gets it): two respondWith wrappers.
it.each([
  ['a classic', '/sw.js', 'classic'],
  ['a module', '/sw-module.js', 'module'],
] as const)(
  'starts a worker %s service worker answers from the Cache as the device, one it fetched on too, with one prelude',
  async (_, script, type) => {
    const page = await devicePage(`conn-served-workers-${type}`);
    await page.evaluate(
      async ([url, kind]) => {
        await navigator.serviceWorker.register(url, { type: kind });
        await navigator.serviceWorker.ready;
      },
      [script, type] as const,
    );
    await page.reload(); // now the service worker answers this page's requests
    const seen = await page.evaluate(async (body) => {
      if (!navigator.serviceWorker.controller) throw new Error('the page is not controlled');
      type Seen = [string, string, boolean, number, number];
      const answer = (w: Worker | SharedWorker) =>
        new Promise<Seen>((resolve, reject) => {
          setTimeout(() => reject(new Error('no answer')), 10_000);
          w.onerror = (e) => reject(new Error(`worker error: ${(e as ErrorEvent).message ?? e.type}`));
          const port = w instanceof Worker ? w : w.port;
          port.onmessage = (e) => resolve(e.data as Seen);
          if (port instanceof MessagePort) port.start();
        });
      const blobUrl = URL.createObjectURL(new Blob([body], { type: 'text/javascript' }));
      return {
        blobUrl,
        cached: await answer(new Worker('/cached.js')),
        cachedModule: await answer(new Worker('/cached-module.js', { type: 'module' })),
        shared: await answer(new SharedWorker('/shared.js')),
        through: await answer(new Worker('/through.js')),
        preluded: await answer(new Worker('/preluded.js')),
        looks: await fetch('/looks').then((r) => r.json() as Promise<[string, number, string, string[]]>),
        plain: await answer(new Worker('/plain.js')),
        // The page's own Blob (no "use strict": a Blob's prelude goes in front, device-workers.page.ts), once.
        blob: await answer(new Worker(blobUrl)),
      };
    }, BODY);
    // The service worker's respondWith reads as the built-in; nothing of ours in its global scope.
    const { looks, blobUrl, ...workers } = seen;
    expect(looks).toEqual(['respondWith', 1, 'function respondWith() { [native code] }', []]);
    for (const [name, [platform, languages, , line]] of Object.entries(workers))
      expect([name, platform, languages, line]).toEqual([name, 'Win32', 'de-DE,de,en', 1]);
    // "use strict" kept wherever the script said it first (the Blob said nothing; a module is strict anyway).
    expect(Object.fromEntries(Object.entries(workers).map(([name, [, , strict]]) => [name, strict]))).toEqual({
      cached: true,
      cachedModule: true,
      shared: false, // the service worker put the cached script in a function: no longer a directive
      through: true,
      preluded: true,
      plain: true,
      blob: false,
    });
    // One prelude each (a second would push the first statement further right): the realm's own in what the service
    // worker answered (after the directive and a `;`), or the proxy's in what the network answered; an answer that has
    // the proxy's already is left as it is.
    const column = ([, , , , n]: [string, string, boolean, number, number]) => n;
    // The Blob's prelude also names the page's URL for the worker's location (`,"workerUrl":"blob:…"` in its facts).
    const named = `,"workerUrl":${JSON.stringify(blobUrl)}`.length;
    for (const served of [seen.cached, seen.through]) expect(column(served)).toBe(column(seen.blob) - named + STRICT.length + 1);
    expect(column(seen.preluded)).toBe(column(seen.plain));
  },
);

it("puts the prelude into a worker's script its service worker answered without a call the service worker's script could trap", async () => {
  const run = async (page: Page) => {
    await page.evaluate(async () => {
      await navigator.serviceWorker.register('/sw-trapped.js');
      await navigator.serviceWorker.ready;
    });
    await page.reload(); // now the service worker answers this page's requests
    return page.evaluate(async () => {
      if (!navigator.serviceWorker.controller) throw new Error('the page is not controlled');
      const worker = new Worker('/cached.js');
      const seen = await new Promise((resolve, reject) => {
        setTimeout(() => reject(new Error('no answer')), 10_000);
        worker.onerror = (e) => reject(new Error(`worker error: ${e.message}`));
        worker.onmessage = (e) => resolve((e.data as unknown[])[0]);
      });
      return { platform: seen, hits: await (await fetch('/trap-hits')).text() };
    });
  };
  const plain = await openPlainPage(browser, port, contexts);
  const [seen, expected] = await Promise.all([run(await devicePage('conn-served-trapped')), run(plain)]);
  // The service worker's own handler's reads (its event's request, its then …), as in a plain Chromium, and one more:
  // the await of its promise reads the promise's constructor once, where the browser's own reaction reads nothing
  // (device-workers.page.ts says so). Nothing else of ours: no getter, method, species or Symbol.hasInstance.
  const tally = (hits: string) => {
    const counts = new Map<string, number>();
    for (const hit of hits.split('|')) counts.set(hit, (counts.get(hit) ?? 0) + 1);
    return counts;
  };
  const plainCounts = tally(expected.hits);
  expect(plainCounts.get('constructor')).toBeGreaterThan(0);
  expect(Object.fromEntries(tally(seen.hits))).toEqual(
    Object.fromEntries(plainCounts.set('constructor', plainCounts.get('constructor')! + 1)),
  );
  expect(seen.platform).toBe('Win32');
});
