/**
 * Device benchmark (issue #36): how a connection's device fares with the open-source detectors real sites load, and
 * what presenting it costs.
 *
 *   npm run bench:device                        # 5 runs of each of 8 connections, and a plain context for comparison
 *   npm run bench:device -- --runs 10 --connections 20
 *
 * A loopback site (test/support/detector-site.ts) loads FingerprintJS BotD 2, FingerprintJS 5, fpscanner 1.0.2 and a
 * probe of its own (page, dedicated worker, service worker, request headers, a debugger reading what the page logs,
 * traces of ours). Each run is a fresh fenced context (its own egress
 * proxy, as a run's), with the connection's device (chooseDevice, as a new connection draws it). Printed:
 *   - BotD's verdict (runs judged a bot / all), and the detectors that fired, for the devices and for a plain context;
 *   - fpscanner's fast bot detection: runs where any rule fired, and which (target none);
 *   - visitorId stability: distinct ids per connection over its runs (target 1), distinct ids over the connections
 *     (target: as many as connections);
 *   - contradictions and traces the probe found (target none);
 *   - cost, medians side by side: building the device's identity (Node), opening a fenced context with and without
 *     it, and running the device's prelude in a document (what every page and worker pays at its start).
 */
import { parseArgs } from 'node:util';

import type { Browser } from 'playwright-core';

import { launchBrowser } from '../server/browser/chromium';
import { deviceIdentity } from '../server/browser/device-identity';
import { chooseDevice } from '../server/browser/device-profile';
import { loadConfig } from '../server/config';
import { EgressPolicy } from '../server/egress/egress-policy';
import { openFencedContext } from '../server/egress/fenced-context';
import { detect, startDetectorSite } from '../test/support/detector-site';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: 'string', default: '5' }, connections: { type: 'string', default: '8' } },
});
const RUNS = Math.max(1, Number(values.runs));
const CONNECTIONS = Math.max(1, Number(values.connections));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const ms = (n: number) => `${n.toFixed(3)} ms`;

async function main() {
  const site = await startDetectorSite();
  const browser: Browser = await launchBrowser(loadConfig().browser);
  const policy = EgressPolicy.forProvider(
    { name: 'Invoices', homeUrl: `${site.origin}/`, allowedOrigins: ['detector.localhost'] },
    'sandbox',
  );
  try {
    // A plain context (the browser's own identity, fenced the same way), for comparison.
    const plain = await openFencedContext(browser, {
      policy,
      onBlocked: () => undefined,
      options: { viewport: { width: 1280, height: 900 } },
    });
    const base = await detect(plain, site.origin);
    await plain.close();

    const ids = new Map<string, Set<string>>();
    let bots = 0;
    let scannedBots = 0;
    const scannerRules = new Set<string>();
    const detectors = new Set<string>();
    const contradictions = new Map<string, number>();
    const traces = new Set<string>();
    const build: number[] = [];
    const openWith: number[] = [];
    const openWithout: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      for (let c = 0; c < CONNECTIONS; c++) {
        const connection = `bench-connection-${c}`;
        const device = chooseDevice(connection, browser.version());
        let t = performance.now();
        const identity = deviceIdentity(device);
        build.push(performance.now() - t);
        // Opening side by side: the same fence, with the device and without, in alternating order.
        const openBare = async () => {
          const t0 = performance.now();
          const bare = await openFencedContext(browser, { policy, onBlocked: () => undefined });
          openWithout.push(performance.now() - t0);
          await bare.close();
        };
        if (run % 2 === 0) await openBare();
        t = performance.now();
        const context = await openFencedContext(browser, { policy, onBlocked: () => undefined, identity });
        openWith.push(performance.now() - t);
        if (run % 2 === 1) await openBare();
        const found = await detect(context, site.origin);
        await context.close();
        if (found.bot) bots++;
        if (found.fpscanner.length) scannedBots++;
        found.fpscanner.forEach((r) => scannerRules.add(r));
        found.detectors.forEach((d) => detectors.add(d));
        found.contradictions.forEach((x) => contradictions.set(x, (contradictions.get(x) ?? 0) + 1));
        found.traces.forEach((x) => traces.add(x));
        if (!ids.has(connection)) ids.set(connection, new Set());
        ids.get(connection)!.add(found.visitorId);
      }
    }

    // The prelude's own run, in a fresh document each time (what each page and worker of a device's context pays).
    const prelude: number[] = [];
    const probe = await browser.newContext();
    const page = await probe.newPage();
    for (let i = 0; i < 20; i++) {
      await page.goto('about:blank');
      const script = deviceIdentity(chooseDevice(`bench-prelude-${i}`, browser.version())).script;
      prelude.push(await page.evaluate((s) => ((t) => ((0, eval)(s), performance.now() - t))(performance.now()), script));
    }
    await probe.close();

    const total = RUNS * CONNECTIONS;
    const perConnection = [...ids.values()].map((s) => s.size);
    const distinct = new Set([...ids.values()].flatMap((s) => [...s])).size;
    console.log(`device bench: ${CONNECTIONS} connections x ${RUNS} runs, Chromium ${browser.version()}`);
    console.log(
      `  plain context:   BotD bot=${base.bot} detectors=[${base.detectors.join(', ')}] contradictions=${base.contradictions.length} [${base.contradictions.join('; ')}] fpscanner=[${base.fpscanner.join(', ')}]`,
    );
    console.log(`  device contexts: BotD bot in ${bots}/${total} runs; detectors fired: [${[...detectors].join(', ')}]`);
    console.log(`  fpscanner: a rule fired in ${scannedBots}/${total} runs: [${[...scannerRules].join(', ')}]`);
    console.log(
      `  visitorId: ids per connection max ${Math.max(...perConnection)} (target 1); distinct over connections ${distinct}/${CONNECTIONS}`,
    );
    console.log(`  contradictions: ${contradictions.size ? [...contradictions].map(([k, n]) => `${k} (${n})`).join('; ') : 'none'}`);
    console.log(`  traces of ours in the page: ${traces.size ? [...traces].join('; ') : 'none'}`);
    console.log(
      `  cost (medians): identity built ${ms(median(build))}; fenced context opened ${ms(median(openWith))} with the device vs ${ms(median(openWithout))} without (device work ${ms(median(openWith) - median(openWithout))} per context); prelude ${ms(median(prelude))} per document`,
    );
  } finally {
    await browser.close();
    await site.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
