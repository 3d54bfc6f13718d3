import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { startBrowser } from '../support/live-server';
import { closeDeviceRig, openDevicePage, openPlainPage } from './device-page-support';

/**
 * Workers a page starts from its own Blob or data: URL, which run from a script of ours with the device's prelude in
 * it (device-workers.page.ts), behave as the browser makes them behave without the device: which of them start, which
 * worker a SharedWorker connects to, what a module's import.meta.url is. Each is compared with a plain Chromium.
 */
jest.setTimeout(60_000);

let browser: Browser;
let site: http.Server;
let port = 0;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  site = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>blob workers</title>'),
  );
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  browser = await startBrowser();
});

afterAll(() => closeDeviceRig(contexts, browser, site));

/** A page of the site in a fenced context presenting a Windows device (the machine is Linux). */
async function devicePage(seed: string) {
  return (await openDevicePage(browser, { seed, host: 'blobs', port, path: '/', contexts })).page;
}

const plainPage = () => openPlainPage(browser, port, contexts);

it('leaves a module worker of a Blob or data: URL that is not JavaScript to the browser, which refuses it; a classic one of any type gets the device', async () => {
  const page = await devicePage('conn-blob-types');
  const seen = await page.evaluate(async () => {
    const code = 'postMessage(navigator.platform)';
    const start = (url: string, module: boolean) =>
      new Promise<string>((resolve) => {
        const worker = new Worker(url, module ? { type: 'module' } : {});
        setTimeout(() => resolve('no answer'), 10_000);
        worker.onmessage = (e) => resolve(String(e.data));
        worker.onerror = () => resolve('refused');
      });
    const out: Record<string, string> = {};
    for (const type of ['text/javascript', 'application/javascript; charset=utf-8', 'text/plain', '', 'application/json']) {
      for (const module of [false, true]) {
        const kind = module ? 'module' : 'classic';
        out[`blob ${kind} [${type}]`] = await start(URL.createObjectURL(new Blob([code], { type })), module);
        out[`data ${kind} [${type}]`] = await start(`data:${type},${encodeURIComponent(code)}`, module);
      }
    }
    return out;
  });
  const expected: Record<string, string> = {};
  for (const type of ['text/javascript', 'application/javascript; charset=utf-8', 'text/plain', '', 'application/json']) {
    const script = type.includes('javascript');
    for (const scheme of ['blob', 'data']) {
      expected[`${scheme} classic [${type}]`] = 'Win32';
      // As this Chromium does without any device (measured): a module's script must be of a JavaScript type.
      expected[`${scheme} module [${type}]`] = script ? 'Win32' : 'refused';
    }
  }
  expect(seen).toEqual(expected);
});

/** A SharedWorker started twice from one Blob URL, as two parts of one page do: the second connects to the first. */
const SHARED_TWICE = `(async () => {
  // The worker counts its connections: a second worker would answer 1 again. It also fetches its own base URL: what
  // it reads there is never our script (the prelude names a workerUrl in its facts).
  const code = "let n = 0; onconnect = (e) => { n++; const port = e.ports[0]; fetch('').then((r) => r.text()).then((t) => t.includes('worker' + 'Url') ? 'ours' : 'not ours', () => 'not ours').then((own) => port.postMessage([n, navigator.platform, own])); };";
  const connect = (url, name) =>
    new Promise((resolve) => {
      const worker = name === undefined ? new SharedWorker(url) : new SharedWorker(url, name);
      setTimeout(() => resolve('no answer'), 10000);
      worker.onerror = () => resolve('error');
      worker.port.onmessage = (e) => resolve(e.data.join(' '));
    });
  const kept = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  const revoked = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  const first = await connect(kept);
  const second = await connect(kept);
  const named = await connect(kept, 'other');
  const fragment = await connect(kept + '#f');
  const beforeRevoke = await connect(revoked);
  URL.revokeObjectURL(revoked);
  const afterRevoke = await connect(revoked);
  const blobEntries = performance.getEntries().filter((e) => e.name.startsWith('blob:')).length;
  return { first, second, named, fragment, beforeRevoke, afterRevoke, blobEntries };
})()`;

it("connects a SharedWorker started twice from one Blob URL to the same worker, as the browser does, the page's URL revoked or not", async () => {
  const page = await devicePage('conn-blob-shared-twice');
  const plain = await plainPage();
  const [seen, expected] = await Promise.all([page.evaluate(SHARED_TWICE), plain.evaluate(SHARED_TWICE)]);
  const platform = (await plain.evaluate(() => navigator.platform)) as string;
  // The browser's answers, the device's platform in place of the machine's.
  expect(JSON.parse(JSON.stringify(seen).replaceAll('Win32', platform))).toEqual(expected);
  expect(seen).toMatchObject({ first: '1 Win32 not ours', second: '2 Win32 not ours' });
});

/** What a module worker's import.meta.url is, against the URL the page started it from. */
const META_URLS = `(async () => {
  const body = 'postMessage(import.meta.url);';
  const ask = (url) =>
    new Promise((resolve) => {
      const worker = new Worker(url, { type: 'module' });
      setTimeout(() => resolve('no answer'), 10000);
      worker.onerror = () => resolve('error');
      worker.onmessage = (e) => resolve(e.data === url ? 'the URL' : e.data === url.split('#')[0] ? 'the URL without its fragment' : 'another URL');
    });
  const blobOf = (script) => URL.createObjectURL(new Blob([script], { type: 'text/javascript' }));
  const dependency = blobOf('export const x = 1;');
  return {
    blob: await ask(blobOf(body)),
    fragment: await ask(blobOf(body) + '#f'),
    data: await ask('data:text/javascript,' + encodeURIComponent(body)),
    inlineImport: await ask(blobOf('import { x } from ' + JSON.stringify(dependency) + ';' + body)),
    unknownText: await ask(URL.createObjectURL(await new Response(body, { headers: { 'content-type': 'text/javascript' } }).blob())),
  };
})()`;

it("gives a module worker started from the page's Blob or data: URL that URL as its import.meta.url, as the browser does", async () => {
  const page = await devicePage('conn-blob-meta');
  const plain = await plainPage();
  const [seen, expected] = await Promise.all([page.evaluate(META_URLS), plain.evaluate(META_URLS)]);
  expect(seen).toEqual(expected);
  expect(Object.values(seen as object)).not.toContain('another URL');
});
