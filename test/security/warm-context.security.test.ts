import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { ContextWiring, type RunPort } from '../../server/agent/run/context-wiring';
import { type BlockedRequest, changeGate, fromProxy, type RunMode, watchRefusals } from '../../server/agent/run/network-guard';
import { type WarmContext, WarmContexts, warmKey } from '../../server/agent/worker/warm-contexts';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { startBrowser } from '../support/live-server';

/**
 * A context kept warm between runs (server/agent/worker/warm-contexts.ts) carries one run's browser into the next. What it
 * must never carry: a change sent while no run holds it, a report of one run landing in another's trace, a context of
 * one session handed to a run of another. Attacked with real Chromium behind the real egress proxy: the site records
 * every write it receives.
 */
jest.setTimeout(60_000);

let browser: Browser;
let site: http.Server;
let origin = '';
const received: string[] = [];

/** Pages of the site beyond its plain one: what a page may still do as its run ends. */
const PAGES: Record<string, string> = {
  // Writes sent as the page is closed: they leave after the page is gone.
  '/unload': `<script>addEventListener('pagehide', () => { navigator.sendBeacon('/w/beacon', 'x'); fetch('/w/keepalive', { method: 'POST', body: 'y', keepalive: true }); });</script>`,
  // A popup opened a few ms after the run's last step, while the pages are being closed; it writes and reads in a loop.
  '/popup-late': `<script>window.runEnds = (d) => setTimeout(() => window.open('/child'), d);</script>`,
  // A page that takes its time to go (a busy pagehide handler): what happens meanwhile happens while the run lets go.
  '/slow-unload': `<script>addEventListener('pagehide', () => { const t = Date.now(); while (Date.now() - t < 800); });</script>`,
  '/child': `<script>setInterval(() => { fetch('/r/idle-read?' + Date.now()); fetch('/w/idle-write', { method: 'POST', body: 'x' }).catch(() => 0); }, 50);</script>`,
};

beforeAll(async () => {
  browser = await startBrowser();
  site = http.createServer((req, res) => {
    if (req.method !== 'GET') {
      received.push(`${req.method} ${req.url}`);
      return res.writeHead(204).end();
    }
    const page = PAGES[(req.url ?? '/').split('?')[0]] ?? '<p>ok</p>';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>site</title>${page}`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://warm.localhost:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

const opened: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close().catch(() => undefined)));
  received.length = 0;
});

/** What one run hears of the context's fence. */
function runPort() {
  const heard = { blocked: [] as BlockedRequest[], changes: 0 };
  const port: RunPort = {
    onBlocked: (b) => heard.blocked.push(fromProxy(b)),
    onChangeSent: () => {
      heard.changes += 1;
    },
    report: (b) => heard.blocked.push(b),
    mainFrame: () => undefined,
  };
  return { port, heard };
}

/** A context fenced as run-session.ts opens one: the proxy and the page's view of its refusals report through the wiring. */
async function warmContext(mode: RunMode, key = 'key'): Promise<WarmContext> {
  const provider = { name: 'Warm', homeUrl: `${origin}/`, allowedOrigins: ['warm.localhost'] };
  const policy = EgressPolicy.forProvider(provider, 'sandbox');
  const wiring = new ContextWiring(changeGate(mode));
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: wiring.onBlocked,
    gate: wiring,
    onChangeSent: wiring.onChangeSent,
  });
  opened.push(context);
  watchRefusals(context, { policy, mode, mainFrame: wiring.mainFrame, report: wiring.report });
  return { context, wiring, key };
}

const post = async (context: BrowserContext, path: string) => {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${origin}/`);
  await page.evaluate(
    (p) =>
      fetch(p, { method: 'POST', body: 'x' }).then(
        () => 'sent',
        () => 'refused',
      ),
    path,
  );
};

const settled = () => new Promise((r) => setTimeout(r, 300));

/**
 * The kept context once it may be handed out (it rests a moment after its run), or null after `ms` or once `gone()`: by
 * default far above the rest and quiet times (under a second), so a loaded machine cannot make a context that should be
 * handed out miss.
 */
async function takeWhenReady(
  pool: WarmContexts,
  key: string,
  digest: string,
  ms = 15_000,
  gone: () => boolean = () => false,
): Promise<WarmContext | null> {
  for (const until = Date.now() + ms; Date.now() < until && !gone(); await new Promise((r) => setTimeout(r, 50))) {
    const taken = pool.take(key, digest);
    if (taken) return taken;
  }
  return null;
}

it('between runs, nothing of the kept context can write or be heard; a page that appears in it closes it', async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
  const warm = await warmContext('read_write');
  const first = runPort();
  warm.wiring.attach(first.port);
  await post(warm.context, '/w/first-run');
  await settled();
  expect(received).toEqual(['POST /w/first-run']);
  expect(first.heard.changes).toBe(1);

  await pool.keep(warm, 'digest-1');
  expect(warm.context.pages()).toHaveLength(0);
  expect(pool.size).toBe(1);
  // Between runs the fence refuses every change and tells no run (asked directly: no page may exist to ask it).
  expect(warm.wiring.request('POST', new URL(`${origin}/w/while-idle`))).toMatch(/no run holds/);
  expect(warm.wiring.webSocketMessages).toMatch(/no run holds/);
  warm.wiring.onChangeSent();
  expect(first.heard.changes).toBe(1);
  // Something opens a page of the idle context and writes: the context is closed, nothing is sent, nobody hears of it.
  const gone = new Promise<void>((resolve) => warm.context.once('close', () => resolve()));
  await post(warm.context, '/w/while-idle').catch(() => undefined);
  await gone;
  await settled();
  expect(received).toEqual(['POST /w/first-run']);
  expect(first.heard).toEqual({ blocked: [], changes: 1 });
  expect(pool.size).toBe(0);
  expect(await takeWhenReady(pool, 'key', 'digest-1', 700)).toBeNull();

  // A context kept and taken by the next run: its writes go out, counted to that run alone.
  const again = await warmContext('read_write');
  again.wiring.attach(runPort().port);
  await pool.keep(again, 'digest-1');
  expect(pool.take('key', 'digest-1')).toBeNull(); // resting: what its closed pages still send reaches no run
  const taken = await takeWhenReady(pool, 'key', 'digest-1');
  expect(taken).toBe(again);
  const second = runPort();
  taken!.wiring.attach(second.port);
  await post(taken!.context, '/w/second-run');
  await settled();
  expect(received).toEqual(['POST /w/first-run', 'POST /w/second-run']);
  expect(second.heard.changes).toBe(1);
  expect(first.heard.changes).toBe(1);
  await pool.close();
});

it("a read-mode context refuses the next run's writes as it refused the first's, and each refusal is reported to its own run", async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
  const warm = await warmContext('read');
  const first = runPort();
  warm.wiring.attach(first.port);
  await post(warm.context, '/w/first');
  await settled();
  await pool.keep(warm, 'digest-1');
  const taken = (await takeWhenReady(pool, 'key', 'digest-1'))!;
  const second = runPort();
  taken.wiring.attach(second.port);
  await post(taken.context, '/w/second');
  await settled();
  expect(received).toEqual([]);
  expect(first.heard.blocked.map((b) => b.url).join(' ')).toContain('/w/first');
  expect(first.heard.blocked.map((b) => b.url).join(' ')).not.toContain('/w/second');
  expect(second.heard.blocked.map((b) => b.url).join(' ')).toContain('/w/second');
  expect(second.heard.blocked.map((b) => b.url).join(' ')).not.toContain('/w/first');
  await pool.close();
});

it.each(['read_write', 'read'] as const)(
  '%s: what a page sends as its run closes it (an unload beacon, a keep-alive fetch) reaches no later run',
  async (mode) => {
    const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
    for (let round = 0; round < 4; round++) {
      const warm = await warmContext(mode);
      warm.wiring.attach(runPort().port);
      const page = await warm.context.newPage();
      await page.goto(`${origin}/unload`);
      await pool.keep(warm, 'd');
      // The next run of the connection was waiting: it takes the context as soon as the pool hands it out.
      const next = runPort();
      const taken = await takeWhenReady(pool, 'key', 'd');
      expect(taken).toBe(warm);
      taken!.wiring.attach(next.port);
      await new Promise((r) => setTimeout(r, 500));
      expect(next.heard.changes).toBe(0);
      expect(next.heard.blocked).toEqual([]);
      await warm.context.close();
    }
    await pool.close();
  },
);

it('a popup opened while the run ends is never handed to the next run, and the context holding it is closed', async () => {
  let handedWithPages = 0;
  for (let trial = 0; trial < 8; trial++) {
    const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
    const warm = await warmContext('read_write');
    warm.wiring.attach(runPort().port);
    const page = await warm.context.newPage();
    await page.goto(`${origin}/popup-late`);
    await page.evaluate((d) => (window as unknown as { runEnds(d: number): void }).runEnds(d), trial % 4);
    const sentBefore = received.length;
    let closed = false;
    warm.context.once('close', () => (closed = true));
    await pool.keep(warm, 'd');
    // Either the pool closes the context (the popup came) or hands it out (it came too late to open): waited for, not timed.
    const taken = await takeWhenReady(pool, 'key', 'd', 15_000, () => closed);
    if (taken && taken.context.pages().length > 0) handedWithPages += 1;
    // Whatever the popup tried while no run held the context: no write went out.
    expect(received.slice(sentBefore).filter((r) => r.startsWith('POST'))).toEqual([]);
    await pool.close();
    await warm.context.close().catch(() => undefined);
  }
  expect(handedWithPages).toBe(0);
  // The control: the same run ending with no popup keeps its context (the pool is not simply off). It waits on the
  // take itself, with a bound far above the rest and quiet times, so a loaded machine cannot fail it (whether a late
  // popup of the trials above came before or after the close is the machine's timing, so they are not counted).
  const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
  const warm = await warmContext('read_write');
  warm.wiring.attach(runPort().port);
  await (await warm.context.newPage()).goto(`${origin}/popup-late`);
  await pool.keep(warm, 'd');
  const taken = await takeWhenReady(pool, 'key', 'd', 15_000);
  expect(taken).not.toBeNull();
  expect(taken?.context.pages()).toEqual([]);
  await pool.close();
  await warm.context.close().catch(() => undefined);
});

it('a context with no key (a connection without a stored session) is closed, never kept', async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
  const warm = await warmContext('read', '');
  const gone = new Promise<void>((resolve) => warm.context.once('close', () => resolve()));
  await pool.keep(warm, 'd');
  await gone;
  expect(pool.size).toBe(0);
});

it('a run found unclean once its pages closed (a write they sent as they went, refused in read mode) leaves no context behind', async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
  const warm = await warmContext('read');
  warm.wiring.attach(runPort().port);
  await (await warm.context.newPage()).goto(`${origin}/`);
  const gone = new Promise<void>((resolve) => warm.context.once('close', () => resolve()));
  await pool.keep(warm, 'd', () => false);
  await gone;
  expect(pool.size).toBe(0);
});

it("a connection revoked while its run's pages are closing is never kept: its context closes, the pool holds nothing of it", async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
  const warm: WarmContext = { ...(await warmContext('read')), connectionId: 'conn_revoked_meanwhile' };
  warm.wiring.attach(runPort().port);
  await (await warm.context.newPage()).goto(`${origin}/slow-unload`);
  const gone = new Promise<void>((resolve) => warm.context.once('close', () => resolve()));
  const keeping = pool.keep(warm, 'd'); // now closing the page, which takes its time to go
  pool.dropConnection('conn_revoked_meanwhile');
  await keeping;
  expect(pool.heldFor('conn_revoked_meanwhile')).toBe(0);
  expect(pool.size).toBe(0);
  await gone;
});

describe('the pool hands a context only to a run of the same key and the same session', () => {
  const closed = (context: BrowserContext) => new Promise<void>((resolve) => context.once('close', () => resolve()));

  it('another key gets nothing; another session closes the stale context', async () => {
    const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
    const warm = await warmContext('read', 'key-a');
    warm.wiring.attach(runPort().port);
    await pool.keep(warm, 'digest-1');
    await new Promise((r) => setTimeout(r, 600)); // past its rest
    expect(pool.take('key-b', 'digest-1')).toBeNull();
    expect(pool.size).toBe(1);
    const gone = closed(warm.context);
    expect(pool.take('key-a', 'digest-2')).toBeNull();
    await gone;
    expect(pool.size).toBe(0);
    await pool.close();
  });

  it('keeps at most `max`, closing the oldest; closes each after `idleMs`; keeps none when off or stopped', async () => {
    // 3 s: b must still be kept when the pool is counted after a's close, however slow closing a context is.
    const pool = new WarmContexts({ idleMs: 3_000, max: 2 });
    const [a, b, c] = [await warmContext('read', 'a'), await warmContext('read', 'b'), await warmContext('read', 'c')];
    const aGone = closed(a.context);
    for (const w of [a, b, c]) await pool.keep(w, 'd');
    await aGone;
    expect(pool.size).toBe(2);
    await Promise.all([closed(b.context), closed(c.context)]);
    expect(pool.size).toBe(0);

    const off = new WarmContexts({ idleMs: 0, max: 2 });
    const d = await warmContext('read', 'd');
    const dGone = closed(d.context);
    await off.keep(d, 'd');
    await dGone;

    const stopped = new WarmContexts({ idleMs: 10_000, max: 2 });
    await stopped.close();
    const e = await warmContext('read', 'e');
    const eGone = closed(e.context);
    await stopped.keep(e, 'd');
    await eGone;
    expect(stopped.size).toBe(0);
  });
});

it('the key differs with anything the fence or the device is built from', () => {
  const provider = { providerId: 'p', homeUrl: 'https://p.example/', allowedOrigins: ['p.example'], source: 'built-in' as const };
  const base = { connectionId: 'conn_1', environment: 'sandbox', mode: 'read' as const, provider, device: null, exitProxy: null };
  const keys = new Set([
    warmKey(base),
    warmKey({ ...base, connectionId: 'conn_2' }),
    warmKey({ ...base, environment: 'production' }),
    warmKey({ ...base, mode: 'read_write' }),
    warmKey({ ...base, provider: { ...provider, allowedOrigins: ['p.example', 'cdn.example'] } }),
    warmKey({ ...base, provider: { ...provider, sessionRefresh: [{ method: 'POST', path: '/refresh' }] } }),
    warmKey({ ...base, exitProxy: { server: 'http://proxy.example:8080' } as never }),
    // A context whose requests are signed (Web Bot Auth) never serves a run that must not sign, nor the reverse.
    warmKey({ ...base, signed: true }),
  ]);
  expect(keys.size).toBe(8);
  expect(warmKey({ ...base, signed: false })).toBe(warmKey(base));
  expect(warmKey({ ...base })).toBe(warmKey(base));
});
