/**
 * What a paused approval run's page costs while its person decides, by how its picture is kept (page-still.ts).
 *
 *   npm run bench:held-page                 # 3 rounds of 8 s each way, 10 stills
 *   npm run bench:held-page -- --rounds 5 --seconds 10
 *
 * The page (1280×800, as a run's) posts a form to a loopback server that never answers (a write held at the network)
 * and shows a spinner meanwhile, as most pages do. Measured side by side, rounds interleaved, as the machine's busy CPU
 * (/proc/stat: everything, Chromium's processes included) per second of the wait:
 *   - nothing kept (the floor: the page's own animation);
 *   - a screencast kept running on the page (how approval runs kept their picture before: every repaint captured);
 *   - one still as the run pauses (pageStill: Page.captureScreenshot, answered while the navigation is pending).
 * Then the still's own time, median and p90 of --stills, on the page with its post pending.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

import type { Browser, Page } from 'playwright-core';

import { pageStill } from '../server/agent/handoff/page-still';
import { launchBrowser } from '../server/browser/chromium';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    stills: { type: 'string', default: '10' },
  },
});
const ROUNDS = Math.min(20, Math.max(1, Number(values.rounds)));
const SECONDS = Math.min(60, Math.max(2, Number(values.seconds)));
const STILLS = Math.min(100, Math.max(3, Number(values.stills)));

const PAGE = `<!doctype html><style>@keyframes r{to{transform:rotate(360deg)}}
.s{display:none;width:40px;height:40px;border:4px solid #ccc;border-top-color:#4f46e5;border-radius:50%;animation:r .9s linear infinite}
form.sending .s{display:block}</style>
<h1>New post</h1><form method=post action=/post onsubmit="this.classList.add('sending')">
<textarea name=text>Hello</textarea><button>Post</button><div class=s></div></form>`;

/** Machine busy CPU-seconds so far (all processes). */
function busyCpuSeconds(): number {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]!) / 100;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** A page whose form post is held (never answered), its spinner turning; `beforePost` runs before the post. */
async function heldPage(browser: Browser, base: string, beforePost?: (page: Page) => Promise<void>): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(base);
  await beforePost?.(page);
  await page.click('button', { noWaitAfter: true });
  await page.waitForTimeout(300);
  return page;
}

type Way = 'nothing kept' | 'screencast kept running' | 'one still as it pauses';

async function cpuPerSecond(browser: Browser, base: string, way: Way): Promise<number> {
  // Started before the post, as the frame keeper did: a screencast cannot start once the navigation is pending.
  const screencast = async (page: Page) => {
    const cdp = await page.context().newCDPSession(page);
    cdp.on('Page.screencastFrame', (f: { data: string; sessionId: number }) => {
      Buffer.from(f.data, 'base64');
      void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => undefined);
    });
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 60, maxWidth: 1280, maxHeight: 800 });
  };
  const page = await heldPage(browser, base, way === 'screencast kept running' ? screencast : undefined);
  if (way === 'one still as it pauses') {
    if (!(await pageStill(page))) throw new Error('no still of the held page');
  }
  await page.waitForTimeout(500);
  const before = busyCpuSeconds();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const used = busyCpuSeconds() - before;
  await page.context().close();
  return used / SECONDS;
}

async function main(): Promise<void> {
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') return; // held: the person has not decided
    res.setHeader('content-type', 'text/html');
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await launchBrowser({});
  try {
    const ways: Way[] = ['nothing kept', 'screencast kept running', 'one still as it pauses'];
    const cpu = new Map<Way, number[]>(ways.map((w) => [w, []]));
    for (let round = 0; round < ROUNDS; round++) for (const way of ways) cpu.get(way)!.push(await cpuPerSecond(browser, base, way));
    console.log(
      `A held form post's page with a spinner, 1280×800: machine CPU-s per second of the wait (${ROUNDS} rounds of ${SECONDS} s)`,
    );
    const floor = quantile(cpu.get('nothing kept')!, 0.5);
    for (const way of ways) {
      const median = quantile(cpu.get(way)!, 0.5);
      console.log(`  ${way.padEnd(26)} ${median.toFixed(3)} CPU-s/s   ${(median / floor).toFixed(1)} x nothing kept`);
    }
    const page = await heldPage(browser, base);
    const times: number[] = [];
    for (let i = 0; i < STILLS; i++) {
      const t0 = performance.now();
      if (!(await pageStill(page))) throw new Error('no still of the held page');
      times.push(performance.now() - t0);
    }
    console.log(
      `The still, its post pending (${STILLS}): median ${quantile(times, 0.5).toFixed(0)} ms, p90 ${quantile(times, 0.9).toFixed(0)} ms`,
    );
  } finally {
    await browser.close();
    server.closeAllConnections();
    server.close();
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
