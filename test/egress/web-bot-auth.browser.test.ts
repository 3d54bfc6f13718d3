import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

import express from 'express';
import type { Browser, BrowserContext } from 'playwright-core';
import { WebSocketServer } from 'ws';

import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { type RequestSigner, webBotAuthSigner } from '../../server/egress/request-signing';
import { signatureDirectoryRoutes } from '../../server/http/signature-directory.routes';
import { type AgentKey, agentKeyFromSeed } from '../../server/vault/agent-keys';
import { requestLike, type SignedRequestLike, type Verdict, verifyAgentRequest } from '../support/bot-auth-verifier';
import { startBrowser } from '../support/live-server';
import { startTlsSite, type TlsSite } from '../support/tls-site';

/**
 * Web Bot Auth through the real egress proxy and real Chromium. An HTTPS site on loopback (reached through the proxy's
 * TLS interception) verifies each request it receives with Cloudflare's verifier (`web-bot-auth`), fetching the keys
 * from AgentLink's own directory route over HTTP. With a signer, every realm's requests verify: the document, an
 * image, a fetch, an XHR, a dedicated worker's script and its fetch, a WebSocket handshake, and a page that sets forged Signature headers
 * gets them replaced. Without one, nothing is signed. (The key at rest and `vault rotate-key`: test/vault/agent-signing-keys.test.ts.)
 */
jest.setTimeout(60_000);

const html = (body: string) => `<!doctype html><html><head><title>site</title></head><body>${body}</body></html>`;
/** The page: a sub-resource, a fetch carrying forged signature headers, an XHR, a worker that fetches. */
const PAGE = html(`<img src="/img.png"><script>
fetch('/fetch', { headers: { Signature: 'sig1=:AAAA:', 'Signature-Input': 'sig1=("@authority");keyid="forged"', 'Signature-Agent': '"https://evil.example"' } });
const x = new XMLHttpRequest(); x.open('GET', '/xhr'); x.send();
new Worker('/worker.js');
new WebSocket('wss://' + location.host + '/ws');
</script>`);
const EXPECTED = ['/', '/img.png', '/fetch', '/xhr', '/worker.js', '/from-worker', '/ws'];

let browser: Browser;
let site: TlsSite;
let origin = '';
let directory: http.Server;
let agentUrl = '';
/** What the directory route lists. */
let listed: AgentKey[] = [];
/** Each request the site received, with what the verifier said of it. */
const seen = new Map<string, { request: SignedRequestLike; verdict: Verdict }>();
const waiters = new Map<string, () => void>();

beforeAll(async () => {
  listed = [await agentKeyFromSeed(randomBytes(32))];
  const app = express();
  app.use(signatureDirectoryRoutes({ keys: async () => listed, publicUrl: 'http://127.0.0.1/' }));
  directory = app.listen(0, '127.0.0.1');
  await new Promise((r) => directory.once('listening', r));
  agentUrl = `http://127.0.0.1:${(directory.address() as AddressInfo).port}`;
  const judge = (req: http.IncomingMessage) => {
    const request = requestLike(req, 'https');
    const pathname = (req.url ?? '/').split('?')[0];
    void verifyAgentRequest(request).then((verdict) => {
      seen.set(pathname, { request, verdict });
      waiters.get(pathname)?.();
    });
    return pathname;
  };
  site = await startTlsSite(
    (req, res) => {
      const pathname = judge(req);
      if (pathname === '/worker.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(`fetch('/from-worker');`);
      if (pathname === '/img.png') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(pathname === '/' ? PAGE : 'ok');
    },
    ['bot.localhost'],
  );
  // The WebSocket handshake goes through the proxy's tunnel too: it is signed like any request.
  new WebSocketServer({ server: site.server }).on('connection', (_socket, req) => void judge(req));
  origin = `https://bot.localhost:${site.port}`;
  browser = await startBrowser();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  directory?.closeAllConnections();
  await new Promise((r) => directory?.close(r));
});

const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  seen.clear();
  waiters.clear();
});

/** Loads the page in a fenced context (signed with `signer`, or not) and waits until the site saw and judged every request. */
async function visit(signer: RequestSigner | null): Promise<Map<string, { request: SignedRequestLike; verdict: Verdict }>> {
  const policy = EgressPolicy.forProvider({ name: 'Bot', homeUrl: `${origin}/`, allowedOrigins: ['bot.localhost'] }, 'sandbox');
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: () => undefined,
    upstreamCa: [site.caPem],
    ...(signer ? { signer } : {}),
  });
  contexts.push(context);
  const arrived = EXPECTED.map((p) => new Promise<void>((resolve) => waiters.set(p, resolve)));
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await Promise.all(arrived);
  return seen;
}

test('with a signer, every request of every realm verifies against the directory, and a page cannot forge the headers', async () => {
  const [current] = listed;
  const got = await visit(webBotAuthSigner(current, agentUrl));
  expect([...got.keys()].sort()).toEqual([...EXPECTED].sort());
  for (const [pathname, { verdict }] of got) {
    expect({ pathname, verdict }).toEqual({ pathname, verdict: { kind: 'verified', keyid: current.keyid, agent: agentUrl } });
  }
  // The page's forged values never reached the site: one signature, ours.
  const forged = got.get('/fetch')!.request.headers;
  expect(forged['signature-agent']).toBe(`"${agentUrl}"`);
  expect(String(forged['signature-input'])).not.toContain('forged');
  expect(String(forged.signature)).not.toContain('AAAA');
  // The realms are the browser's own (what Sec-Fetch-Dest says), so the worker's requests really came from a worker.
  expect(got.get('/worker.js')!.request.headers['sec-fetch-dest']).toBe('worker');
  expect(got.get('/xhr')!.request.headers['sec-fetch-dest']).toBe('empty');
});

test('without a signer, the proxy adds no signature to any request', async () => {
  const got = await visit(null);
  for (const [pathname, { request, verdict }] of got) {
    if (pathname === '/fetch') {
      // Only what the page itself set, which no verifier accepts.
      expect(verdict.kind).toBe('invalid');
      continue;
    }
    expect({ pathname, verdict: verdict.kind, signature: request.headers.signature ?? null }).toEqual({
      pathname,
      verdict: 'unsigned',
      signature: null,
    });
  }
});

test('directory: the media type, only public halves, and signed by each key it lists', async () => {
  const res = await fetch(`${agentUrl}/.well-known/http-message-signatures-directory`);
  expect(res.headers.get('content-type')).toBe('application/http-message-signatures-directory+json');
  const body = (await res.json()) as { keys: Record<string, string>[] };
  expect(body.keys).toEqual(listed.map((k) => ({ kty: 'OKP', crv: 'Ed25519', x: k.publicJwk.x, kid: k.keyid })));
  expect(JSON.stringify(body)).not.toContain('"d"');
  const input = res.headers.get('signature-input') ?? '';
  expect(input).toContain('tag="http-message-signatures-directory"');
  expect(input).toContain(`keyid="${listed[0].keyid}"`);
});
