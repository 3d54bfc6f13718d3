import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { RunIntegrity } from '../../server/agent/run/integrity';
import {
  type BlockedRequest,
  blockReporter,
  changeGate,
  fromProxy,
  type RunMode,
  watchRefusals,
} from '../../server/agent/run/network-guard';
import { refusalReports } from '../../server/agent/run/refusal-join';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { eventually } from '../agent/agent-support';
import { startBrowser } from '../support/live-server';

/**
 * The browser fence at the network layer, attacked through a real Chromium: an allowed site (site.localhost on one
 * loopback port) tries every way out to a listener on another loopback port, and to its own port under other
 * names. The listener must receive nothing; the site must never be asked for under a name that is not its own.
 */
let browser: Browser;
let site: http.Server;
let victim: http.Server;
let sitePort = 0;
let victimPort = 0;
const victimHits: string[] = [];
const siteHosts: string[] = [];
const siteMethods: string[] = [];

const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

beforeAll(async () => {
  victim = http.createServer((req, res) => {
    victimHits.push(`${req.method} ${req.url}`);
    res.end('secret');
  });
  victim.on('upgrade', (req, socket) => {
    victimHits.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((r) => victim.listen(0, '127.0.0.1', r));
  victimPort = (victim.address() as AddressInfo).port;
  const off = `http://127.0.0.1:${victimPort}`;
  site = http.createServer((req, res) => {
    siteHosts.push(String(req.headers.host));
    siteMethods.push(`${req.method} ${req.url}`);
    const path = (req.url ?? '/').split('?')[0];
    const html = (b: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(b));
    switch (path) {
      case '/redirect':
        return res.writeHead(302, { location: `${off}/from-302` }).end();
      case '/chain':
        return res.writeHead(307, { location: '/chain2' }).end();
      case '/chain2':
        return res.writeHead(307, { location: `${off}/from-307` }).end();
      case '/meta':
        return html(`<meta http-equiv="refresh" content="0;url=${off}/from-meta">`);
      case '/js':
        return html(`<script>location = '${off}/from-js'</script>`);
      case '/sub':
        return html(
          `<img src="${off}/img"><iframe src="${off}/iframe"></iframe>` +
            `<script>fetch('${off}/fetch').catch(()=>{});` +
            `const x=new XMLHttpRequest();x.open('GET','${off}/xhr');x.send();` +
            `try{new WebSocket('ws://127.0.0.1:${victimPort}/ws')}catch(e){}` +
            `window.open('${off}/popup');</script>`,
        );
      case '/sw.js':
        return res.writeHead(200, { 'content-type': 'text/javascript' }).end(`fetch('${off}/from-sw')`);
      case '/sw':
        return html(`<script>navigator.serviceWorker && navigator.serviceWorker.register('/sw.js').catch(()=>{})</script>`);
      case '/download':
        return res
          .writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="x.bin"' })
          .end('x');
      case '/write':
        return html(
          `<form method="post" action="/submit"><input name="q" value="1"><button>Go</button></form>` +
            `<script>window.postIt=()=>fetch('/api', {method:'POST', body:'x'}).then(r=>r.status, e=>'refused')</script>`,
        );
      default:
        return html('ok');
    }
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  sitePort = (site.address() as AddressInfo).port;
  browser = await startBrowser();
});

afterAll(async () => {
  await browser?.close();
  for (const s of [site, victim]) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  victimHits.length = 0;
  siteHosts.length = 0;
  siteMethods.length = 0;
});

/** A context fenced exactly as an agent run's: its egress proxy, and the page's view of its refusals for the trace. */
async function fenced(mode: RunMode = 'read_write', guard = true): Promise<{ page: Page; blocked: BlockedRequest[] }> {
  const provider = { name: 'Site', homeUrl: `http://site.localhost:${sitePort}/`, allowedOrigins: ['site.localhost'] };
  const policy = EgressPolicy.forProvider(provider, 'sandbox');
  const blocked: BlockedRequest[] = [];
  const report = blockReporter((b) => blocked.push(b));
  const refusals = refusalReports(report, new RunIntegrity(), mode);
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: guard ? refusals.proxy : (b) => report(fromProxy(b)),
    gate: changeGate(mode),
  });
  contexts.push(context);
  const holder: { page?: Page } = {};
  if (guard) watchRefusals(context, { policy, mode, mainFrame: () => holder.page?.mainFrame(), report: refusals.page });
  holder.page = await context.newPage();
  holder.page.setDefaultTimeout(5000);
  return { page: holder.page, blocked };
}

const siteUrl = (path: string) => `http://site.localhost:${sitePort}${path}`;
const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));

describe('egress: redirects and other ways out', () => {
  it('refuses the sandbox loopback bypass: Chromium sends loopback traffic to the proxy (<-loopback>)', async () => {
    // No page-level guard at all: only the proxy stands between the page and the listener.
    const { page, blocked } = await fenced('read_write', false);
    await expect(page.goto(`http://127.0.0.1:${victimPort}/direct`)).rejects.toThrow();
    await page.goto(siteUrl('/redirect')).catch(() => undefined);
    expect(victimHits).toEqual([]);
    expect(blocked.map((b) => b.resourceType)).toContain('request');
  });

  it('blocks a 302 from an allowed page to another loopback port', async () => {
    const { page, blocked } = await fenced();
    await page.goto(siteUrl('/redirect')).catch(() => undefined);
    expect(victimHits).toEqual([]);
    expect(blocked.some((b) => b.url.includes(`127.0.0.1:${victimPort}`) && b.mainFrameNavigation)).toBe(true);
  });

  it('blocks the last hop of a 307 chain', async () => {
    const { page } = await fenced();
    await page.goto(siteUrl('/chain')).catch(() => undefined);
    expect(siteMethods.filter((m) => m.includes('/chain'))).toHaveLength(2);
    expect(victimHits).toEqual([]);
  });

  it('blocks a meta refresh and a script navigation off the origin', async () => {
    const { page } = await fenced();
    await page.goto(siteUrl('/meta'));
    await settle();
    await page.goto(siteUrl('/js')).catch(() => undefined);
    await settle();
    expect(victimHits).toEqual([]);
  });

  it('blocks fetch, XHR, WebSocket, img, iframe and window.open to another loopback port', async () => {
    const { page, blocked } = await fenced();
    await page.goto(siteUrl('/sub'));
    // The refusals are waited for (a report the proxy alone saw is told after the join's wait); then a moment more for
    // anything that got through to reach the victim.
    await eventually(
      async () => blocked.length,
      (n) => n >= 4,
    ).catch(() => undefined);
    await settle(800);
    expect(victimHits).toEqual([]);
    expect(blocked.length).toBeGreaterThanOrEqual(4);
  });

  it('fences a service worker like its page (it runs, as in any browser; what it sends goes through the proxy) and refuses downloads', async () => {
    const { page, blocked } = await fenced('read_write', false);
    await page.goto(siteUrl('/sw'));
    // Registered by the browser's own register (no script stub), and running: its first fetch goes off-site.
    expect(await page.evaluate(() => navigator.serviceWorker.ready.then((r) => !!r.active))).toBe(true);
    for (const until = Date.now() + 15_000; !blocked.some((b) => b.url.includes('/from-sw')) && Date.now() < until;) await settle(50);
    expect(blocked.map((b) => b.url)).toContainEqual(expect.stringContaining('/from-sw'));
    await page.goto(siteUrl('/download')).catch(() => undefined);
    expect(victimHits).toEqual([]);
  });

  it('refuses the provider host under a subdomain or with a trailing dot (same port)', async () => {
    const { page } = await fenced();
    await expect(page.goto(`http://x.site.localhost:${sitePort}/`)).rejects.toThrow();
    await expect(page.goto(`http://site.localhost.:${sitePort}/`)).rejects.toThrow();
    expect(siteHosts).toEqual([]);
  });

  it('refuses a form POST and a fetch POST in read mode, while GETs work', async () => {
    const { page, blocked } = await fenced('read');
    const res = await page.goto(siteUrl('/write'));
    expect(res?.status()).toBe(200);
    expect(await page.evaluate(() => (window as unknown as { postIt(): Promise<unknown> }).postIt())).toBe('refused');
    await page.click('button');
    const refusedWrites = () => blocked.filter((b) => /read mode/.test(b.reason)).length;
    await eventually(
      async () => refusedWrites(),
      (n) => n >= 1,
    ).catch(() => undefined);
    await settle();
    expect(siteMethods.filter((m) => m.startsWith('POST'))).toEqual([]);
    expect(refusedWrites()).toBeGreaterThanOrEqual(1);
  });
});
