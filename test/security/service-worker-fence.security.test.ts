import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { ContextWiring, type RunPort } from '../../server/agent/run/context-wiring';
import { changeGate, type RunMode } from '../../server/agent/run/network-guard';
import { WarmContexts } from '../../server/agent/worker/warm-contexts';
import type { HeldWrite } from '../../server/egress/change-gate';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { type ChangeGate } from '../../server/egress/egress-proxy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { startBrowser } from '../support/live-server';

/**
 * Service workers are allowed (fenced-context.ts): their requests leave through the context's egress proxy like any
 * page's, so the same fence holds them. Attacked with a site's service worker, real Chromium behind the real proxy:
 * its write is refused in read mode and held in approval mode; it outlives the run's pages, so between runs its fence
 * refuses its reads too, and its context is never kept warm for the next run (where it would write under that run).
 */
jest.setTimeout(60_000);

// The site's service worker: on a message, sends the request asked and answers how it went.
const SW = `
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('message', (e) => e.waitUntil((async () => {
  const { method, path } = e.data;
  let result = 'refused';
  try { result = 'sent ' + (await fetch(path, method === 'GET' ? {} : { method, body: 'x' })).status; } catch {}
  e.source.postMessage(result);
})()));`;

let browser: Browser;
let site: http.Server;
let origin = '';
const received: string[] = [];

beforeAll(async () => {
  browser = await startBrowser();
  site = http.createServer((req, res) => {
    if (req.url === '/sw.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(SW);
    if (req.url !== '/') received.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>site</title>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://sw.localhost:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

const opened: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close().catch(() => undefined)));
  received.length = 0;
});

function runPort(): RunPort {
  return { onBlocked: () => undefined, onChangeSent: () => undefined, report: () => undefined, mainFrame: () => undefined };
}

/** A context fenced as run-session.ts opens one, its fence held by a run, with the site's service worker running. */
async function withServiceWorker(gate: ChangeGate | undefined): Promise<{ context: BrowserContext; wiring: ContextWiring; page: Page }> {
  const policy = EgressPolicy.forProvider({ name: 'SW', homeUrl: `${origin}/`, allowedOrigins: ['sw.localhost'] }, 'sandbox');
  const wiring = new ContextWiring(gate);
  wiring.attach(runPort());
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: wiring.onBlocked,
    gate: wiring,
    onChangeSent: wiring.onChangeSent,
  });
  opened.push(context);
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
  });
  return { context, wiring, page };
}

/** What the page's service worker says of the request it was asked to send. */
const viaServiceWorker = (page: Page, method: string, path: string) =>
  page.evaluate(
    async ({ method, path }) => {
      const registration = await navigator.serviceWorker.ready;
      return new Promise<string>((resolve) => {
        navigator.serviceWorker.onmessage = (e) => resolve(String(e.data));
        registration.active!.postMessage({ method, path });
      });
    },
    { method, path },
  );

it.each<RunMode>(['read'])("a service worker's write is refused in %s mode, as a page's is", async (mode) => {
  const { page } = await withServiceWorker(changeGate(mode));
  expect(await viaServiceWorker(page, 'POST', '/w/sw-write')).toBe('refused');
  expect(await viaServiceWorker(page, 'GET', '/r/sw-read')).toBe('sent 200'); // reads go on in read mode
  expect(received).toEqual(['GET /r/sw-read']);
});

it("a service worker's write waits for approval, unsent, and is sent once approved", async () => {
  const held: HeldWrite[] = [];
  let decide: (why: string | null) => void = () => undefined;
  const approve = (write: HeldWrite) => {
    held.push(write);
    return new Promise<string | null>((resolve) => (decide = resolve));
  };
  const { page } = await withServiceWorker(changeGate('read_write', undefined, approve));
  const first = viaServiceWorker(page, 'POST', '/w/approved');
  for (const until = Date.now() + 10_000; held.length === 0 && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
  expect(held.map((w) => `${w.method} ${new URL(w.url).pathname}`)).toEqual(['POST /w/approved']);
  expect(received).toEqual([]); // held, unsent
  decide(null);
  void first.catch(() => undefined);
  for (const until = Date.now() + 10_000; received.length === 0 && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
  expect(received).toEqual(['POST /w/approved']); // sent once approved
});

it('between runs a service worker can neither read nor write with the session', async () => {
  const { wiring, page } = await withServiceWorker(undefined);
  expect(await viaServiceWorker(page, 'GET', '/r/held')).toBe('sent 200');
  wiring.detach(); // the run let go of the context; its worker still runs
  expect(await viaServiceWorker(page, 'GET', '/r/idle')).toBe('refused');
  expect(await viaServiceWorker(page, 'POST', '/w/idle')).toBe('refused');
  expect(received).toEqual(['GET /r/held']);
});

it('a context a service worker ran in is closed, not kept warm for the next run', async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
  const { context, wiring } = await withServiceWorker(undefined);
  const closed = new Promise((r) => context.once('close', r));
  await pool.keep({ context, wiring, key: 'key', connectionId: 'conn' }, 'digest');
  expect(pool.size).toBe(0);
  await closed; // and its worker with it
  expect(pool.take('key', 'digest')).toBeNull();
  await pool.close();
});
