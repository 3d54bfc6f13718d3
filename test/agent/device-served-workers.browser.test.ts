import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { deviceIdentity } from '../../server/browser/device-identity';
import { chooseDevice, chromeUserAgent, type DeviceProfile } from '../../server/browser/device-profile';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext, openPage } from '../../server/egress/fenced-context';
import { startBrowser } from '../support/live-server';

/**
 * Workers whose script a site's service worker answers itself: from its Cache (stored at install with addAll, which
 * the egress proxy sees as a plain fetch, not a worker's script) or fetched on through the proxy. Each starts as the
 * connection's device, with the prelude once: the service worker's realm adds it to what came from its Cache and
 * leaves an answer that already has it as it is.
 */
jest.setTimeout(60_000);

// What a worker reports: the device as it reads it, and the line its own first statement is on (the prelude's lines
// come before it: two preludes would push it further down).
const PROBE = `postMessage([navigator.platform, navigator.languages.join(','), Number(/:(\\d+):\\d+\\)?$/.exec(new Error().stack.split('\\n')[1])[1])]);`;
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
    if (['/cached.js', '/cached-module.js', '/through.js', '/plain.js'].includes(path)) return js(PROBE);
    // A script the proxy prefixed once, as a service worker could have kept it: the site serves it so here.
    if (path === '/preluded.js') return js(`${proxyPrelude}\n${PROBE}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>served workers</title>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  browser = await startBrowser();
});

let context: BrowserContext | undefined;
afterAll(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
});

it('starts a worker its service worker answers from the Cache as the device, and one it fetched on with one prelude only', async () => {
  const device: DeviceProfile = {
    ...chooseDevice('conn-served-workers', browser.version()),
    platform: 'Windows',
    userAgent: chromeUserAgent('Windows', browser.version()),
    locale: 'de-DE',
    acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8',
    timezoneId: 'Europe/Berlin',
  };
  const policy = EgressPolicy.forProvider(
    { name: 'Served workers', homeUrl: `http://served.localhost:${port}/`, allowedOrigins: ['served.localhost'] },
    'sandbox',
  );
  const identity = deviceIdentity(device);
  proxyPrelude = identity.script;
  context = await openFencedContext(browser, { policy, onBlocked: () => undefined, identity });
  const page = await openPage(context);
  await page.goto(`http://served.localhost:${port}/`);
  await page.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
  });
  await page.reload(); // now the service worker answers this page's requests
  const seen = await page.evaluate(async () => {
    if (!navigator.serviceWorker.controller) throw new Error('the page is not controlled');
    const answer = (w: Worker | SharedWorker) =>
      new Promise<[string, string, number]>((resolve, reject) => {
        setTimeout(() => reject(new Error('no answer')), 10_000);
        w.onerror = (e) => reject(new Error(`worker error: ${(e as ErrorEvent).message ?? e.type}`));
        const port = w instanceof Worker ? w : w.port;
        port.onmessage = (e) => resolve(e.data as [string, string, number]);
        if (port instanceof MessagePort) port.start();
      });
    return {
      cached: await answer(new Worker('/cached.js')),
      cachedModule: await answer(new Worker('/cached-module.js', { type: 'module' })),
      shared: await answer(new SharedWorker('/shared.js')),
      through: await answer(new Worker('/through.js')),
      preluded: await answer(new Worker('/preluded.js')),
      looks: await fetch('/looks').then((r) => r.json() as Promise<[string, number, string, string[]]>),
      plain: await answer(new Worker('/plain.js')),
    };
  });
  // The service worker's respondWith reads as the built-in; nothing of ours in its global scope.
  const { looks, ...workers } = seen;
  expect(looks).toEqual(['respondWith', 1, 'function respondWith() { [native code] }', []]);
  for (const [name, [platform, languages]] of Object.entries(workers))
    expect([name, platform, languages]).toEqual([name, 'Win32', 'de-DE,de,en']);
  // One prelude each (a second would push the first statement further down): the realm's own in front of what the
  // service worker answered, or the proxy's in front of what the network answered; an answer that has the proxy's
  // already is left as it is.
  const line = ([, , n]: [string, string, number]) => n;
  expect(new Set([seen.cached, seen.cachedModule, seen.shared, seen.through].map(line)).size).toBe(1);
  expect(line(seen.preluded)).toBe(line(seen.plain));
  expect(line(seen.plain)).toBeLessThan(line(seen.cached) * 2);
});
