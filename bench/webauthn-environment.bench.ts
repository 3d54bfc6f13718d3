/**
 * WebAuthn environment benchmark: what giving every page a WebAuthn environment (server/browser/webauthn-environment.ts)
 * costs a context of the browser manager, side by side with a bare context of a second browser started the same way
 * but not armed (the environment is armed per browser, so a bare context of the same browser would have it too).
 *
 *   npm run bench:webauthn                  # 15 measured rounds (after 2 warm-ups), the two ways interleaved
 *   npm run bench:webauthn -- --runs 30
 *
 * Per round and way: a fresh context and page (bare: newContext + newPage of the unarmed browser; ours:
 * BrowserManager.newContext + newPage, each page held until its environment is there), then a load of a loopback page
 * with 20 subresources. Printed: median milliseconds to a usable page, to the load, and the ratios.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

import { BrowserManager } from '../server/browser/browser-manager';
import { launchBrowser } from '../server/browser/chromium';
import { loadConfig } from '../server/config';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: 'string', default: '15' }, warmup: { type: 'string', default: '2' } },
});
const RUNS = Math.max(1, Number(values.runs));
const WARMUP = Math.max(0, Number(values.warmup));
const SUBRESOURCES = 20;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const PAGE = `<!doctype html><title>bench</title>${Array.from({ length: SUBRESOURCES }, (_, i) => `<img src="/img/${i}.svg">`).join('')}`;
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>';

async function main(): Promise<void> {
  const site = http.createServer((req, res) => {
    if (req.url?.startsWith('/img/')) res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  const browsers = new BrowserManager(loadConfig().browser);
  const browser = await launchBrowser(loadConfig().browser);

  const times = { bare: { page: [] as number[], load: [] as number[] }, ours: { page: [] as number[], load: [] as number[] } };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const way of ['bare', 'ours'] as const) {
      const t0 = performance.now();
      const context = way === 'bare' ? await browser.newContext() : await browsers.newContext();
      const page = await context.newPage();
      const t1 = performance.now();
      await page.goto(url, { waitUntil: 'load' });
      const t2 = performance.now();
      await context.close();
      if (i < WARMUP) continue;
      times[way].page.push(t1 - t0);
      times[way].load.push(t2 - t1);
    }
  }
  await browsers.close();
  await browser.close();
  site.close();

  const row = (label: string, bare: number[], ours: number[]) =>
    console.log(
      `${label.padEnd(28)} bare ${median(bare).toFixed(1).padStart(7)} ms   with environment ${median(ours).toFixed(1).padStart(7)} ms   ratio ${(median(ours) / median(bare)).toFixed(2)}`,
    );
  console.log(`WebAuthn environment, ${RUNS} rounds (medians, ${WARMUP} warm-ups dropped)`);
  row('context + page ready', times.bare.page, times.ours.page);
  row(`load (${SUBRESOURCES} subresources)`, times.bare.load, times.ours.load);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
