import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { openKeyedContext } from '../../server/agent/worker/keyed-context';
import { type WarmContext, WarmContexts } from '../../server/agent/worker/warm-contexts';
import { EgressPolicy } from '../../server/egress/egress-policy';
import type { ProviderDefinition } from '../../server/providers/catalogue';
import { startBrowser } from '../support/live-server';

/**
 * Contexts prepared ahead of a connection's next run (warm-contexts.ts, fresh mode; issue #38): opened as a run ends,
 * loaded with the session just sealed, held by no run. Attacks: a write from the prepared context before any run holds it
 * (its fence refuses everything), a connection revoked while its context is still being opened (never handed out), and a
 * run's own state reaching the next run (the prepared context is another context, no page ever ran in it).
 */
jest.setTimeout(60_000);

let browser: Browser;
let site: http.Server;
let origin = '';
const received: string[] = [];
const opened: BrowserContext[] = [];

beforeAll(async () => {
  browser = await startBrowser();
  site = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>site</title><p>ok</p>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://prepared.localhost:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
  await browser?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

const provider = () =>
  ({ name: 'Prepared', homeUrl: `${origin}/`, allowedOrigins: ['prepared.localhost'] }) as unknown as ProviderDefinition;

/**
 * Opens a context as a run of `connectionId` would prepare it: the connection's session (a cookie) loaded, no run
 * attached; `withTab`: its run's tab opened with it, blank, as run-session.ts prepares it.
 */
async function prepare(connectionId: string, withTab = false): Promise<WarmContext> {
  const policy = EgressPolicy.forProvider(provider(), 'sandbox');
  const session = {
    cookies: [
      {
        name: 'sid',
        value: 'sealed',
        domain: 'prepared.localhost',
        path: '/',
        expires: -1,
        httpOnly: true,
        secure: false,
        sameSite: 'Lax' as const,
      },
    ],
    origins: [],
  };
  const warm = await openKeyedContext(browser, {
    provider: provider(),
    policy,
    key: 'k',
    connectionId,
    mode: 'read',
    fence: { options: { storageState: session } },
  });
  opened.push(warm.context);
  if (withTab) warm.page = await warm.context.newPage();
  return warm;
}

it('a prepared context lets nothing out before a run takes it, and holds only the sealed session', async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4, mode: 'fresh' });
  pool.prepare('k', 'digest-1', 'conn_a', () => prepare('conn_a'));
  await pool.prepared('k');
  const warm = pool.take('k', 'digest-1');
  expect(warm).not.toBeNull();
  // No page ever ran in it.
  expect(warm!.context.pages()).toHaveLength(0);
  // Held by no run: its fence refuses every request (nobody to report to, nothing to judge it by).
  expect(warm!.wiring.attached).toBe(false);
  const page = await warm!.context.newPage();
  const outcome = await page.goto(`${origin}/r/before-any-run`).then(
    () => 'loaded',
    () => 'refused',
  );
  expect(outcome).toBe('refused');
  expect(received).toEqual([]);
  expect(await warm!.context.cookies()).toEqual([expect.objectContaining({ name: 'sid', value: 'sealed' })]);
  await pool.close();
});

it('a connection revoked while its context is being prepared never gets it handed out; a session changed since is not used', async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4, mode: 'fresh' });
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  pool.prepare('k', 'digest-1', 'conn_revoked', async () => {
    const warm = await prepare('conn_revoked');
    await gate;
    return warm;
  });
  pool.dropConnection('conn_revoked'); // revoked while the context opens
  release();
  await pool.prepared('k');
  expect(pool.take('k', 'digest-1')).toBeNull();
  expect(pool.size).toBe(0);

  // Prepared with the session of digest-1, asked for by a run whose stored session is digest-2: closed, not used.
  pool.prepare('k', 'digest-1', 'conn_b', () => prepare('conn_b'));
  await pool.prepared('k');
  expect(pool.take('k', 'digest-2')).toBeNull();
  expect(pool.size).toBe(0);
  await pool.close();
});

it('a context prepared with its tab hands out that blank tab alone; a page something else opened in it spoils it', async () => {
  const pool = new WarmContexts({ idleMs: 10_000, max: 4, mode: 'fresh' });
  pool.prepare('k', 'digest-1', 'conn_c', () => prepare('conn_c', true));
  await pool.prepared('k');
  const warm = pool.take('k', 'digest-1');
  // The tab no document of a site was ever in, and nothing else.
  expect(warm?.page?.url()).toBe('about:blank');
  expect(warm!.context.pages()).toEqual([warm!.page]);

  let context: BrowserContext | undefined;
  pool.prepare('k', 'digest-1', 'conn_c', async () => {
    const ahead = await prepare('conn_c', true);
    context = ahead.context;
    return ahead;
  });
  await pool.prepared('k');
  await context!.newPage();
  expect(pool.take('k', 'digest-1')).toBeNull();
  expect(pool.size).toBe(0);
  await pool.close();
});
