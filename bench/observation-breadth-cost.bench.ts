/**
 * What the observation's breadth parts (issue 34) cost, side by side with the whole observation, in one run:
 *
 *   npx tsx bench/observation-breadth-cost.bench.ts [--runs 15]
 *
 * Per page of the realistic corpus, its pattern pages and the breadth corpus (test/fixtures/breadth/): the median
 * time of one observation (takeSnapshot + render, as bench:observation measures it) and, evaluated in the same page
 * through CDP with the command-line API (as the snapshot is), the mean time of reading jQuery's registry of
 * delegated selectors (delegation.page.ts) and of looking for SVG shapes with listeners (svg.page.ts), and their
 * share of the observation.
 */
import { parseArgs } from 'node:util';

import { Redactor, renderSnapshot, takeSnapshot } from '../server/agent/observation';
import { launchBrowser } from '../server/browser/chromium';
import { loadConfig } from '../server/config';
import { bundleNow } from '../server/page-code/page-bundle';
import { openFencedPage } from '../test/agent-corpus/corpus-harness';
import { corpusProvider } from '../test/agent-corpus/corpus-harness';
import { BREADTH_PAGES, startBreadthSite } from '../test/fixtures/breadth/server';
import { PATTERN_PAGES } from '../test/fixtures/realistic/patterns';
import { CORPUS_PAGES, startRealisticSites } from '../test/fixtures/realistic/server';

const { values } = parseArgs({ args: process.argv.slice(2), options: { runs: { type: 'string', default: '15' } } });
const RUNS = Math.max(3, Number(values.runs));
/** Runs of the breadth parts alone (fast: many, for the page's coarse clock). */
const PART_RUNS = 200;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const code = bundleNow({ file: 'bench/observation/breadth-cost.page.ts', kind: 'function' });
  const browser = await launchBrowser(loadConfig().browser);
  const [sites, breadth] = await Promise.all([startRealisticSites(), startBreadthSite()]);
  const pages = [
    ...[...CORPUS_PAGES, ...PATTERN_PAGES].map((p) => ({ id: p.id, url: sites.url(p.path), origin: new URL(sites.shop).origin })),
    ...BREADTH_PAGES.map((p) => ({ id: p.id, url: breadth.url(p.path), origin: breadth.origin })),
  ];
  const lines = [
    `${'page'.padEnd(16)} ${'observe'.padStart(9)} ${'registry'.padStart(9)} ${'svg'.padStart(9)} ${'share'.padStart(6)} targets shapes`,
  ];
  const obsAll: number[] = [];
  const addAll: number[] = [];
  try {
    for (const p of pages) {
      const provider = { ...corpusProvider({ shop: p.origin }), allowedOrigins: [p.origin] };
      const { context, page } = await openFencedPage(browser, provider, p.url);
      try {
        await page.waitForTimeout(500);
        const times: number[] = [];
        for (let i = 0; i < RUNS + 2; i++) {
          const t0 = performance.now();
          renderSnapshot(await takeSnapshot(page, { redactor: new Redactor() }));
          if (i >= 2) times.push(performance.now() - t0);
        }
        const cdp = await context.newCDPSession(page);
        const r = (await cdp.send('Runtime.evaluate', {
          expression: `(${code})({ runs: ${PART_RUNS} })`,
          includeCommandLineAPI: true,
          returnByValue: true,
        })) as { result: { value: { registryMs: number; svgMs: number; targets: number; shapes: number } } };
        await cdp.detach();
        const v = r.result.value;
        const obs = median(times);
        obsAll.push(obs);
        addAll.push(v.registryMs + v.svgMs);
        lines.push(
          `${p.id.padEnd(16)} ${`${obs.toFixed(1)} ms`.padStart(9)} ${`${v.registryMs.toFixed(3)} ms`.padStart(9)} ${`${v.svgMs.toFixed(3)} ms`.padStart(9)} ${`${((100 * (v.registryMs + v.svgMs)) / obs).toFixed(1)}%`.padStart(6)} ${String(v.targets).padStart(7)} ${String(v.shapes).padStart(6)}`,
        );
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await sites.close();
    await breadth.close();
  }
  lines.push(
    '',
    `median over pages: observation ${median(obsAll).toFixed(1)} ms, breadth parts ${median(addAll).toFixed(3)} ms (${((100 * median(addAll)) / median(obsAll)).toFixed(1)}%); ${RUNS} observations and ${PART_RUNS} runs of the parts per page, side by side in one run`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
