/**
 * Observation benchmark: what the model is shown of a page, against what is on it.
 *
 *   npm run bench:observation                 # 15 measured observations per page (after 2 warm-up ones)
 *   npm run bench:observation -- --runs 30 --missing 10
 *   npm run bench:observation -- --only b:     # the pages whose id starts with "b:" (the breadth corpus)
 *
 * Pages: the realistic corpus (test/fixtures/realistic/, served on loopback and fenced as the agent's runs are), its
 * pattern pages (patterns.ts: nameless icons, suggestion lists, trees, slot grids, untied labels … of issue 24) and
 * the main pages of the sandbox sites Orbit and ForgeHub (a live AgentLink on 127.0.0.1, signed in as user_good).
 * Per page, in one run, side by side:
 *   - the observation as the planner renders it: characters and tokens (≈ chars / 4);
 *   - the page's HTML (the serialized DOM of every frame and shadow root) and its ratio to the observation;
 *   - visible controls present (an independent ground truth from Chromium's accessibility tree and its own
 *     "clickable" bit, bench/observation/ground-truth.ts) vs listed in the observation vs listed with a name;
 *   - the time to observe (snapshot + render): median and p90.
 * Then the targets of issue 12, each PASS or FAIL, and the controls each page's observation misses.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { type PageSnapshot, Redactor, renderSnapshot, takeSnapshot } from '../server/agent/observation';
import { launchBrowser } from '../server/browser/chromium';
import { loadConfig } from '../server/config';
import { EgressPolicy } from '../server/egress/egress-policy';
import { corpusProvider, openCorpusPage, openFencedPage } from '../test/agent-corpus/corpus-harness';
import { BREADTH_PAGES, startBreadthSite } from '../test/fixtures/breadth/server';
import { PATTERN_PAGES } from '../test/fixtures/realistic/patterns';
import { CORPUS_PAGES, startRealisticSites } from '../test/fixtures/realistic/server';
import { startLiveServer } from '../test/support/live-server';
import { auditControls, type ControlAudit } from './observation/ground-truth';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '2' },
    missing: { type: 'string', default: '6' },
    only: { type: 'string' },
  },
});
const RUNS = Math.max(1, Number(values.runs));
const WARMUP = Math.max(0, Number(values.warmup));
const SHOW_MISSING = Math.max(0, Number(values.missing));
const wanted = (id: string) => !values.only || id.startsWith(values.only);
/** Time for what a page does after load (the consent banner mounts, the invoices arrive). */
const SETTLE_MS = 800;

const TARGETS = { namedShare: 1, observeMs: 60, tokens: 1500 };

function quantile(xs: number[], q: number) {
  const s = [...xs].sort((a, b) => a - b);
  if (q === 0.5) {
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  }
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}
const median = (xs: number[]) => quantile(xs, 0.5);

interface Row {
  page: string;
  /** Origin of the page's top frame (controls of other frames are marked). */
  origin: string;
  chars: number;
  tokens: number;
  html: number;
  audit: ControlAudit;
  times: number[];
}

/** The serialized DOM the page is made of: every frame's document and every (nested) shadow root in it. */
const HTML_SIZE = `(() => {
  let size = document.documentElement.outerHTML.length;
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { size += el.shadowRoot.innerHTML.length; walk(el.shadowRoot); }
    }
  };
  walk(document);
  return size;
})()`;

async function htmlSize(page: Page): Promise<number> {
  let total = 0;
  // Source text, not a function: tsx would slip its __name helper into a function the page then cannot run.
  for (const frame of page.frames()) {
    if (/^https?:/.test(frame.url())) total += await frame.evaluate<number>(HTML_SIZE).catch(() => 0);
  }
  return total;
}

async function measure(name: string, page: Page, egress: EgressPolicy): Promise<Row> {
  await page.waitForTimeout(SETTLE_MS);
  // What the planner passes: the run's egress policy (an observation that reads frames reads those of allowed origins).
  const options = { redactor: new Redactor(), egress };
  const times: number[] = [];
  let snapshot: PageSnapshot | undefined;
  let text = '';
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    snapshot = await takeSnapshot(page, options);
    text = renderSnapshot(snapshot);
    const dt = performance.now() - t0;
    if (i >= WARMUP) times.push(dt);
  }
  // The DOM now carries the latest observation's indices: the audit looks them up.
  const audit = await auditControls(page, snapshot!);
  return {
    page: name,
    origin: new URL(page.url()).origin,
    chars: text.length,
    tokens: Math.ceil(text.length / 4),
    html: await htmlSize(page),
    audit,
    times,
  };
}

async function sandboxPages(browser: Browser): Promise<{ rows: Row[]; close(): Promise<void> }> {
  const server = await startLiveServer();
  const rows: Row[] = [];
  try {
    const { organization } = await server.services.organizations.create(`Observation bench ${randomUUID().slice(0, 8)}`);
    for (const slug of ['orbit', 'forgehub'] as const) {
      const storageState = await server.services.siteSessions.mint(
        { organizationId: organization.id, environment: 'sandbox' },
        slug,
        'user_good',
      );
      const context: BrowserContext = await browser.newContext({ storageState, viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        await page.goto(server.siteUrl(slug, '/'), { waitUntil: 'load' });
        const provider = server.services.catalogue.bySlug(slug, 'sandbox')!;
        rows.push(await measure(`${slug} /`, page, EgressPolicy.forProvider(provider, 'sandbox')));
      } finally {
        await context.close();
      }
    }
  } catch (err) {
    await server.close();
    throw err;
  }
  return { rows, close: () => server.close() };
}

const pad = (v: string | number, n: number) => String(v).padStart(n);
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(0)}%` : '-');

function print(rows: Row[]) {
  const head = `${'page'.padEnd(16)} ${pad('obs chars', 9)} ${pad('tokens', 7)} ${pad('HTML chars', 10)} ${pad('HTML/obs', 8)} ${pad('present', 7)} ${pad('listed', 6)} ${pad('named', 5)} ${pad('named%', 6)} ${pad('median', 9)} ${pad('p90', 9)}`;
  const lines = [head, '-'.repeat(head.length)];
  for (const r of rows) {
    lines.push(
      `${r.page.padEnd(16)} ${pad(r.chars, 9)} ${pad(r.tokens, 7)} ${pad(r.html, 10)} ${pad(`${(r.html / Math.max(1, r.chars)).toFixed(1)}×`, 8)} ${pad(r.audit.present, 7)} ${pad(r.audit.listed, 6)} ${pad(r.audit.named, 5)} ${pad(pct(r.audit.named, r.audit.present), 6)} ${pad(`${median(r.times).toFixed(1)} ms`, 9)} ${pad(`${quantile(r.times, 0.9).toFixed(1)} ms`, 9)}`,
    );
  }
  const present = rows.reduce((s, r) => s + r.audit.present, 0);
  const listed = rows.reduce((s, r) => s + r.audit.listed, 0);
  const named = rows.reduce((s, r) => s + r.audit.named, 0);
  const allTimes = rows.flatMap((r) => r.times);
  const tokens = Math.round(median(rows.map((r) => r.tokens)));
  const observe = median(allTimes);
  lines.push('-'.repeat(head.length));
  lines.push(
    `${'all pages'.padEnd(16)} ${pad('', 9)} ${pad(tokens, 7)} ${pad('', 10)} ${pad('', 8)} ${pad(present, 7)} ${pad(listed, 6)} ${pad(named, 5)} ${pad(pct(named, present), 6)} ${pad(`${observe.toFixed(1)} ms`, 9)} ${pad(`${quantile(allTimes, 0.9).toFixed(1)} ms`, 9)}`,
  );
  lines.push(
    '',
    `(${RUNS} measured observations per page after ${WARMUP} warm-up ones; tokens ≈ chars / 4; "all pages" tokens = median over pages)`,
    '',
  );
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  lines.push(
    `target: visible controls listed with a non-empty name = 100%   ${pct(named, present).padStart(5)} (${named}/${present}, listed ${listed})   ${verdict(named >= TARGETS.namedShare * present)}`,
    `target: median time to observe ≤ ${TARGETS.observeMs} ms               ${observe.toFixed(1).padStart(6)} ms         ${verdict(observe <= TARGETS.observeMs)}`,
    `target: median observation ≤ ${TARGETS.tokens} tokens             ${String(tokens).padStart(6)} tokens     ${verdict(tokens <= TARGETS.tokens)}`,
  );
  const breadth = rows.filter((r) => r.page.startsWith('b:'));
  const bPresent = breadth.reduce((s, r) => s + r.audit.present, 0);
  const bNamed = breadth.reduce((s, r) => s + r.audit.named, 0);
  lines.push(
    `breadth corpus (test/fixtures/breadth/, b: rows): ${bNamed}/${bPresent} visible interactive elements listed with a name (${pct(bNamed, bPresent)}); issue 34's target ≥ 80%   ${verdict(bNamed >= 0.8 * bPresent)}`,
  );
  if (SHOW_MISSING) {
    const off = rows.filter((r) => r.audit.controls.some((c) => !c.named));
    lines.push('', `Controls present but not listed (×) or listed without a name (∅), per page:${off.length ? '' : ' none'}`);
    for (const r of rows) {
      const off = r.audit.controls.filter((c) => !c.named);
      if (!off.length) continue;
      const shown = off
        .slice(0, SHOW_MISSING)
        .map(
          (c) =>
            `${c.listed ? '∅' : '×'} ${c.role} '${c.name.slice(0, 40)}'${c.frame === r.origin ? '' : ` (frame ${new URL(c.frame).host})`}`,
        );
      lines.push(`  ${r.page}: ${shown.join(', ')}${off.length > SHOW_MISSING ? `, … ${off.length - SHOW_MISSING} more` : ''}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main() {
  const browser = await launchBrowser(loadConfig().browser);
  const sites = await startRealisticSites();
  const breadth = await startBreadthSite();
  const rows: Row[] = [];
  let sandbox: { rows: Row[]; close(): Promise<void> } | undefined;
  try {
    for (const p of CORPUS_PAGES.filter((c) => wanted(c.id))) {
      const { context, page, provider } = await openCorpusPage({ sites, browser }, p.path);
      try {
        rows.push(await measure(p.id, page, EgressPolicy.forProvider(provider, 'sandbox')));
      } finally {
        await context.close();
      }
    }
    for (const p of PATTERN_PAGES.filter((c) => wanted(c.id))) {
      const { context, page, provider } = await openCorpusPage({ sites, browser }, p.path);
      try {
        await p.prepare?.(page);
        rows.push(await measure(p.id, page, EgressPolicy.forProvider(provider, 'sandbox')));
      } finally {
        await context.close();
      }
    }
    for (const p of BREADTH_PAGES.filter((c) => wanted(c.id))) {
      const provider = { ...corpusProvider({ shop: breadth.origin }), name: 'Breadth corpus', homeUrl: breadth.url('/') };
      const { context, page } = await openFencedPage(browser, { ...provider, allowedOrigins: [breadth.origin] }, breadth.url(p.path));
      try {
        rows.push(await measure(p.id, page, EgressPolicy.forProvider({ ...provider, allowedOrigins: [breadth.origin] }, 'sandbox')));
      } finally {
        await context.close();
      }
    }
    if (wanted('orbit /') || wanted('forgehub /')) {
      sandbox = await sandboxPages(browser);
      rows.push(...sandbox.rows);
    }
    print(rows);
  } finally {
    await browser.close();
    await sites.close();
    await breadth.close();
    await sandbox?.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
