import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser } from 'playwright-core';

import { clearHttpCache } from '../../server/browser/http-cache';
import { startBrowser } from '../support/live-server';

/**
 * A run's context caches as a browser does (no route turns its cache off); a context kept warm for the next run is
 * emptied as that run takes it (run-session.ts), so the next run never reads an answer the last one cached.
 */
let browser: Browser;
let site: http.Server;
let origin: string;
let hits = 0;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (req.url === '/list') {
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' }).end(JSON.stringify({ hits }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>cache</title>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  browser = await startBrowser();
});

afterAll(async () => {
  await browser?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
});

it("empties the context's HTTP cache: a cached answer is fetched again, and another context's cache is left alone", async () => {
  const [kept, other] = [await browser.newContext(), await browser.newContext()];
  try {
    const read = (page: Awaited<ReturnType<typeof kept.newPage>>) =>
      page.evaluate(() => fetch('/list').then((r) => r.json() as Promise<{ hits: number }>));
    const page = await kept.newPage();
    await page.goto(`${origin}/`);
    expect(await read(page)).toEqual({ hits: 1 });
    expect(await read(page)).toEqual({ hits: 1 }); // from the cache
    const otherPage = await other.newPage();
    await otherPage.goto(`${origin}/`);
    expect(await read(otherPage)).toEqual({ hits: 2 });

    await clearHttpCache(page);
    expect(await read(page)).toEqual({ hits: 3 });
    expect(await read(otherPage)).toEqual({ hits: 2 }); // still cached there
  } finally {
    await Promise.all([kept.close(), other.close()]);
  }
});
