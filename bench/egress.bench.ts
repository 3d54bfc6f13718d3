/**
 * Egress bench: what opening the browser's TLS tunnels at the egress proxy costs (issue: read mode and "never repeat
 * a change" in every realm, decided at the network), measured side by side in one run on one Chromium.
 *
 *   npm run bench:egress                        # 21 interleaved runs of each row, 16 contexts for memory
 *   npm run bench:egress -- --runs 41 --contexts 32
 *
 * The site is an HTTPS app on loopback in a process of its own (bench/servers/tls-app.server.ts, its own CA): a page with a stylesheet, two scripts,
 * four images, a JSON read and a JSON write (POST), like a small app's first screen. Each run opens a fresh context,
 * loads the page until its write has been answered, and closes the context. Rows:
 *   - direct: no proxy (the browser's own TLS; the floor);
 *   - blind tunnel: a per-context CONNECT proxy that only pipes bytes (what the egress proxy did before it opened
 *     tunnels: it saw host:port, never a method);
 *   - egress proxy: the real fenced context (server/egress/fenced-context.ts): TLS terminated with the process's
 *     interception CA, each request checked, the upstream certificate verified by the proxy, writes counted;
 *   - egress proxy, read mode: the same with the read-mode gate (the POST is refused: the page sees a network error, and
 *     Chromium sends it again on each reused connection it has, each one refused too).
 * Then memory: N fenced contexts held open at once with the page loaded; the growth of Chromium's PSS and of this
 * process's RSS over the same browser with no context, divided by N (the proxy's share is in the RSS).
 */
import http from 'node:http';
import net from 'node:net';
import { parseArgs } from 'node:util';

import type { Browser, BrowserContext } from 'playwright-core';

import { changeGate } from '../server/agent/run/network-guard';
import { launchBrowser } from '../server/browser/chromium';
import { EgressPolicy } from '../server/egress/egress-policy';
import { openFencedContext } from '../server/egress/fenced-context';
import { descendants, pssBytes } from './agent/process-tree';
import { cleanup, startServer } from './api/child-servers';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: 'string' }, contexts: { type: 'string' } },
});
const RUNS = Number(values.runs ?? 21);
const CONTEXTS = Number(values.contexts ?? 16);
const HOST = 'app.localhost';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The former design, for comparison: a CONNECT proxy that checks nothing inside and pipes bytes both ways. */
async function startBlindTunnel(sitePort: number): Promise<{ server: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const proxy = http.createServer();
  proxy.on('connect', (_req, socket: net.Socket, head: Buffer) => {
    sockets.add(socket);
    const upstream = net.connect(sitePort, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    server: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        proxy.close(() => r());
      }),
  };
}

type Row = 'direct' | 'blind tunnel' | 'egress proxy' | 'egress proxy, read mode';
const ROWS: Row[] = ['direct', 'blind tunnel', 'egress proxy', 'egress proxy, read mode'];

async function main() {
  // The site runs in a process of its own, as a real upstream would: its TLS work is not the proxy's.
  const site = await startServer('tls app', 'tls-app.server.ts', { BENCH_HOST: HOST });
  const sitePort = site.ready.port;
  const caPem = site.ready.caPem!;
  const url = `https://${HOST}:${sitePort}/`;
  const policy = EgressPolicy.forProvider({ name: 'App', homeUrl: url, allowedOrigins: [HOST] }, 'sandbox');
  const browser: Browser = await launchBrowser({});
  let changes = 0;
  let refused = 0;

  const open = async (row: Row): Promise<{ context: BrowserContext; done(): Promise<void> }> => {
    if (row === 'direct') {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      return { context, done: async () => undefined };
    }
    if (row === 'blind tunnel') {
      const tunnel = await startBlindTunnel(sitePort);
      const context = await browser.newContext({ ignoreHTTPSErrors: true, proxy: { server: tunnel.server, bypass: '<-loopback>' } });
      return { context, done: () => tunnel.close() };
    }
    const context = await openFencedContext(browser, {
      policy,
      onBlocked: () => (refused += 1),
      onChangeSent: () => (changes += 1),
      gate: changeGate(row === 'egress proxy, read mode' ? 'read' : 'read_write'),
      upstreamCa: [caPem],
    });
    return { context, done: async () => undefined };
  };

  const once = async (row: Row): Promise<number> => {
    const started = performance.now();
    const { context, done } = await open(row);
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true);
    await context.close();
    const ms = performance.now() - started;
    await done();
    return ms;
  };

  // Warm-up: each row twice (the CA's leaf for the host is issued on the first intercepted run).
  for (let i = 0; i < 2; i++) for (const row of ROWS) await once(row);
  changes = 0;
  refused = 0;
  const times: Record<Row, number[]> = { direct: [], 'blind tunnel': [], 'egress proxy': [], 'egress proxy, read mode': [] };
  for (let i = 0; i < RUNS; i++) for (const row of ROWS) times[row].push(await once(row));

  console.log(`\nEgress bench: an HTTPS app page (html, css, 2 scripts, 4 images, a JSON read and a POST), fresh context each run`);
  console.log(`${RUNS} interleaved runs per row, after 2 warm-ups; Chromium ${browser.version()}\n`);
  const floor = median(times['blind tunnel']);
  const direct = median(times.direct);
  console.log(`  ${'row'.padEnd(26)} ${'median'.padStart(8)}  ${'× tunnel'.padStart(8)}  ${'× direct'.padStart(8)}`);
  for (const row of ROWS) {
    const m = median(times[row]);
    console.log(
      `  ${row.padEnd(26)} ${`${m.toFixed(1)} ms`.padStart(8)}  ${(m / floor).toFixed(2).padStart(8)}  ${(m / direct).toFixed(2).padStart(8)}`,
    );
  }
  console.log(
    `\n  writes counted as changes sent: ${changes} (expected ${RUNS}); writes refused in read mode: ${refused} (${RUNS} writes, each refused with Chromium's retries of it)`,
  );

  // Memory per context: the same browser, N fenced contexts holding the page at once.
  const chromiumPss = () => pssBytes(descendants(process.pid));
  const settle = () => new Promise((r) => setTimeout(r, 1500));
  global.gc?.();
  await settle();
  const before = { pss: chromiumPss(), rss: process.memoryUsage.rss() };
  const held: BrowserContext[] = [];
  for (let i = 0; i < CONTEXTS; i++) {
    const { context } = await open('egress proxy');
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true);
    held.push(context);
  }
  await settle();
  const after = { pss: chromiumPss(), rss: process.memoryUsage.rss() };
  console.log(`\n  memory, ${CONTEXTS} fenced contexts held open with the page loaded:`);
  console.log(`    Chromium PSS: ${mb(before.pss)} MB → ${mb(after.pss)} MB: ${mb((after.pss - before.pss) / CONTEXTS)} MB per context`);
  console.log(
    `    this process RSS (egress proxies): ${mb(before.rss)} MB → ${mb(after.rss)} MB: ${mb((after.rss - before.rss) / CONTEXTS)} MB per context\n`,
  );
  await Promise.all(held.map((c) => c.close()));
  await browser.close();
  await cleanup();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
