import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WebSocketServer } from 'ws';

import { RunIntegrity } from '../../server/agent/run/integrity';
import { type BlockedRequest, blockReporter, changeGate, type RunMode, watchRefusals } from '../../server/agent/run/network-guard';
import { refusalReports } from '../../server/agent/run/refusal-join';
import { EgressPolicy } from '../../server/egress/egress-policy';
import type { ChangeSent } from '../../server/egress/egress-proxy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { startBrowser } from '../support/live-server';
import { startTlsSite, type TlsSite } from '../support/tls-site';

/**
 * Read mode in every realm, attacked as a page would write it. A provider page (plain http, and https through the
 * proxy's TLS interception) tries to change something from every realm the page-level router does not see: shared
 * and dedicated workers, WebSockets opened anywhere, popups that close at once, fetchLater. The site records every
 * request and WebSocket message it receives: in read mode it must receive no write and no message, and each refusal
 * must be in the trace with the realm that sent it. In read_write mode the same writes arrive, and each is counted
 * as a change sent (what decides between retrying a run after a browser loss and ending it BROWSER_LOST).
 */
jest.setTimeout(60_000);

let browser: Browser;
const received: string[] = [];
/** The close frames the site's WebSocket server received: code and reason. */
const closes: string[] = [];

const html = (body: string) => `<!doctype html><html><head><title>attack</title></head><body>${body}</body></html>`;
const blobScript = (code: string) => `URL.createObjectURL(new Blob([${JSON.stringify(code)}], { type: 'text/javascript' }))`;

/** The attacker's pages, for a site whose origin (http or https) is `origin`. */
function attackPage(path: string, origin: string): string | null {
  const ws = origin.replace(/^http/, 'ws');
  const wsSend = (tag: string) => `const s = new WebSocket('${ws}/ws'); s.onopen = () => s.send('${tag}');`;
  switch (path) {
    case '/shared-worker-post':
      return html(`<script>new SharedWorker(${blobScript(`fetch('${origin}/w/shared-worker', { method: 'POST', body: 'x' })`)});</script>`);
    case '/dedicated-worker-post':
      return html(`<script>new Worker(${blobScript(`fetch('${origin}/w/dedicated-worker', { method: 'POST', body: 'x' })`)});</script>`);
    case '/shared-worker-ws':
      return html(`<script>new SharedWorker(${blobScript(wsSend('from-shared-worker'))});</script>`);
    case '/dedicated-worker-ws':
      return html(`<script>new Worker(${blobScript(wsSend('from-dedicated-worker'))});</script>`);
    case '/page-ws':
      // Reading a feed still works: the server's greeting is shown in the title.
      return html(
        `<script>const s = new WebSocket('${ws}/ws'); s.onmessage = (e) => { document.title = e.data; s.send('from-page'); };</script>`,
      );
    case '/popup-keepalive':
      return html(`<script>window.open('/popup-keepalive-body')</script>`);
    case '/popup-keepalive-body':
      return html(`<script>fetch('/w/popup-keepalive', { method: 'POST', body: 'x', keepalive: true }); window.close();</script>`);
    case '/popup-beacon':
      return html(`<script>window.open('/popup-beacon-body')</script>`);
    case '/popup-beacon-body':
      // Closes itself a moment after: closed at once, a loaded machine may tear it down before the beacon leaves.
      return html(`<script>navigator.sendBeacon('/w/popup-beacon', 'x'); setTimeout(() => window.close(), 200);</script>`);
    case '/fetch-later':
      return html(`<script>fetchLater('/w/fetch-later', { method: 'POST', body: 'x', activateAfter: 0 });</script>`);
    case '/frame-post':
      return html(`<iframe srcdoc="<script>fetch('${origin}/w/frame', { method: 'PUT', body: 'x' })</script>"></iframe>`);
    case '/options-body':
      // Same-origin, so no preflight: a handler that ignores the method would act on the body.
      return html(`<script>fetch('/w/options-body', { method: 'OPTIONS', body: 'delete=1' })</script>`);
    case '/method-override':
      return html(`<script>fetch('/w/method-override', { headers: { 'X-HTTP-Method-Override': 'DELETE' } })</script>`);
    case '/ws-close-reason':
      return html(
        `<script>const s = new WebSocket('${ws}/ws'); s.onopen = () => s.close(4000, 'DELETE /account/42 confirm=yes');</script>`,
      );
    case '/shared-worker-refresh':
      return html(`<script>new SharedWorker(${blobScript(`fetch('${origin}/session/refresh', { method: 'POST', body: 'x' })`)});</script>`);
    case '/':
      return html('ok');
    default:
      return null;
  }
}

function handler(origin: () => string): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || req.headers['x-http-method-override']) {
      received.push(`${req.headers['x-http-method-override'] ? 'OVERRIDE ' : ''}${req.method} ${path}`);
      return res.writeHead(204).end();
    }
    const body = attackPage(path, origin());
    if (body === null) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  };
}

const socketServers: WebSocketServer[] = [];
function acceptWebSockets(server: http.Server) {
  const wss = new WebSocketServer({ noServer: true });
  socketServers.push(wss);
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (client) => {
      client.send('greeting');
      client.on('message', (data) => received.push(`WS ${String(data)}`));
      client.on('close', (code, reason) => closes.push(`${code} ${String(reason)}`.trim()));
    }),
  );
}

let plain: http.Server;
let plainOrigin = '';
let secure: TlsSite;
let secureOrigin = '';

beforeAll(async () => {
  browser = await startBrowser();
  plain = http.createServer(handler(() => plainOrigin));
  acceptWebSockets(plain);
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  plainOrigin = `http://attacker.localhost:${(plain.address() as AddressInfo).port}`;
  secure = await startTlsSite(
    handler(() => secureOrigin),
    ['attacker.localhost'],
  );
  acceptWebSockets(secure.server);
  secureOrigin = `https://attacker.localhost:${secure.port}`;
});

afterAll(async () => {
  await browser?.close();
  for (const wss of socketServers) {
    for (const client of wss.clients) client.terminate();
    wss.close();
  }
  plain?.closeAllConnections();
  await new Promise((r) => plain?.close(r));
  await secure?.close();
});

const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  received.length = 0;
  closes.length = 0;
});

/** A context fenced exactly as an agent run's: the egress proxy with the run's gate and count, and the page's view of its refusals. */
async function fenced(origin: string, mode: RunMode) {
  const provider = {
    name: 'Attacker',
    homeUrl: `${origin}/`,
    allowedOrigins: ['attacker.localhost'],
    sessionRefresh: [{ method: 'POST', path: '/session/refresh' }],
  };
  const policy = EgressPolicy.forProvider(provider, 'sandbox');
  const blocked: BlockedRequest[] = [];
  const changes: ChangeSent[] = [];
  const report = blockReporter((b) => blocked.push(b));
  const refusals = refusalReports(report, new RunIntegrity(), mode);
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: refusals.proxy,
    gate: changeGate(mode, provider.sessionRefresh),
    onChangeSent: (c) => changes.push(c),
    upstreamCa: [secure.caPem],
  });
  contexts.push(context);
  const holder: { page?: Page } = {};
  watchRefusals(context, { policy, mode, mainFrame: () => holder.page?.mainFrame(), report: refusals.page });
  holder.page = await context.newPage();
  return { page: holder.page, blocked, changes };
}

async function until(check: () => boolean, ms = 8000) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}

/**
 * Opens an attack page in read mode; returns the trace's refusals once one names `marker` (and a moment for
 * stragglers). A popup that closes at once sometimes goes before its request even starts (then nothing is sent and
 * nothing is there to refuse): the attack is tried again, up to three times, until the browser does send it.
 */
async function attackInReadMode(origin: string, path: string, marker: RegExp) {
  const { page, blocked, changes } = await fenced(origin, 'read');
  for (let attempt = 0; attempt < 3 && !blocked.some((b) => marker.test(b.url)); attempt++) {
    await page.goto(`${origin}${path}`);
    await until(() => blocked.some((b) => marker.test(b.url)), 4000);
  }
  await new Promise((r) => setTimeout(r, 300));
  return { page, blocked, changes };
}

const schemes = [
  ['http', () => plainOrigin],
  ['https (TLS intercepted)', () => secureOrigin],
] as const;

describe('read mode in every realm: writes and messages stopped at the network', () => {
  describe.each(schemes)('%s', (_name, origin) => {
    it('a POST from a SharedWorker started from a blob: URL is not sent, and the trace names the realm', async () => {
      const { blocked } = await attackInReadMode(origin(), '/shared-worker-post', /\/w\/shared-worker/);
      expect(received).toEqual([]);
      const entry = blocked.find((b) => /\/w\/shared-worker/.test(b.url));
      expect(entry).toMatchObject({ url: expect.stringContaining('POST '), reason: 'read mode: POST requests are not sent' });
      expect(entry?.resourceType).toMatch(/^write \(/);
    });

    it('a POST from a dedicated worker is not sent', async () => {
      const { blocked } = await attackInReadMode(origin(), '/dedicated-worker-post', /\/w\/dedicated-worker/);
      expect(received).toEqual([]);
      expect(blocked.some((b) => /\/w\/dedicated-worker/.test(b.url))).toBe(true);
    });

    it('a WebSocket message sent from a shared worker never reaches the server', async () => {
      const { blocked } = await attackInReadMode(origin(), '/shared-worker-ws', /\/ws#send/);
      expect(received).toEqual([]);
      expect(blocked.find((b) => /\/ws#send/.test(b.url))).toMatchObject({ reason: 'read mode: WebSocket messages are not sent' });
    });

    it('a WebSocket message sent from a dedicated worker never reaches the server', async () => {
      const { blocked } = await attackInReadMode(origin(), '/dedicated-worker-ws', /\/ws#send/);
      expect(received).toEqual([]);
      expect(blocked.some((b) => /\/ws#send/.test(b.url))).toBe(true);
    });

    it('a WebSocket message sent by the page itself never reaches the server, while the page still reads the feed', async () => {
      const { page, blocked } = await attackInReadMode(origin(), '/page-ws', /\/ws#send/);
      expect(await page.title()).toBe('greeting');
      expect(received).toEqual([]);
      expect(blocked.find((b) => /\/ws#send/.test(b.url))?.resourceType).toMatch(/^websocket \(websocket/);
    });

    it('a keepalive fetch from a popup that closes at once is not sent', async () => {
      const { blocked } = await attackInReadMode(origin(), '/popup-keepalive', /\/w\/popup-keepalive/);
      expect(received).toEqual([]);
      expect(blocked.some((b) => /\/w\/popup-keepalive/.test(b.url))).toBe(true);
    });

    it('a sendBeacon from a popup that closes at once is not sent', async () => {
      const { blocked } = await attackInReadMode(origin(), '/popup-beacon', /\/w\/popup-beacon/);
      expect(received).toEqual([]);
      expect(blocked.some((b) => /\/w\/popup-beacon/.test(b.url))).toBe(true);
    });

    it('fetchLater with activateAfter: 0 is not sent', async () => {
      const { page, blocked } = await attackInReadMode(origin(), '/fetch-later', /\/w\/fetch-later/);
      // Whatever is still deferred is sent when the page goes away: that too meets the gate.
      await page.close();
      await until(() => blocked.some((b) => /\/w\/fetch-later/.test(b.url)));
      expect(received).toEqual([]);
      expect(blocked.some((b) => /\/w\/fetch-later/.test(b.url))).toBe(true);
    });

    it('a PUT from a srcdoc frame is not sent', async () => {
      await attackInReadMode(origin(), '/frame-post', /\/w\/frame/);
      expect(received).toEqual([]);
    });

    it('an OPTIONS request with a body (no preflight, same origin) is a write: not sent', async () => {
      const { blocked } = await attackInReadMode(origin(), '/options-body', /\/w\/options-body/);
      expect(received).toEqual([]);
      expect(blocked.some((b) => /\/w\/options-body/.test(b.url))).toBe(true);
    });

    it('a GET carrying X-HTTP-Method-Override is a write: not sent', async () => {
      const { blocked } = await attackInReadMode(origin(), '/method-override', /\/w\/method-override/);
      expect(received).toEqual([]);
      expect(blocked.some((b) => /\/w\/method-override/.test(b.url))).toBe(true);
    });

    it('a WebSocket close frame reaches the server with its code only, never the reason text the page chose', async () => {
      const { page } = await fenced(origin(), 'read');
      await page.goto(`${origin()}/ws-close-reason`);
      await until(() => closes.length > 0);
      expect(closes).toEqual(['1000']);
    });

    it("the provider's declared session-refresh write still goes out in read mode, from any realm", async () => {
      const { page } = await fenced(origin(), 'read');
      await page.goto(`${origin()}/shared-worker-refresh`);
      await until(() => received.length > 0);
      expect(received).toEqual(['POST /session/refresh']);
    });
  });
});

describe('changes sent are counted in every realm (never repeat a change after a browser loss)', () => {
  describe.each(schemes)('%s', (_name, origin) => {
    it('counts a shared worker POST, a WebSocket message from a shared worker and a popup beacon, each once, as they are sent', async () => {
      const { page, changes } = await fenced(origin(), 'read_write');
      // Each in a page of its own: a shared worker ends with the last page that uses it.
      await page.goto(`${origin()}/shared-worker-post`);
      await (await page.context().newPage()).goto(`${origin()}/shared-worker-ws`);
      const opener = await page.context().newPage();
      // As above: a popup that closes at once may go before its beacon starts; then it is opened again.
      for (let attempt = 0; attempt < 3 && !received.includes('POST /w/popup-beacon'); attempt++) {
        await opener.goto(`${origin()}/popup-beacon`);
        // Long enough for a loaded machine's beacon: a second attempt after a late first one would send it twice.
        await until(() => received.includes('POST /w/popup-beacon'), 15_000);
      }
      await until(() => received.length >= 3);
      await new Promise((r) => setTimeout(r, 300));
      expect([...received].sort()).toEqual(['POST /w/popup-beacon', 'POST /w/shared-worker', 'WS from-shared-worker']);
      expect(changes.map((c) => `${c.method} ${new URL(c.url).pathname}`).sort()).toEqual([
        'POST /w/popup-beacon',
        'POST /w/shared-worker',
        'WEBSOCKET /ws',
      ]);
    });
  });
});
