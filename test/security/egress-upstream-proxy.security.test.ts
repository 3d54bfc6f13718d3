import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';
import { WebSocketServer } from 'ws';

import { EgressPolicy, type HostNetwork } from '../../server/egress/egress-policy';
import { type EgressBlock, type EgressProxy, startEgressProxy } from '../../server/egress/egress-proxy';
import { openFencedContext, openPage } from '../../server/egress/fenced-context';
import type { Resolver } from '../../server/egress/resolve';
import { type ConnectProxy, startConnectProxy } from '../support/connect-proxy';
import { requestViaProxy } from '../support/egress-proxy-client';
import { startBrowser } from '../support/live-server';
import { startTlsSite, type TlsSite } from '../support/tls-site';

/**
 * A connection's exit: the egress proxy chains every connection of a context to an upstream proxy with CONNECT, to
 * the address the egress policy resolved and approved (never a name the upstream proxy would resolve itself), with
 * the proxy's credentials; the policy still decides each destination, and the upstream proxy's own address too. A
 * loopback CONNECT proxy stands in for the exit and records what it was asked to tunnel.
 */
jest.setTimeout(60_000);

const CREDENTIALS = { username: 'exit-user', password: 'exit-secret' };
const BASIC = `Basic ${Buffer.from('exit-user:exit-secret').toString('base64')}`;

let site: http.Server;
let sitePort = 0;
let tls: TlsSite;
let exit: ConnectProxy;
let browser: Browser;
const siteSaw: string[] = [];

beforeAll(async () => {
  site = http.createServer((req, res) => {
    siteSaw.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>site</title><p>via exit</p>');
  });
  const wss = new WebSocketServer({ server: site });
  wss.on('connection', (ws) => ws.on('message', (m) => ws.send(`echo ${String(m)}`)));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  sitePort = (site.address() as AddressInfo).port;
  tls = await startTlsSite(
    (req, res) => {
      siteSaw.push(`TLS ${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>secure</title><p>secure via exit</p>');
    },
    ['site.localhost'],
  );
  exit = await startConnectProxy(CREDENTIALS);
  browser = await startBrowser();
});

afterAll(async () => {
  await browser?.close();
  await exit?.close();
  await tls?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
});

const proxies: EgressProxy[] = [];
const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  exit.asked.length = 0;
  siteSaw.length = 0;
});

const sandboxPolicy = (port: number, network?: HostNetwork) =>
  EgressPolicy.forProvider(
    { name: 'Site', homeUrl: `http://site.localhost:${port}/`, allowedOrigins: ['site.localhost'] },
    'sandbox',
    network ? { network } : {},
  );

async function chained(
  policy: EgressPolicy,
  upstream: { host: string; port: number; username?: string; password?: string },
  resolver?: Resolver,
) {
  const blocked: EgressBlock[] = [];
  const proxy = await startEgressProxy({ policy, onBlocked: (b) => blocked.push(b), upstreamProxy: upstream, resolver });
  proxies.push(proxy);
  return { proxy, blocked };
}

describe('chaining to the upstream proxy', () => {
  it('tunnels a plain http request to the checked address, with the proxy credentials', async () => {
    const { proxy, blocked } = await chained(sandboxPolicy(sitePort), { host: '127.0.0.1', port: exit.port, ...CREDENTIALS });
    expect(await requestViaProxy(proxy, `http://site.localhost:${sitePort}/hello`)).toMatchObject({
      status: 200,
      body: expect.stringContaining('via exit'),
    });
    // The upstream proxy is given the address the policy approved, not the name (it resolves nothing itself).
    expect(exit.asked).toEqual([{ target: `127.0.0.1:${sitePort}`, authorization: BASIC, allowed: true }]);
    expect(siteSaw).toEqual(['GET /hello']);
    expect(blocked).toEqual([]);
  });

  it('refuses a destination the policy refuses before the upstream proxy hears of it', async () => {
    const { proxy, blocked } = await chained(sandboxPolicy(sitePort), { host: '127.0.0.1', port: exit.port, ...CREDENTIALS });
    expect(await requestViaProxy(proxy, `http://elsewhere.localhost:${sitePort}/steal`)).toBe('closed');
    expect(await requestViaProxy(proxy, `http://127.0.0.1:${exit.port}/`)).toBe('closed');
    expect(exit.asked).toEqual([]);
    expect(siteSaw).toEqual([]);
    expect(blocked.map((b) => b.kind)).toEqual(['request', 'request']);
  });

  it('sends nothing around a proxy that refuses the credentials: the connection fails (no page) and the trace says 407', async () => {
    const { proxy, blocked } = await chained(sandboxPolicy(sitePort), {
      host: '127.0.0.1',
      port: exit.port,
      username: 'exit-user',
      password: 'wrong',
    });
    expect(await requestViaProxy(proxy, `http://site.localhost:${sitePort}/`)).toBe('closed');
    expect(exit.asked).toEqual([expect.objectContaining({ allowed: false })]);
    expect(siteSaw).toEqual([]);
    expect(blocked).toEqual([expect.objectContaining({ kind: 'upstream', reason: 'the upstream proxy answered 407 to CONNECT' })]);
  });

  it("refuses an upstream proxy on this service's own port (sandbox) and on loopback (production), without connecting", async () => {
    const own = await chained(sandboxPolicy(sitePort, { ownPorts: [exit.port], privateNetwork: false }), {
      host: '127.0.0.1',
      port: exit.port,
      ...CREDENTIALS,
    });
    expect(await requestViaProxy(own.proxy, `http://site.localhost:${sitePort}/`)).toBe('closed');
    expect(own.blocked).toEqual([expect.objectContaining({ kind: 'upstream', reason: expect.stringMatching(/AgentLink's own/) })]);

    const production = EgressPolicy.forProvider(
      { name: 'Public', homeUrl: 'http://public.example/', allowedOrigins: ['public.example'] },
      'production',
    );
    const resolver: Resolver = async (host) =>
      host === 'public.example' ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    const prod = await chained(production, { host: 'exit.internal.test', port: exit.port, ...CREDENTIALS }, resolver);
    expect(await requestViaProxy(prod.proxy, 'http://public.example/')).toBe('closed');
    expect(prod.blocked).toEqual([expect.objectContaining({ kind: 'upstream', reason: expect.stringMatching(/loopback/) })]);
    expect(exit.asked).toEqual([]);
  });
});

describe('a fenced browser context with an exit', () => {
  async function fencedVia(homeUrl: string) {
    const policy = EgressPolicy.forProvider({ name: 'Site', homeUrl, allowedOrigins: ['site.localhost'] }, 'sandbox');
    const blocked: EgressBlock[] = [];
    const context = await openFencedContext(browser, {
      policy,
      onBlocked: (b) => blocked.push(b),
      upstreamCa: [tls.caPem],
      upstreamProxy: { host: 'localhost', port: exit.port, ...CREDENTIALS },
    });
    contexts.push(context);
    return { page: await openPage(context), blocked };
  }

  it('loads https pages through the upstream proxy only (TLS to the site, verified here)', async () => {
    const { page, blocked } = await fencedVia(`https://site.localhost:${tls.port}/`);
    await page.goto(`https://site.localhost:${tls.port}/secure`);
    expect(await page.textContent('p')).toBe('secure via exit');
    expect(siteSaw).toEqual(expect.arrayContaining(['TLS GET /secure']));
    expect(new Set(exit.asked.map((a) => a.target))).toEqual(new Set([`127.0.0.1:${tls.port}`]));
    expect(exit.asked.every((a) => a.allowed && a.authorization === BASIC)).toBe(true);
    expect(blocked).toEqual([]);
  });

  it('loads plain pages and opens WebSockets through the upstream proxy only', async () => {
    const { page, blocked } = await fencedVia(`http://site.localhost:${sitePort}/`);
    await page.goto(`http://site.localhost:${sitePort}/plain`);
    const beforeSocket = exit.asked.length;
    const echoed = await page.evaluate(
      (url) =>
        new Promise<string>((resolve, reject) => {
          const ws = new WebSocket(url);
          ws.onopen = () => ws.send('hi');
          ws.onmessage = (e) => resolve(String(e.data));
          ws.onerror = () => reject(new Error('websocket failed'));
        }),
      `ws://site.localhost:${sitePort}/socket`,
    );
    expect(echoed).toBe('echo hi');
    // The WebSocket has a tunnel of its own through the exit.
    expect(exit.asked.length).toBeGreaterThan(beforeSocket);
    expect(siteSaw).toEqual(['GET /plain']);
    expect(new Set(exit.asked.map((a) => a.target))).toEqual(new Set([`127.0.0.1:${sitePort}`]));
    expect(exit.asked.every((a) => a.allowed && a.authorization === BASIC)).toBe(true);
    expect(blocked).toEqual([]);
  });
});
