/**
 * ::before/::after benchmark: what reading CSS-generated text costs the snapshot on a page of web components.
 *
 *   npm run bench:pseudo                      # 200 cards, 40 measured snapshots (after 4 warm-up ones)
 *   npm run bench:pseudo -- --cards 50 --runs 60
 *
 * The page: N product cards, each an open shadow root with its own <style> (`:host::before`, `:host(.sale)
 * .tag::after` text, plain rules), slotted content and a dozen plain elements, as a component library renders
 * them. Side by side in one run, in the page (in-page time, so the CDP round trip is not counted), with the page's
 * styles invalidated before each:
 *   - snapshot: the observation's snapshot as the agent takes it (listener queries on), and how many pseudo-element
 *     styles it read (dom/pseudo.page.ts reads only those a style rule can give text);
 *   - every element asked: reading ::before and ::after of every element of the page and its shadow roots, what the
 *     walk did for each element of a shadow tree before the rules were read.
 * Medians and minimums (the minimum is the least disturbed by other work on a shared machine).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

import type { RawDoc } from '../server/agent/observation/dom/snapshot.page';
import { launchBrowser } from '../server/browser/chromium';
import { loadConfig } from '../server/config';
import { PAGE_ENTRIES } from '../server/page-code/entries';
import { callExpression } from '../server/page-code/page-function';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { cards: { type: 'string', default: '200' }, runs: { type: 'string', default: '40' }, warmup: { type: 'string', default: '4' } },
});
const CARDS = Math.max(1, Number(values.cards));
const RUNS = Math.max(1, Number(values.runs));
const WARMUP = Math.max(0, Number(values.warmup));

function pageHtml(n: number): string {
  const cards = Array.from(
    { length: n },
    (_, i) => `<price-tag${i % 2 ? ' class="sale"' : ''}><span class="unit">${i + 1}</span></price-tag>`,
  );
  return `<!doctype html><html><head><title>Catalogue</title><style>
price-tag { display: block; } .note::before { content: "Note: "; } *, *::before, *::after { box-sizing: border-box; }
</style></head><body><h1>Catalogue</h1><p class="note">prices include tax</p><div>${cards.join('')}</div><script>
customElements.define('price-tag', class extends HTMLElement { connectedCallback() {
  const r = this.attachShadow({ mode: 'open' });
  r.innerHTML = '<style>:host::before { content: "Price "; } :host(.sale) .tag::after { content: " on sale"; } .plain { color: #333; }</style>' +
    '<div class="row"><span class="tag">EUR</span> <slot></slot> <span class="plain">each</span>' +
    '<button type="button"><span class="plain">Add</span> <span class="plain">to cart</span></button>' + '<i class="plain">·</i>'.repeat(6) + '</div>';
}});
</script></body></html>`;
}

/** Reads ::before and ::after of every element of the document and its open shadow roots; returns how many. */
const EVERY_ELEMENT = `(() => {
  let n = 0;
  const walk = (root) => root.querySelectorAll('*').forEach((e) => {
    n += getComputedStyle(e, '::before').content.length >= 0 ? 1 : 0;
    n += getComputedStyle(e, '::after').content.length >= 0 ? 1 : 0;
    if (e.shadowRoot) walk(e.shadowRoot);
  });
  walk(document);
  return n;
})()`;

const timed = (expr: string) =>
  `(() => { document.body.classList.toggle('bench-invalidate'); const t = performance.now(); const r = ${expr}; return { ms: performance.now() - t, r }; })()`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main() {
  const html = pageHtml(CARDS);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await launchBrowser(loadConfig().browser);
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const cdp = await page.context().newCDPSession(page);
    const run = async <T>(expr: string) => {
      const r = await cdp.send('Runtime.evaluate', { expression: timed(expr), includeCommandLineAPI: true, returnByValue: true });
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.text);
      return r.result.value as { ms: number; r: T };
    };
    const snapshot = callExpression(PAGE_ENTRIES.agentDom, 'snapshot', { listeners: true });
    const ms = { snapshot: [] as number[], every: [] as number[] };
    let reads = 0;
    let asked = 0;
    let elements = 0;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      // interleaved, alternating which goes first
      for (const k of i % 2 ? (['snapshot', 'every'] as const) : (['every', 'snapshot'] as const)) {
        if (k === 'snapshot') {
          const s = await run<RawDoc>(snapshot);
          if (i >= WARMUP) ms.snapshot.push(s.ms);
          reads = s.r.pseudo;
          elements = s.r.elements.length;
        } else {
          const e = await run<number>(EVERY_ELEMENT);
          if (i >= WARMUP) ms.every.push(e.ms);
          asked = e.r;
        }
      }
    }
    const f = (xs: number[]) => `median ${median(xs).toFixed(1)} ms, min ${Math.min(...xs).toFixed(1)} ms`;
    console.log(`::before/::after on ${CARDS} web-component cards (${RUNS} runs after ${WARMUP} warm-up, interleaved, in-page time)`);
    console.log(`  snapshot:             ${f(ms.snapshot)}; ${elements} controls listed, ${reads} pseudo-element styles read`);
    console.log(
      `  every element asked:  ${f(ms.every)}; ${asked} pseudo-element styles (the walk used to ask nearly every one it visits in a shadow tree)`,
    );
    console.log(`  reads avoided: ${asked - reads} of ${asked} (${((100 * (asked - reads)) / asked).toFixed(0)} %)`);
  } finally {
    await browser.close();
    server.close();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
