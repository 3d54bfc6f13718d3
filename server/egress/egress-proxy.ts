import http from 'node:http';
import net from 'node:net';

import type { EgressPolicy } from './egress-policy';
import { resolveChecked, type Resolver, systemResolver } from './resolve';

/**
 * The egress fence of one browser context, at the network layer. Every connection the context makes goes through
 * this forward proxy: navigations, each redirect hop, sub-resources, fetch/XHR, WebSockets (tunnelled with
 * CONNECT), popups and new tabs of the same context. Design: a per-context proxy rather than Playwright's
 * `context.route`, because route is never called for redirect hops and the browser's own network stack cannot skip
 * a proxy; node:http with CONNECT rather than a proxy library, because the two things we need (one lookup per
 * connection with every address checked, and connecting to exactly the checked address) are the whole proxy.
 *
 * Plain http requests are checked by their full URL; CONNECT by host:port (the path inside TLS is not ours to see).
 * A refused plain request gets its connection closed (the browser sees a network error, not a page that could pass
 * for the target); a refused tunnel gets 403. Each refusal is reported to `onBlocked`, for the run's trace.
 */
export interface EgressBlock {
  url: string;
  /** `request` (plain http) or `tunnel` (CONNECT: https, WebSockets). */
  kind: 'request' | 'tunnel';
  reason: string;
}

export interface EgressProxy {
  /** For Playwright: `{ server, bypass: '<-loopback>' }`. */
  readonly server: string;
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  policy: EgressPolicy;
  onBlocked(block: EgressBlock): void;
  resolver?: Resolver;
  /** Budget for connecting to the target (default 15 s). */
  connectTimeoutMs?: number;
}

/** Chromium never sends loopback traffic to a proxy unless the bypass list removes its implicit rule: `<-loopback>` does. */
export const PROXY_BYPASS = '<-loopback>';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(raw: string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() === 'connection') raw[i + 1].split(',').forEach((n) => named.add(n.trim().toLowerCase()));
  }
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name) || name === 'host') continue;
    const prev = out[name];
    out[name] = prev === undefined ? raw[i + 1] : ([] as string[]).concat(prev, raw[i + 1]);
  }
  return out;
}

export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const { policy } = opts;
  const resolver = opts.resolver ?? systemResolver;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 15_000;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const block = (url: string, kind: EgressBlock['kind'], reason: string) => {
    try {
      opts.onBlocked({ url, kind, reason });
    } catch {
      // reporting must never keep a refused connection open
    }
  };

  const server = http.createServer({ requestTimeout: 0 });
  server.on('connection', track);

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    void (async () => {
      let url: URL | null = null;
      try {
        url = new URL(req.url ?? '');
      } catch {
        // origin-form ("/path"): somebody spoke to the proxy as if it were a web server
      }
      if (!url || url.protocol !== 'http:') {
        block(String(req.url).slice(0, 300), 'request', 'not an absolute http URL');
        res.writeHead(400, { connection: 'close' }).end();
        return;
      }
      const verdict = policy.checkUrl(url);
      const port = url.port ? Number(url.port) : 80;
      const resolved = verdict.ok ? await resolveChecked(url.hostname, policy.addressRule(url.hostname, port), resolver) : verdict;
      if (!resolved.ok) {
        block(url.toString(), 'request', resolved.reason);
        req.socket.destroy();
        return;
      }
      const upstream = http.request({
        host: resolved.address,
        family: resolved.family,
        port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...endToEnd(req.rawHeaders), host: url.host },
        setHost: false,
        agent: false,
        timeout: connectTimeoutMs,
      });
      upstream.on('socket', track);
      upstream.on('timeout', () => upstream.destroy(new Error('timed out')));
      upstream.on('response', (answer) => {
        // The upstream is not ours: a status outside 100–599 or a bad header would make writeHead throw, and a throw
        // in this listener would end the whole process. Only the code is passed on (Node writes the standard reason).
        const status = answer.statusCode ?? 0;
        try {
          if (status < 100 || status > 599) throw new Error(`invalid status ${status}`);
          res.writeHead(status, endToEnd(answer.rawHeaders));
        } catch {
          answer.destroy();
          if (!res.headersSent) res.writeHead(502, { connection: 'close' }).end();
          else res.destroy();
          return;
        }
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      upstream.on('error', () => {
        if (res.headersSent) res.destroy();
        else res.writeHead(502, { connection: 'close' }).end();
      });
      req.pipe(upstream);
      res.on('close', () => upstream.destroy());
    })().catch(() => res.destroy());
  });

  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    void (async () => {
      const authority = req.url ?? '';
      const refuse = (reason: string) => {
        block(authority.slice(0, 300), 'tunnel', reason);
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      };
      socket.on('error', () => socket.destroy());
      const verdict = policy.checkTunnel(authority);
      if (!verdict.ok) return refuse(verdict.reason);
      const target = new URL(`http://${authority}`);
      const port = Number(target.port || 80);
      const resolved = await resolveChecked(target.hostname, policy.addressRule(target.hostname, port), resolver);
      if (!resolved.ok) return refuse(resolved.reason);
      const upstream = net.connect({ host: resolved.address, family: resolved.family, port });
      track(upstream);
      upstream.setTimeout(connectTimeoutMs, () => upstream.destroy());
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        upstream.setTimeout(0);
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => undefined); // 'close' follows and answers
      upstream.on('close', () => {
        if (connected) socket.destroy();
        else socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
      });
      socket.on('close', () => upstream.destroy());
    })().catch(() => socket.destroy());
  });

  // Chromium tunnels WebSockets with CONNECT; an upgrade on a plain proxied request is not a path we offer.
  server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
    block(String(req.url).slice(0, 300), 'request', 'upgrade requests are only accepted through a tunnel');
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
