import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';

import type { ChangeSent, EgressBlock } from './change-gate';
import type { EgressProxy, EgressProxyOptions } from './egress-proxy-options';
import { openWebSocket, type TunnelTarget, type WebSocketSockets } from './egress-websocket';
import { interceptionAuthority } from './interception-authority';
import { destinationIn, endToEnd, framing, realmOf } from './proxy-headers';
import { isReadOnlyRequest } from './read-only';
import { resolveChecked, systemResolver } from './resolve';
import { ResumingAgent, trustContext, TunnellingAgent, upstreamTunnel } from './upstream-agents';
import { UpstreamProxyError } from './upstream-proxy';
import type { RelayedSocket } from './websocket-relay';
import { ByteBudget, isWorkerScript, sendWithPrelude } from './worker-prelude';
import { type Approve, failApproved, holdRequest } from './write-hold';

export type { ChangeGate, ChangeSent, EgressBlock, HeldWrite } from './change-gate';
export type { EgressProxy, EgressProxyOptions } from './egress-proxy-options';

/** Chromium never sends loopback traffic to a proxy unless the bypass list removes its implicit rule: `<-loopback>` does. */
export const PROXY_BYPASS = '<-loopback>';

/** How long a new tunnel may go before its first request (TLS handshake included). */
const TUNNEL_FIRST_REQUEST_MS = 30_000;
/** The TLS record type of a handshake: the first byte a browser sends in a TLS tunnel. */
const TLS_HANDSHAKE = 0x16;

/** One request on its way: what the browser sent, its answer, its URL and where it goes. */
interface Exchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  target: TunnelTarget;
}

/**
 * The egress fence of one browser context, at the network layer. Every connection the context makes goes through
 * this forward proxy: navigations, each redirect hop, sub-resources, fetch/XHR, beacons, `fetchLater`, WebSockets,
 * and the requests of every realm (frames, popups, dedicated, shared and service workers), since the browser's
 * network stack cannot skip a proxy. Design: a per-context proxy rather than Playwright's `context.route`, because
 * route is never called for redirect hops nor for shared workers; node:http rather than a proxy library, because the
 * things we need (one lookup per connection with every address checked, connecting to exactly the checked address,
 * and a say over each request and WebSocket frame) are the whole proxy.
 *
 * Tunnels (CONNECT: https, ws and wss) are opened, not passed through blindly: a TLS tunnel is terminated with this
 * process's interception CA (interception-authority.ts), a plain one (ws://) is read as HTTP, and either way each
 * request inside is checked and forwarded like a plain one, the upstream certificate verified here. So the proxy sees
 * every request's method and every WebSocket data frame, and that is where a run's `ChangeGate` decides what may
 * change the provider (read mode), and where the changes sent are counted (never repeat a change after a browser
 * loss). Anything in a tunnel that is neither TLS nor HTTP is refused. With `ChangeGate.approve`, each write the gate
 * lets through is held here, whole and unsent, until it is approved (write-hold.ts, websocket-relay.ts); without it,
 * bodies stream through as they arrive.
 *
 * A refused plain request, and a write the gate refuses anywhere, get their connection closed (the browser sees a network
 * error, not a page that could pass for the target); a refused tunnel gets 403, as does another refusal inside one (no
 * body). Each refusal is reported to `onBlocked`, for the run's trace.
 */
export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const { policy, gate } = opts;
  const preludeBudget = new ByteBudget(); // what this proxy holds of worker scripts at once (worker-prelude.ts)
  const resolver = opts.resolver ?? systemResolver;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 15_000;
  const authority = opts.authority ?? (await interceptionAuthority());
  const upstreamContext = opts.upstreamCa?.length ? trustContext(opts.upstreamCa) : undefined;
  const sockets = new Set<net.Socket>();
  /** The WebSockets relayed now, each until its page's side closes. */
  const relayed = new Set<RelayedSocket>();
  const track = (s: net.Socket) => {
    // A kept-alive upstream socket comes back for each request it carries: one close listener is enough.
    if (sockets.has(s)) return;
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const report = (b: EgressBlock) => {
    try {
      opts.onBlocked(b);
    } catch {
      // reporting must never keep a refused connection open
    }
  };
  const block = (url: string, kind: EgressBlock['kind'], reason: string, method?: string) =>
    report({ url: url.slice(0, 300), kind, reason, method: method?.toUpperCase() });
  const changeSent = (change: ChangeSent) => {
    try {
      opts.onChangeSent?.(change);
    } catch {
      // counting must never fail a request
    }
  };
  const tunnel = opts.upstreamProxy ? upstreamTunnel(opts.upstreamProxy, policy, resolver, connectTimeoutMs) : undefined;
  // Upstream connections are kept alive per checked address (and, for TLS, per server name), within this context only.
  const agents = {
    http: tunnel ? new TunnellingAgent({ keepAlive: true, maxSockets: 16 }, tunnel) : new http.Agent({ keepAlive: true, maxSockets: 16 }),
    https: new ResumingAgent({ keepAlive: true, maxSockets: 16 }, tunnel),
  };
  const tlsOptions = (hostname: string) => ({
    ...(net.isIP(hostname) ? {} : { servername: hostname }),
    ...(upstreamContext ? { secureContext: upstreamContext } : {}),
    rejectUnauthorized: true,
    checkServerIdentity: (_: string, cert: tls.PeerCertificate) => tls.checkServerIdentity(hostname, cert),
  });

  /**
   * Bounds connecting to the upstream, not the exchange after it: a long poll or an event stream may stay quiet for
   * minutes, as it could in the tunnels this proxy used to pipe blindly.
   */
  const boundConnect = (upstream: http.ClientRequest, url: URL) => {
    upstream.on('socket', (socket) => {
      track(socket);
      socket.setNoDelay(true);
      if (!socket.connecting) return;
      const timer = setTimeout(() => upstream.destroy(new Error('timed out connecting')), connectTimeoutMs);
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      // Certificate failures are the proxy's verdict on the upstream: shown in the trace like a refusal.
      if (/CERT|SELF_SIGNED|ALTNAME|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(err.code ?? '')) {
        block(url.toString(), 'request', `the upstream certificate was not trusted (${err.code})`);
      }
      // The exit the connection must use failed: the request is not sent any other way, and the trace says why.
      if (err instanceof UpstreamProxyError) block(url.toString(), 'upstream', err.message);
    });
  };

  const readClosed = (url: URL): boolean => {
    const why = gate?.read?.(url) ?? null; // reads shut too: a context no run holds (context-wiring.ts)
    if (why) block(url.toString(), 'request', why);
    return why !== null;
  };
  const reportWrite = (change: ChangeSent, reason: string) =>
    report({ url: `${change.method} ${change.url}`.slice(0, 300), kind: 'write', reason, realm: change.realm });

  /**
   * Sends one checked request on, through the gate: a request that may write is refused (reported, and `refuse`
   * answers the browser) or, with `approve`, held unsent until approved (write-hold.ts); it is counted as it goes out.
   */
  const send = (exchange: Exchange, refuse: () => void) => {
    const { req, url } = exchange;
    const method = (req.method ?? 'GET').toUpperCase();
    if (isReadOnlyRequest(method, req.headers)) {
      if (readClosed(url)) return refuse();
      // Kept alive (no connection: close): the tunnel goes on serving the page's other requests to the same host.
      if (destinationIn(req.headers, opts.skipDestinations)) return void exchange.res.writeHead(403, { 'content-length': '0' }).end();
      return forward(exchange);
    }
    const change = { method, url: url.toString(), realm: realmOf(req.headers) };
    const why = gate?.request(method, url) ?? null;
    if (why) {
      reportWrite(change, why);
      return void req.socket.destroy(); // no 403 from the provider's origin: an app may read it as "signed out"
    }
    if (gate?.approve) {
      void sendApproved(gate.approve, exchange, change, refuse).catch(() => failApproved(exchange.res));
      return;
    }
    changeSent(change);
    forward(exchange);
  };

  const sendApproved = async (approve: Approve, exchange: Exchange, change: ChangeSent, refuse: () => void) => {
    const held = await holdRequest(approve, exchange.req, exchange.res, change);
    if (held === 'gone') return exchange.res.destroy();
    if ('refused' in held) {
      reportWrite(change, held.refused);
      return refuse();
    }
    changeSent(change);
    forward(exchange, held.send);
  };

  /** Forwards one checked request to the checked address (its body streamed, or the held `body`), piping the answer back. */
  const forward = ({ req, res, url, target }: Exchange, body?: Buffer) => {
    const headers = endToEnd(req.rawHeaders);
    opts.rewriteHeaders?.(headers);
    opts.signer?.sign(req.method ?? 'GET', url, headers);
    const prelude = opts.workerPrelude && isWorkerScript(headers) ? opts.workerPrelude : null;
    const options = {
      host: target.address,
      family: target.family,
      port: target.port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, host: url.host, ...framing(req, body) },
      setHost: false,
    };
    const upstream = target.secure
      ? https.request({ ...options, ...tlsOptions(target.hostname), agent: agents.https })
      : http.request({ ...options, agent: agents.http });
    boundConnect(upstream, url);
    upstream.on('response', (answer) => {
      // The upstream is not ours: a status outside 100–599 or a bad header would make writeHead throw, and a throw
      // in this listener would end the whole process. Only the code is passed on (Node writes the standard reason).
      const status = answer.statusCode ?? 0;
      try {
        if (status < 100 || status > 599) throw new Error(`invalid status ${status}`);
        if (prelude) return void sendWithPrelude(answer, res, status, prelude, preludeBudget);
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
    upstream.on('error', (err) => {
      // The exit failed: a network error as for a refusal (a 502 could pass for the site's); an approved write: failApproved.
      if (err instanceof UpstreamProxyError && !body) res.destroy();
      else failApproved(res);
    });
    if (body) upstream.end(body);
    else req.pipe(upstream);
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
  };

  /** What a relayed WebSocket needs of this proxy (egress-websocket.ts). */
  const webSockets: WebSocketSockets = { opts, readClosed, tlsOptions, tunnel, boundConnect, track, changeSent, report, block, relayed };

  const server = http.createServer({ requestTimeout: 0 });
  // Small writes (a request's head, a WebSocket frame) go out at once: Nagle's wait meets the peer's delayed ACK.
  server.on('connection', (s: net.Socket) => {
    s.setNoDelay(true);
    track(s);
  });

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    void (async () => {
      let url: URL | null = null;
      try {
        url = new URL(req.url ?? '');
      } catch {
        // origin-form ("/path"): somebody spoke to the proxy as if it were a web server
      }
      if (!url || url.protocol !== 'http:') {
        block(String(req.url), 'request', 'not an absolute http URL');
        res.writeHead(400, { connection: 'close' }).end();
        return;
      }
      const verdict = policy.checkUrl(url);
      const port = url.port ? Number(url.port) : 80;
      const resolved = verdict.ok ? await resolveChecked(url.hostname, policy.addressRule(url.hostname, port), resolver) : verdict;
      if (!resolved.ok) {
        block(url.toString(), 'request', resolved.reason, req.method);
        req.socket.destroy();
        return;
      }
      const hostname = url.hostname.replace(/^\[|\]$/g, '');
      const target = { hostname, port, address: resolved.address, family: resolved.family, secure: false };
      send({ req, res, url, target }, () => req.socket.destroy());
    })().catch(() => res.destroy());
  });

  // Inside a tunnel: one HTTP server, never listening, fed the tunnels' (decrypted) streams.
  const targets = new WeakMap<net.Socket, TunnelTarget>();
  /** The first-request timer of each tunnel, by the stream the inner server reads (cleared by its first request). */
  const idleTimers = new WeakMap<net.Socket, NodeJS.Timeout>();
  const tunnelSpoke = (socket: net.Socket) => {
    clearTimeout(idleTimers.get(socket));
    idleTimers.delete(socket);
  };
  const inner = http.createServer({ requestTimeout: 0 });
  inner.on('clientError', (_err, socket) => socket.destroy());

  /** The URL a request inside a tunnel names, or null when it names another host than the tunnel's. */
  const innerUrl = (req: http.IncomingMessage, target: TunnelTarget): URL | null => {
    const path = req.url ?? '/';
    if (!path.startsWith('/')) return null;
    const authorityHost = target.hostname.includes(':') ? `[${target.hostname}]` : target.hostname;
    const url = new URL(`${target.secure ? 'https' : 'http'}://${authorityHost}:${target.port}${path}`);
    let named: string;
    try {
      named = new URL(`http://${req.headers.host ?? ''}`).hostname;
    } catch {
      return null;
    }
    return named === url.hostname ? url : null;
  };

  const checkInner = (req: http.IncomingMessage, socket: net.Socket): { url: URL; target: TunnelTarget } | null => {
    const target = targets.get(socket);
    if (!target) return null;
    const url = innerUrl(req, target);
    if (!url) {
      block(
        `${target.hostname}:${target.port} Host: ${String(req.headers.host)}`,
        'request',
        'a request inside a tunnel named another host',
      );
      return null;
    }
    // The tunnel was checked by host and port; the request is checked by its whole URL (scheme included).
    const verdict = policy.checkUrl(url, { webSockets: true });
    if (!verdict.ok) {
      block(url.toString(), 'request', verdict.reason, req.method);
      return null;
    }
    return { url, target };
  };

  inner.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    tunnelSpoke(req.socket);
    const checked = checkInner(req, req.socket);
    if (!checked) {
      res.writeHead(403, { connection: 'close' }).end();
      return;
    }
    send({ req, res, ...checked }, () => res.writeHead(403, { connection: 'close' }).end());
  });

  inner.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    tunnelSpoke(socket);
    const checked = checkInner(req, socket);
    if (!checked || (req.method ?? '').toUpperCase() !== 'GET' || String(req.headers.upgrade).toLowerCase() !== 'websocket') {
      if (checked) block(checked.url.toString(), 'request', 'only WebSocket upgrades are accepted');
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    openWebSocket(webSockets, req, socket, head, checked.url, checked.target);
  });

  /** Hands a tunnel's stream to the inner server: through TLS when the browser starts a handshake, as it is otherwise. */
  const openTunnel = (socket: net.Socket, target: TunnelTarget) => {
    // A tunnel the browser opens and never speaks in (or never finishes a TLS handshake in) is closed, not kept.
    const idle = setTimeout(() => socket.destroy(), TUNNEL_FIRST_REQUEST_MS);
    socket.once('close', () => clearTimeout(idle));
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      if (first[0] !== TLS_HANDSHAKE) {
        idleTimers.set(socket, idle);
        targets.set(socket, target);
        inner.emit('connection', socket);
        socket.resume();
        return;
      }
      void authority
        .contextFor(target.hostname)
        .then((secureContext) => {
          const secure = new tls.TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
          secure.on('error', () => socket.destroy());
          idleTimers.set(secure, idle);
          targets.set(secure, { ...target, secure: true });
          inner.emit('connection', secure);
        })
        .catch(() => socket.destroy());
    });
  };

  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    void (async () => {
      const tunnel = req.url ?? '';
      const refuse = (reason: string) => {
        block(tunnel, 'tunnel', reason);
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      };
      socket.on('error', () => socket.destroy());
      const verdict = policy.checkTunnel(tunnel);
      if (!verdict.ok) return refuse(verdict.reason);
      const url = new URL(`http://${tunnel}`);
      const port = Number(url.port || 80);
      const resolved = await resolveChecked(url.hostname, policy.addressRule(url.hostname, port), resolver);
      if (!resolved.ok) return refuse(resolved.reason);
      const hostname = url.hostname.replace(/^\[|\]$/g, '');
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) socket.unshift(head);
      openTunnel(socket, { hostname, port, address: resolved.address, family: resolved.family, secure: false });
    })().catch(() => socket.destroy());
  });

  // Chromium tunnels WebSockets with CONNECT; an upgrade on a plain proxied request is not a path we offer.
  server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
    block(String(req.url), 'request', 'upgrade requests are only accepted through a tunnel');
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    reportUnfinishedMessages: () => {
      for (const relay of relayed) relay.reportUnfinished();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        agents.http.destroy();
        agents.https.destroy();
      }),
  };
}
