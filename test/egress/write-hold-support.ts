import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import tls from 'node:tls';

import WebSocket, { WebSocketServer } from 'ws';

import type { ChangeGate, HeldWrite } from '../../server/egress/change-gate';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { type EgressBlock, type EgressProxy, startEgressProxy } from '../../server/egress/egress-proxy';
import { startTlsSite, type TlsSite } from '../support/tls-site';

/**
 * What write-hold.test.ts holds writes with: a loopback site (plain, with WebSocket, and TLS) that records everything
 * it received, started by `useRecordingSite()`; an egress proxy whose gate holds every write until the test decides;
 * and clients that talk through it as a browser does (plain http, CONNECT tunnels, TLS in a tunnel, WebSocket).
 */
/** A request the site received: its method, scheme and path, headers and body. */
export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** What the site received (requests, WebSocket messages, pings) during the test. */
export const received: Received[] = [];
export const messages: string[] = [];
let pingCount = 0;
export const pings = () => pingCount;
let site: http.Server;
let sitePort = 0;
/** The site over TLS (for site.localhost). */
export let secure: TlsSite;

function recording(scheme: string): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: String(req.method), url: `${scheme} ${req.url}`, headers: req.headers, body: Buffer.concat(chunks) });
      // An upstream that fails after it got the write: the connection is reset, no answer.
      if (req.url?.startsWith('/reset')) return void req.socket.resetAndDestroy();
      res.writeHead(201, { 'content-type': 'text/plain' }).end(`created ${req.method} ${req.url}`);
    });
  };
}

const proxies: EgressProxy[] = [];
const sockets: net.Socket[] = [];

/**
 * Starts the recording site (plain and TLS) for the calling test file; after each test, closes its proxies and tunnels
 * and forgets what the site received.
 */
export function useRecordingSite(): void {
  beforeAll(async () => {
    site = http.createServer(recording('http'));
    const wss = new WebSocketServer({ server: site });
    wss.on('connection', (ws) => {
      ws.on('message', (m: Buffer) => messages.push(m.toString()));
      ws.on('ping', () => (pingCount += 1));
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    sitePort = (site.address() as net.AddressInfo).port;
    secure = await startTlsSite(recording('https'), ['site.localhost']);
  });

  afterAll(async () => {
    await secure.close();
    site.closeAllConnections();
    await new Promise((r) => site.close(r));
  });

  afterEach(async () => {
    sockets.splice(0).forEach((s) => s.destroy());
    await Promise.all(proxies.splice(0).map((p) => p.close()));
    received.length = 0;
    messages.length = 0;
    pingCount = 0;
  });
}

/** A write the gate holds, and the gate's hand on it. */
interface Held {
  write: HeldWrite;
  signal: AbortSignal;
  decide(reason: string | null): void;
}

/** Waits until `ok()` holds (polling every 10 ms), or fails naming `what`. */
export async function until(ok: () => boolean, what: string, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A proxy whose gate holds every write (paths under /forbidden are refused outright) and records what it held. */
export async function holdingProxy(scheme: 'http' | 'https' = 'http', extra: Partial<Parameters<typeof startEgressProxy>[0]> = {}) {
  const port = scheme === 'http' ? sitePort : secure.port;
  const policy = EgressPolicy.forProvider(
    { name: 'Site', homeUrl: `${scheme}://site.localhost:${port}/`, allowedOrigins: ['site.localhost'] },
    'sandbox',
  );
  const held: Held[] = [];
  const blocked: EgressBlock[] = [];
  const sent: string[] = [];
  const gate: ChangeGate = {
    request: (_method, url) => (url.pathname.startsWith('/forbidden') ? 'not this path' : null),
    webSocketMessages: null,
    approve: (write, signal) => new Promise((decide) => held.push({ write, signal, decide })),
  };
  const proxy = await startEgressProxy({
    policy,
    gate,
    onBlocked: (b) => blocked.push(b),
    onChangeSent: (c) => sent.push(`${c.method} ${c.url}`),
    upstreamCa: [secure.caPem],
    ...extra,
  });
  proxies.push(proxy);
  const nthHeld = async (n: number) => {
    await until(() => held.length >= n, `write #${n} to be held`);
    return held[n - 1]!;
  };
  return { proxy, held, nthHeld, blocked, sent, origin: `${scheme}://site.localhost:${port}` };
}

type Answer = { status: number; body: string } | 'closed';

/** One request, its body written in `parts`; its answer, or 'closed' when the proxy dropped the connection. */
export function exchange(
  options: http.RequestOptions,
  parts: (string | Buffer)[] = [],
): { req: http.ClientRequest; answer: Promise<Answer> } {
  // A fresh connection each (no agent), or the tunnel `createConnection` gives (an agent would open its own).
  const req = http.request(options.createConnection ? options : { agent: false, ...options });
  const answer = new Promise<Answer>((resolve) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve('closed'));
  });
  for (const part of parts) req.write(part);
  req.end();
  return { req, answer };
}

/** Through the proxy as a browser sends plain http: the absolute URL as the path. */
export function viaProxy(proxy: EgressProxy, method: string, url: string, headers: http.OutgoingHttpHeaders = {}): http.RequestOptions {
  const p = new URL(proxy.server);
  return { host: p.hostname, port: Number(p.port), method, path: url, headers: { host: new URL(url).host, ...headers } };
}

/** A CONNECT tunnel through the proxy, as a browser opens one for https and ws. */
async function tunnel(proxy: EgressProxy, authority: string): Promise<net.Socket> {
  const p = new URL(proxy.server);
  const req = http.request({ host: p.hostname, port: Number(p.port), method: 'CONNECT', path: authority, agent: false });
  req.end();
  const [res, socket] = (await once(req, 'connect')) as [http.IncomingMessage, net.Socket];
  expect(res.statusCode).toBe(200);
  sockets.push(socket);
  return socket;
}

/** TLS inside a tunnel, to the proxy's interception certificate (the test client plays a browser that trusts it). */
export async function tlsTunnel(proxy: EgressProxy, authority: string): Promise<tls.TLSSocket> {
  const socket = tls.connect({ socket: await tunnel(proxy, authority), servername: 'site.localhost', rejectUnauthorized: false });
  await once(socket, 'secureConnect');
  return socket;
}

/** A form body, and the headers it is sent with. */
export const FORM = 'message=hello&to=team';
export const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(FORM.length), 'x-trace': 'abc' };

/** A WebSocket to the plain site through a tunnel of the proxy. */
export async function openSocket(proxy: EgressProxy): Promise<WebSocket> {
  const socket = await tunnel(proxy, `site.localhost:${sitePort}`);
  const ws = new WebSocket(`ws://site.localhost:${sitePort}/ws`, { createConnection: () => socket });
  await once(ws, 'open');
  return ws;
}
