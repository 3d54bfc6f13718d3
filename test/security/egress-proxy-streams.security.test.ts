import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';

import { changeGate } from '../../server/agent/run/network-guard';
import { launchBrowser } from '../../server/browser/chromium';
import { EgressPolicy, hostNetworkOf } from '../../server/egress/egress-policy';
import { type EgressProxy, startEgressProxy } from '../../server/egress/egress-proxy';
import { eventually } from '../agent/agent-support';
import { freePort } from '../support/free-port';
import { startRemoteChromium } from '../support/remote-chromium';

/**
 * The egress proxy's streams, attacked below the browser: what a page cannot send today but a future browser (or a
 * bug) might, must still not get past the proxy. A chunked body is never forwarded unframed (it would be read upstream
 * as a request of its own, past the gate and the count); a WebSocket page that sends faster than the provider reads is
 * held back instead of filling the worker's memory; a remote browser that would send WebRTC UDP around the proxy is
 * refused; a remote browser's DevTools port counts as one of the service's own.
 */
jest.setTimeout(60_000);

const seen: string[] = [];
let upstream: http.Server;
let port = 0;
const proxies: EgressProxy[] = [];
/** What a test opened besides the shared site and proxies, closed after it however it ended. */
const cleanups: (() => void)[] = [];
const afterThis = (cleanup: () => void) => cleanups.push(cleanup);
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('latin1')));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body.length}`);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  port = (upstream.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

beforeEach(() => {
  seen.length = 0;
});

async function proxyFor(mode: 'read' | 'read_write') {
  const policy = EgressPolicy.forProvider(
    { name: 'Site', homeUrl: `http://site.localhost:${port}/`, allowedOrigins: ['site.localhost'] },
    'sandbox',
  );
  const blocked: string[] = [];
  const changes: string[] = [];
  const proxy = await startEgressProxy({
    policy,
    onBlocked: (b) => blocked.push(b.url),
    gate: changeGate(mode),
    onChangeSent: (c) => changes.push(`${c.method} ${new URL(c.url).pathname}`),
  });
  proxies.push(proxy);
  return { proxy, blocked, changes, proxyPort: Number(new URL(proxy.server).port) };
}

/** Writes raw bytes to the proxy and resolves with whatever it answered before closing (or after `ms`). */
function raw(proxyPort: number, bytes: string, ms = 1500): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(proxyPort, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    const done = () => resolve(answer);
    socket.on('close', done);
    socket.on('error', done);
    setTimeout(() => socket.destroy(), ms);
  });
}

const smuggled = (method: string) => {
  const inner = `POST /smuggled HTTP/1.1\r\nHost: site.localhost:${port}\r\nContent-Length: 5\r\n\r\nWRITE`;
  const chunk = `${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`;
  return `${method} http://site.localhost:${port}/innocent HTTP/1.1\r\nHost: site.localhost:${port}\r\nTransfer-Encoding: chunked\r\n\r\n${chunk}`;
};

describe('egress proxy: framing, flow and ways around it', () => {
  it('read mode: an OPTIONS with a chunked body is a write and is refused; nothing reaches the site', async () => {
    const { proxyPort, blocked } = await proxyFor('read');
    await raw(proxyPort, smuggled('OPTIONS'));
    await eventually(
      async () => blocked.length,
      (n) => n > 0,
    ).catch(() => undefined);
    expect(seen).toEqual([]);
    expect(blocked).toEqual([expect.stringContaining('OPTIONS http://site.localhost')]);
  });

  it('read_write: a chunked body stays framed upstream (never read as a second, uncounted request) and is counted', async () => {
    const { proxyPort, changes } = await proxyFor('read_write');
    await raw(proxyPort, smuggled('DELETE'));
    // The site has the request (waited for: raw's answer need not mean the site's handler ran yet on a loaded machine).
    await eventually(
      async () => seen.length,
      (n) => n > 0,
    ).catch(() => undefined);
    expect(seen.some((s) => s.startsWith('POST /smuggled'))).toBe(false);
    expect(seen).toEqual([expect.stringMatching(/^DELETE \/innocent \d+$/)]);
    expect(changes).toEqual(['DELETE /innocent']);
  });

  it('a page sending WebSocket data faster than the provider reads is held back at the proxy, not buffered in memory', async () => {
    // The provider accepts the upgrade, then never reads.
    const accepted = new Set<net.Socket>();
    const stalled = net.createServer((s) => {
      accepted.add(s);
      s.once('data', () => {
        s.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: x\r\n\r\n');
        s.pause();
      });
    });
    await new Promise<void>((r) => stalled.listen(0, '127.0.0.1', r));
    // Closed with the sockets it accepted (paused, they would keep the server and this jest worker from ending).
    afterThis(() => {
      for (const s of accepted) s.destroy();
      stalled.close();
    });
    const stalledPort = (stalled.address() as net.AddressInfo).port;
    const policy = EgressPolicy.forProvider(
      { name: 'Site', homeUrl: `http://site.localhost:${stalledPort}/`, allowedOrigins: ['site.localhost'] },
      'sandbox',
    );
    const proxy = await startEgressProxy({ policy, onBlocked: () => undefined });
    proxies.push(proxy);
    const client = net.connect(Number(new URL(proxy.server).port), '127.0.0.1');
    afterThis(() => client.destroy());
    await new Promise((r) => client.once('connect', r));
    client.write(`CONNECT site.localhost:${stalledPort} HTTP/1.1\r\nHost: site.localhost:${stalledPort}\r\n\r\n`);
    await new Promise((r) => client.once('data', r));
    client.write(
      `GET /ws HTTP/1.1\r\nHost: site.localhost:${stalledPort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await new Promise((r) => client.once('data', r));
    // 64 MiB of masked binary frames, 1 MiB each.
    const payload = randomBytes(1 << 20);
    const frame = Buffer.concat([Buffer.from([0x82, 0xff]), Buffer.alloc(8), Buffer.alloc(4), payload]);
    frame.writeBigUInt64BE(BigInt(payload.length), 2);
    for (let i = 0; i < 64; i++) client.write(frame);
    await new Promise((r) => setTimeout(r, 1500));
    // What the proxy took from the page is bounded by the socket buffers, not by what the page wrote: the rest is
    // still waiting on the page's side (bytesWritten counts what is queued there too).
    expect(client.bytesWritten - client.writableLength).toBeLessThan(24 << 20);
    expect(client.writableLength).toBeGreaterThan(32 << 20);
  });

  it('refuses a remote browser that would send WebRTC UDP around the proxy, and accepts one started with the flags', async () => {
    const bare = await startRemoteChromium(30_000, await freePort(), { agentlinkFlags: false });
    try {
      await expect(launchBrowser({ wsEndpoint: bare.wsEndpoint })).rejects.toThrow(/WebRTC UDP around the egress proxy/);
    } finally {
      await bare.kill();
    }
    const fenced = await startRemoteChromium(30_000, await freePort());
    try {
      const browser = await launchBrowser({ wsEndpoint: fenced.wsEndpoint });
      expect(browser.isConnected()).toBe(true);
      await browser.close();
    } finally {
      await fenced.kill();
    }
  });

  it("counts a remote browser's DevTools port among the service's own (an organization's site may not point there)", () => {
    const network = hostNetworkOf({
      port: 4000,
      internalUrl: 'http://127.0.0.1:4000',
      publicUrl: 'http://localhost:4000',
      sandboxPrivateNetwork: 'deny',
      browser: { wsEndpoint: 'http://127.0.0.1:9222' },
    });
    expect(network.ownPorts).toEqual([4000, 9222]);
  });
});
