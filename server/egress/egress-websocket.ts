import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import type tls from 'node:tls';

import type { ChangeSent, EgressBlock } from './change-gate';
import type { EgressProxyOptions } from './egress-proxy-options';
import { endToEnd, HOP_BY_HOP, realmOf } from './proxy-headers';
import { ResumingAgent, type Tunnel, TunnellingAgent } from './upstream-agents';
import { type RelayedSocket, relayWebSocket } from './websocket-relay';
import { askApproval } from './write-hold';

/** Where a tunnel leads: checked once when it opens; every request inside goes exactly there. */
export interface TunnelTarget {
  hostname: string;
  port: number;
  address: string;
  family: number;
  secure: boolean;
}

/** What a relayed WebSocket needs of its egress proxy (egress-proxy.ts): its options, checks, upstream and reports. */
export interface WebSocketSockets {
  opts: EgressProxyOptions;
  readClosed: (url: URL) => boolean;
  tlsOptions: (hostname: string) => tls.ConnectionOptions;
  tunnel: Tunnel | undefined;
  boundConnect: (upstream: http.ClientRequest, url: URL) => void;
  track: (socket: net.Socket) => void;
  changeSent: (change: ChangeSent) => void;
  report: (block: EgressBlock) => void;
  block: (url: string, kind: EgressBlock['kind'], reason: string) => void;
  /** The WebSockets relayed now, each until its page's side closes. */
  relayed: Set<RelayedSocket>;
}

/** Opens one WebSocket to the provider and relays it (websocket-relay.ts): the page's messages through the gate. */
export function openWebSocket(
  proxy: WebSocketSockets,
  req: http.IncomingMessage,
  socket: net.Socket,
  head: Buffer,
  url: URL,
  target: TunnelTarget,
): void {
  const { opts, readClosed, tlsOptions, tunnel, boundConnect, track, changeSent, report, block, relayed } = proxy;
  const { gate } = opts;
  if (readClosed(url)) return void socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
  const refuseMessages = gate?.webSocketMessages ?? null;
  const headers = endToEnd(req.rawHeaders, HOP_BY_HOP);
  opts.rewriteHeaders?.(headers);
  opts.signer?.sign('GET', url, headers);
  // Frames are dropped whole in read mode, and held messages are read whole: no compression context may span them.
  if (refuseMessages || gate?.approve) delete headers['sec-websocket-extensions'];
  const options = {
    host: target.address,
    family: target.family,
    port: target.port,
    method: 'GET',
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, host: url.host, connection: 'Upgrade', upgrade: 'websocket' },
    setHost: false,
  };
  // A WebSocket keeps its connection to itself: a one-off agent, through the upstream proxy when there is one.
  const upstream = target.secure
    ? https.request({ ...options, ...tlsOptions(target.hostname), agent: tunnel ? new ResumingAgent({}, tunnel) : false })
    : http.request({ ...options, agent: tunnel ? new TunnellingAgent({}, tunnel) : false });
  boundConnect(upstream, url);
  upstream.on('error', () => socket.destroy());
  upstream.on('response', (answer) => {
    // Not upgraded (refused, redirected …): the answer goes back as it is and the connection ends.
    const lines = [`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}`];
    for (const [name, value] of Object.entries(endToEnd(answer.rawHeaders))) for (const v of [value].flat()) lines.push(`${name}: ${v}`);
    socket.write(`${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`);
    answer.pipe(socket);
  });
  upstream.on('upgrade', (answer, upstreamSocket, upstreamHead) => {
    track(upstreamSocket);
    const lines = [`HTTP/1.1 101 ${answer.statusMessage ?? 'Switching Protocols'}`];
    for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (upstreamHead.length) socket.write(upstreamHead);
    const realm = realmOf(req.headers);
    const message = { method: 'WEBSOCKET', url: url.toString(), realm };
    const approve = gate?.approve;
    const relay = relayWebSocket({
      page: socket,
      upstream: upstreamSocket,
      head,
      refuseMessages,
      ...(approve
        ? { approve: (body: Buffer, signal: AbortSignal) => askApproval(approve, { ...message, contentType: null, body }, signal) }
        : {}),
      onSent: () => changeSent(message),
      onRefused: (reason, dropped) =>
        report({
          url: `${message.url}#send`.slice(0, 300),
          kind: 'websocket',
          reason,
          realm,
          ...(dropped ? { message: { text: dropped.payload.toString(dropped.binary ? 'latin1' : 'utf8'), cut: dropped.cut } } : {}),
        }),
      onBroken: (reason) => block(message.url, 'websocket', reason),
    });
    if (!socket.destroyed) {
      relayed.add(relay);
      socket.once('close', () => relayed.delete(relay));
    }
  });
  upstream.end();
}
