/**
 * Ready-page benchmark: what waiting for a page to draw its content (server/browser/page-ready.ts) costs before the
 * planner's first observation, and what it buys.
 *
 *   npm run bench:page-ready                 # 10 measured loads per page and way (after 1 warm-up), interleaved
 *   npm run bench:page-ready -- --runs 20
 *
 * Pages: the sandbox sites' main pages (a live AgentLink on 127.0.0.1, signed in as user_good) and the realistic
 * corpus (test/fixtures/realistic/, fenced as the agent's runs are). Per page, side by side in one run, each load a
 * fresh navigation (waitUntil: domcontentloaded, as the worker opens the starting URL), then:
 *   - now: the observation at once (snapshot + render), as the planner did before;
 *   - ready: waitForReady, then the observation, as the planner does now.
 * Printed: the median time from the load to the observation each way, the added median, how many loads were ready
 * within the budget, and the median size of the observation each way (a page that renders after its load shows more).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import type { Browser, Page } from 'playwright-core';

import { Redactor, renderSnapshot, takeSnapshot } from '../server/agent/observation';
import { launchBrowser } from '../server/browser/chromium';
import { waitForReady } from '../server/browser/page-ready';
import { loadConfig } from '../server/config';
import { EgressPolicy } from '../server/egress/egress-policy';
import { openCorpusPage } from '../test/agent-corpus/corpus-harness';
import { CORPUS_PAGES, startRealisticSites } from '../test/fixtures/realistic/server';
import { startLiveServer } from '../test/support/live-server';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: 'string', default: '10' }, warmup: { type: 'string', default: '1' } },
});
const RUNS = Math.max(1, Number(values.runs));
const WARMUP = Math.max(0, Number(values.warmup));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Row {
  page: string;
  now: number[];
  ready: number[];
  nowChars: number[];
  readyChars: number[];
  readyCount: number;
}

async function measure(name: string, page: Page, url: string, egress: EgressPolicy): Promise<Row> {
  const row: Row = { page: name, now: [], ready: [], nowChars: [], readyChars: [], readyCount: 0 };
  const options = { redactor: new Redactor(), egress };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const way of ['now', 'ready'] as const) {
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      const t0 = performance.now();
      let ready = true;
      if (way === 'ready') ready = (await waitForReady(page)).ready;
      const chars = renderSnapshot(await takeSnapshot(page, options)).length;
      const dt = performance.now() - t0;
      if (i < WARMUP) continue;
      row[way].push(dt);
      row[way === 'now' ? 'nowChars' : 'readyChars'].push(chars);
      if (way === 'ready' && ready) row.readyCount += 1;
    }
  }
  return row;
}

async function sandboxRows(browser: Browser): Promise<Row[]> {
  const server = await startLiveServer();
  const rows: Row[] = [];
  try {
    const { organization } = await server.services.organizations.create(`Ready bench ${randomUUID().slice(0, 8)}`);
    for (const [slug, path] of [
      ['orbit', '/'],
      ['orbit', '/me'],
      ['forgehub', '/'],
    ] as const) {
      const storageState = await server.services.siteSessions.mint(
        { organizationId: organization.id, environment: 'sandbox' },
        slug,
        'user_good',
      );
      const context = await browser.newContext({ storageState, viewport: { width: 1280, height: 900 } });
      try {
        const provider = server.services.catalogue.bySlug(slug, 'sandbox')!;
        const page = await context.newPage();
        rows.push(await measure(`${slug} ${path}`, page, server.siteUrl(slug, path), EgressPolicy.forProvider(provider, 'sandbox')));
      } finally {
        await context.close();
      }
    }
  } finally {
    await server.close();
  }
  return rows;
}

async function main() {
  const browser = await launchBrowser(loadConfig().browser);
  const sites = await startRealisticSites();
  const rows: Row[] = [];
  try {
    rows.push(...(await sandboxRows(browser)));
    for (const p of CORPUS_PAGES) {
      const { context, page, provider, startingUrl } = await openCorpusPage({ sites, browser }, p.path);
      try {
        rows.push(await measure(`corpus ${p.id}`, page, startingUrl, EgressPolicy.forProvider(provider, 'sandbox')));
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await sites.close();
  }
  const ms = (x: number) => `${x.toFixed(0).padStart(5)} ms`;
  const lines = [
    '',
    `Ready pages: load → first observation, ${RUNS} loads per page and way, medians (now = observed at DOMContentLoaded; ready = waitForReady first)`,
    `  ${'page'.padEnd(22)} ${'now'.padStart(8)} ${'ready'.padStart(8)} ${'added'.padStart(8)}  ready/loads  ${'chars now'.padStart(9)} ${'chars ready'.padStart(11)}`,
  ];
  for (const r of rows) {
    lines.push(
      `  ${r.page.padEnd(22)} ${ms(median(r.now))} ${ms(median(r.ready))} ${ms(median(r.ready) - median(r.now))}  ${`${r.readyCount}/${r.ready.length}`.padStart(11)}  ${String(median(r.nowChars)).padStart(9)} ${String(median(r.readyChars)).padStart(11)}`,
    );
  }
  const sandbox = rows.filter((r) => !r.page.startsWith('corpus'));
  lines.push(
    '',
    `  sandbox pages: median added ${median(sandbox.map((r) => median(r.ready) - median(r.now))).toFixed(0)} ms per first observation; all pages: ${rows.reduce((n, r) => n + r.readyCount, 0)}/${rows.reduce((n, r) => n + r.ready.length, 0)} loads ready within the budget`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
