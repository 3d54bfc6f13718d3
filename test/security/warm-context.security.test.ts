import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { ContextWiring, type RunPort } from '../../server/agent/context-wiring';
import { type BlockedRequest, changeGate, fromProxy, installNetworkGuard, type RunMode } from '../../server/agent/network-guard';
import { type WarmContext, WarmContexts, warmKey } from '../../server/agent/warm-contexts';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { startBrowser } from '../support/live-server';

/**
 * A context kept warm between runs (server/agent/warm-contexts.ts) carries one run's browser into the next. What it
 * must never carry: a change sent while no run holds it, a report of one run landing in another's trace, a context of
 * one session handed to a run of another. Attacked with real Chromium behind the real egress proxy: the site records
 * every write it receives.
 */
jest.setTimeout(60_000);

let browser: Browser;
let site: http.Server;
let origin = '';
const received: string[] = [];

beforeAll(async () => {
  browser = await startBrowser();
  site = http.createServer((req, res) => {
    if (req.method !== 'GET') {
      received.push(`${req.method} ${req.url}`);
      return res.writeHead(204).end();
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>site</title><p>ok</p>');
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

/** A context fenced as run-session.ts opens one: the proxy and the page guard report through the wiring. */
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
  await installNetworkGuard(context, { policy, mode, mainFrame: wiring.mainFrame, report: wiring.report });
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

it('between runs, a page of the kept context can send no write, and no run hears of what it tried', async () => {
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
  // Something opens a page of the idle context and writes: refused at the proxy, told to nobody.
  await post(warm.context, '/w/while-idle');
  await settled();
  expect(received).toEqual(['POST /w/first-run']);
  expect(first.heard.changes).toBe(1);
  expect(first.heard.blocked).toEqual([]);
  await Promise.all(warm.context.pages().map((p) => p.close()));

  // The next run holds it: its writes go out and are counted to it alone.
  const taken = pool.take('key', 'digest-1');
  expect(taken).toBe(warm);
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
  const taken = pool.take('key', 'digest-1')!;
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

describe('the pool hands a context only to a run of the same key and the same session', () => {
  const closed = (context: BrowserContext) => new Promise<void>((resolve) => context.once('close', () => resolve()));

  it('another key gets nothing; another session closes the stale context', async () => {
    const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
    const warm = await warmContext('read', 'key-a');
    warm.wiring.attach(runPort().port);
    await pool.keep(warm, 'digest-1');
    expect(pool.take('key-b', 'digest-1')).toBeNull();
    expect(pool.size).toBe(1);
    const gone = closed(warm.context);
    expect(pool.take('key-a', 'digest-2')).toBeNull();
    await gone;
    expect(pool.size).toBe(0);
    await pool.close();
  });

  it('keeps at most `max`, closing the oldest; closes each after `idleMs`; keeps none when off or stopped', async () => {
    const pool = new WarmContexts({ idleMs: 400, max: 2 });
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
  ]);
  expect(keys.size).toBe(7);
  expect(warmKey({ ...base })).toBe(warmKey(base));
});
