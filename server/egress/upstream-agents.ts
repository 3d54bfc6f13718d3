import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';

import type { EgressPolicy } from './egress-policy';
import { resolveChecked, type Resolver } from './resolve';
import { openUpstreamTunnel, type UpstreamProxy, UpstreamProxyError } from './upstream-proxy';

/**
 * How the egress proxy (egress-proxy.ts) connects to a checked address: its agents (kept-alive connections per
 * context, TLS sessions resumed across contexts), the trust of upstream certificates, and the tunnels through a
 * connection's upstream proxy.
 */

/**
 * TLS sessions of upstream servers, kept for the whole process: each run is a fresh context with a fresh proxy, and
 * without this each would repeat full handshakes (certificate chain verified again) with the same provider. Only
 * sessions are shared, never connections: a kept-alive connection stays with the context that opened it. Keyed by
 * the checked address, port and server name; a session resumes only with the server that issued it.
 */
const upstreamSessions = new Map<string, Buffer>();
const UPSTREAM_SESSIONS_MAX = 512;

/** Opens the raw stream to a checked address and port through the upstream proxy (see upstream-proxy.ts). */
export type Tunnel = (address: string, port: number) => Promise<net.Socket>;
type OnConnection = (err: Error | null, stream: Duplex) => void;

export class ResumingAgent extends https.Agent {
  constructor(
    options: https.AgentOptions,
    private readonly tunnel?: Tunnel,
  ) {
    super(options);
  }

  // Node's Agent takes the stream from the callback when this returns nothing (the tunnel opens asynchronously).
  override createConnection(options: tls.ConnectionOptions, done?: OnConnection): Duplex | undefined {
    const key = `${options.host}|${options.port}|${options.servername ?? ''}|${options.secureContext ? (trustKeys.get(options.secureContext) ?? 'other') : 'system'}`;
    const secure = (socket?: net.Socket) => {
      const tlsSocket = tls.connect({ ...options, ...(socket ? { socket } : {}), session: upstreamSessions.get(key) });
      tlsSocket.on('session', (session: Buffer) => {
        upstreamSessions.delete(key);
        upstreamSessions.set(key, session);
        if (upstreamSessions.size > UPSTREAM_SESSIONS_MAX) upstreamSessions.delete(upstreamSessions.keys().next().value as string);
      });
      return tlsSocket;
    };
    if (!this.tunnel) return secure();
    this.tunnel(String(options.host), Number(options.port)).then(
      (raw) => done?.(null, secure(raw)),
      (err: Error) => done?.(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/** Plain http to a checked address, through the upstream proxy's tunnel. */
export class TunnellingAgent extends http.Agent {
  constructor(
    options: http.AgentOptions,
    private readonly tunnel: Tunnel,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, done?: OnConnection): Duplex | undefined {
    this.tunnel(String(options.host), Number(options.port)).then(
      (raw) => done?.(null, raw),
      (err: Error) => done?.(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/**
 * The trust of upstream certificates with extra roots: the system's plus these, built once per set. Handing `ca` to
 * each connection instead would parse every root certificate again on each handshake (tens of milliseconds).
 */
const trustContexts = new Map<string, tls.SecureContext>();
/** Each trust context's CA set, hashed: a session verified under one set never resumes under another. */
const trustKeys = new WeakMap<tls.SecureContext, string>();
export function trustContext(extra: readonly string[]): tls.SecureContext {
  const key = createHash('sha256').update(extra.join('\n')).digest('hex').slice(0, 32);
  let context = trustContexts.get(key);
  if (!context) {
    context = tls.createSecureContext({ ca: [...tls.rootCertificates, ...extra] });
    if (trustContexts.size >= 8) trustContexts.clear();
    trustContexts.set(key, context);
    trustKeys.set(context, key);
  }
  return context;
}

/**
 * The tunnels of one context through its upstream proxy. The proxy's own address is resolved once per context and
 * judged by the policy (upstreamProxyRule) like any destination; every tunnel then goes to exactly that address.
 */
export function upstreamTunnel(proxy: UpstreamProxy, policy: EgressPolicy, resolver: Resolver, timeoutMs: number): Tunnel {
  let via: Promise<{ address: string; family: number }> | null = null;
  const checkedProxy = () => {
    via ??= resolveChecked(proxy.host, policy.upstreamProxyRule(proxy.port), resolver).then((r) => {
      if (r.ok) return { address: r.address, family: r.family };
      via = null; // a lookup that failed is tried again by the next connection; a refusal is refused again
      throw new UpstreamProxyError(`at ${proxy.host}:${proxy.port} is not allowed: ${r.reason}`);
    });
    return via;
  };
  return async (address, port) => openUpstreamTunnel(proxy, await checkedProxy(), { address, port }, timeoutMs);
}
