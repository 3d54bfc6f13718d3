import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import type { BrowserContext } from 'playwright-core';

/**
 * A site that judges its visitors as real sites do: every page loads FingerprintJS BotD and FingerprintJS (the open-
 * source packages, served from node_modules), fpscanner (its published browser module, test/fixtures/detectors), and a
 * probe of its own that looks for contradictions between what the page, a dedicated worker, a service worker and the
 * request headers say, for a debugger that reads what the page logs, and for anything of AgentLink's in the page.
 * Used by the device tests and `npm run bench:device`.
 */
const MODULES = path.resolve(__dirname, '../../node_modules/@fingerprintjs');
const FPSCANNER = path.resolve(__dirname, '../fixtures/detectors/fpscanner-1.0.2/fpScanner.es.js');

/** What the site's scripts found (window.detected, set by the page once everything has answered). */
export interface Detected {
  bot: boolean;
  botKind?: string;
  detectors: string[];
  visitorId: string;
  /** fpscanner's fast bot detection rules that fired (its fastBotDetectionDetails), and its fingerprint id. */
  fpscanner: string[];
  fsid: string;
  contradictions: string[];
  traces: string[];
  page: Record<string, unknown>;
  worker: Record<string, unknown>;
  serviceWorker: Record<string, unknown> | null;
}

const READ_NAVIGATOR = `
// Whether a debugger reads what this realm logs (an Error's stack formatted by the console's reader).
const debuggerReads = () => {
  let read = false;
  const before = Error.prepareStackTrace;
  Error.prepareStackTrace = () => { read = true; return ''; };
  console.log(new Error('probe'));
  Error.prepareStackTrace = before;
  return read;
};
const readNavigator = async () => {
  const u = navigator.userAgentData;
  const he = u ? await u.getHighEntropyValues(['architecture', 'bitness', 'fullVersionList', 'platformVersion', 'uaFullVersion', 'model', 'wow64']) : null;
  return { userAgent: navigator.userAgent, platform: navigator.platform, languages: [...navigator.languages],
    hardwareConcurrency: navigator.hardwareConcurrency, deviceMemory: navigator.deviceMemory, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    offsets: [new Date(2026, 0, 15).getTimezoneOffset(), new Date(2026, 6, 15).getTimezoneOffset()], he,
    rtt: navigator.connection ? navigator.connection.rtt : null, logged: debuggerReads() };
};`;

const WORKER = `${READ_NAVIGATOR}
self.onmessage = async () => postMessage(await readNavigator());`;

/** The service worker answers on the port it is sent. */
const SERVICE_WORKER = `${READ_NAVIGATOR}
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('message', async (e) => e.ports[0].postMessage(await readNavigator()));`;

const PROBE = `
const gather = async () => {
  const u = navigator.userAgentData;
  const he = u ? await u.getHighEntropyValues(['architecture', 'bitness', 'fullVersionList', 'platformVersion', 'uaFullVersion', 'model', 'wow64']) : null;
  let gl = null;
  try {
    const c = document.createElement('canvas').getContext('webgl');
    const ext = c && c.getExtension('WEBGL_debug_renderer_info');
    if (ext) gl = [c.getParameter(ext.UNMASKED_VENDOR_WEBGL), c.getParameter(ext.UNMASKED_RENDERER_WEBGL)];
  } catch {}
  let notifications = null;
  try { notifications = (await navigator.permissions.query({ name: 'notifications' })).state; } catch {}
  // A browser answers at once; a headless one with no power service may never (all but its first page that asks).
  let battery = null;
  if (navigator.getBattery) {
    const b = await Promise.race([navigator.getBattery(), new Promise((r) => setTimeout(() => r(null), 2000))]);
    battery = b ? [b.charging, b.level] : 'never settled';
  }
  // detectIncognito's test: a quota under twice the JavaScript heap's limit is a private window's.
  let privateWindow = null;
  if (navigator.storage && performance.memory) {
    const { quota } = await navigator.storage.estimate();
    privateWindow = Math.round(quota / 1048576) < Math.round(performance.memory.jsHeapSizeLimit / 1048576) * 2;
  }
  return { userAgent: navigator.userAgent, platform: navigator.platform, languages: [...navigator.languages],
    hardwareConcurrency: navigator.hardwareConcurrency, deviceMemory: navigator.deviceMemory, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    offsets: [new Date(2026, 0, 15).getTimezoneOffset(), new Date(2026, 6, 15).getTimezoneOffset()], he,
    rtt: navigator.connection ? navigator.connection.rtt : null, webdriver: navigator.webdriver, plugins: navigator.plugins.length, mimeTypes: navigator.mimeTypes.length, pdfViewerEnabled: navigator.pdfViewerEnabled,
    chrome: typeof window.chrome, outer: [outerWidth, outerHeight], inner: [innerWidth, innerHeight], screen: [screen.width, screen.height],
    dpr: devicePixelRatio, notification: window.Notification ? Notification.permission : null, notifications, gl,
    register: String(navigator.serviceWorker && navigator.serviceWorker.register), touch: navigator.maxTouchPoints, battery, privateWindow };
};
const fromWorker = () => new Promise((resolve) => { const w = new Worker('/probe-worker.js'); w.onmessage = (e) => { resolve(e.data); w.terminate(); }; w.postMessage(1); });
const fromServiceWorker = async () => {
  if (!navigator.serviceWorker) return null;
  const registration = await navigator.serviceWorker.register('/probe-sw.js');
  const ready = await navigator.serviceWorker.ready;
  const channel = new MessageChannel();
  const answer = new Promise((resolve) => (channel.port1.onmessage = (e) => resolve(e.data)));
  (ready.active || registration.active).postMessage(1, [channel.port2]);
  return answer;
};
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
export async function probe() {
  const page = await gather();
  const worker = await fromWorker();
  const serviceWorker = await fromServiceWorker();
  const c = [];
  if (page.webdriver) c.push('navigator.webdriver is true');
  if (!page.plugins || !page.mimeTypes || !page.pdfViewerEnabled) c.push('no PDF viewer plugins');
  if (page.chrome !== 'object') c.push('no window.chrome');
  if (page.outer[0] < page.inner[0] || page.outer[1] <= page.inner[1]) c.push('outer window not larger than inner');
  if (page.notification === 'denied' && page.notifications === 'prompt') c.push('Notification.permission denied while permissions.query says prompt');
  if (/HeadlessChrome/.test(page.userAgent) || (page.he && page.he.fullVersionList.some((b) => /Headless/.test(b.brand)))) c.push('HeadlessChrome');
  if (!/native code/.test(page.register)) c.push('navigator.serviceWorker.register is a script');
  if (page.gl && /SwiftShader|llvmpipe/i.test(page.gl[1])) c.push('software WebGL renderer');
  const platformOf = { Win32: 'Windows', MacIntel: 'macOS', 'Linux x86_64': 'Linux' }[page.platform];
  if (page.he && platformOf !== page.he.platform) c.push('navigator.platform disagrees with userAgentData.platform');
  if (platformOf === 'macOS' && page.dpr < 2) c.push('a Mac screen at devicePixelRatio 1');
  if (page.touch > 0) c.push('touch on a desktop');
  if (page.rtt === 0) c.push('no network estimate (navigator.connection.rtt is 0)');
  if (page.battery === 'never settled') c.push('navigator.getBattery() never settles');
  if (page.privateWindow) c.push('a private window by its storage quota');
  for (const k of ['userAgent', 'platform', 'languages', 'hardwareConcurrency', 'deviceMemory', 'timeZone', 'offsets', 'he', 'rtt'])
    if (!same(page[k], worker[k])) c.push('worker disagrees: ' + k);
  if (!serviceWorker) c.push('no service worker');
  else for (const k of ['userAgent', 'platform', 'languages', 'hardwareConcurrency', 'deviceMemory', 'timeZone', 'offsets', 'he', 'rtt'])
    if (!same(page[k], serviceWorker[k])) c.push('service worker disagrees: ' + k);
  // What a page logs is read only by DevTools: an element's id getter or an Error's stack formatting that runs tells a
  // site that a debugger listens (the "Runtime.enable" checks).
  let read = false;
  const el = document.createElement('div');
  Object.defineProperty(el, 'id', { get: () => { read = true; return ''; } });
  const before = Error.prepareStackTrace;
  Error.prepareStackTrace = () => { read = true; return ''; };
  console.debug(el);
  console.log(new Error('probe'));
  Error.prepareStackTrace = before;
  if (read) c.push('a debugger reads what the page logs');
  if (worker.logged) c.push('a debugger reads what a worker logs');
  if (serviceWorker && serviceWorker.logged) c.push('a debugger reads what a service worker logs');
  const traces = [];
  for (const k of Object.getOwnPropertyNames(window)) if (/agentlink|__pw|playwright/i.test(k)) traces.push('global ' + k);
  for (const el of document.querySelectorAll('*')) for (const a of el.getAttributeNames()) if (/agentlink/i.test(a)) traces.push('attribute ' + a);
  return { page, worker, serviceWorker, contradictions: c, traces };
}`;

const PAGE = `<!doctype html><html><head><title>Invoices</title></head><body><h1>Invoices</h1><p>Sign in to see your invoices.</p>
<script type="module">
import { load as loadBotd } from '/botd.esm.js';
import FingerprintJS from '/fp.esm.js';
import FingerprintScanner from '/fpscanner.js';
import { probe } from '/probe.js';
const botd = await loadBotd();
const verdict = botd.detect();
const detections = botd.getDetections ? botd.getDetections() : {};
const detectors = Object.entries(detections || {}).filter(([, v]) => v && v.bot).map(([k]) => k);
const fp = await (await FingerprintJS.load({ monitoring: false })).get();
const scanned = await new FingerprintScanner().collectFingerprint({ encrypt: false });
const fpscanner = Object.entries(scanned.fastBotDetectionDetails).filter(([, v]) => v.detected).map(([k]) => k);
const found = await probe();
window.detected = { bot: verdict.bot, botKind: verdict.botKind, detectors, visitorId: fp.visitorId, fpscanner, fsid: scanned.fsid, ...found };
</script></body></html>`;

export interface DetectorSite {
  origin: string;
  /** The request headers the site received, by path. */
  headers: Map<string, http.IncomingHttpHeaders>;
  close(): Promise<void>;
}

export async function startDetectorSite(host = 'detector.localhost'): Promise<DetectorSite> {
  const headers = new Map<string, http.IncomingHttpHeaders>();
  const js = (body: string) => ({ type: 'text/javascript', body });
  const files: Record<string, () => { type: string; body: string }> = {
    '/': () => ({ type: 'text/html', body: PAGE }),
    '/botd.esm.js': () => js(fs.readFileSync(path.join(MODULES, 'botd/dist/botd.esm.js'), 'utf8')),
    '/fp.esm.js': () => js(fs.readFileSync(path.join(MODULES, 'fingerprintjs/dist/fp.esm.js'), 'utf8')),
    '/fpscanner.js': () => js(fs.readFileSync(FPSCANNER, 'utf8')),
    '/probe.js': () => js(PROBE),
    '/probe-worker.js': () => js(WORKER),
    '/probe-sw.js': () => js(SERVICE_WORKER),
  };
  const server = http.createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    headers.set(p, req.headers);
    const file = files[p];
    if (!file) return res.writeHead(404).end();
    const { type, body } = file();
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host}:${port}`,
    headers,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Loads the site in a new page of `context` and returns what its scripts found. */
export async function detect(context: BrowserContext, origin: string): Promise<Detected> {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'detected' in window, undefined, { timeout: 20_000 });
    return (await page.evaluate(() => (window as unknown as { detected: Detected }).detected)) as Detected;
  } finally {
    await page.close().catch(() => undefined);
  }
}
