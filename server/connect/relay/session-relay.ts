import type http from 'node:http';
import type { Duplex } from 'node:stream';

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type RawData, WebSocket, type WebSocketServer } from 'ws';

/**
 * Several API processes behind one address: a link session's in-memory part (a sign-in paused at a code step, a live
 * browser) lives in the process that took it on, which records its internal URL on the session (link_sessions.host_url).
 * A widget call for that session reaching any other process is relayed there: HTTP calls are forwarded as they came
 * (body, link token, client address), the live view's WebSocket is piped both ways. The holder authorises every call
 * itself, as if the widget had reached it directly, so the relay adds no trust.
 *
 * A relayed call carries RELAY_HEADER and is never relayed again (no loops, whatever the table says). A holder that
 * cannot be reached (its process ended, and its in-memory part with it) is forgotten, and this process answers the
 * call itself: the widget's flow goes on from what the database knows (a code step becomes a fresh sign-in; the live
 * view opens again here).
 */
export const RELAY_HEADER = 'x-agentlink-relay';

export interface SessionHosts {
  /** The internal URL of the process holding the session, when that is another process. */
  holderOf(linkSessionId: string): Promise<string | null>;
  /** Forgets a holder that could not be reached (only if it is still the one recorded). */
  forget(linkSessionId: string, hostUrl: string): Promise<void>;
}

/** A login step may run as long as the provider's page takes (the engine bounds each step); beyond this the relay gives up. */
const RELAY_TIMEOUT_MS = 120_000;
/** Headers of the widget's call that the holder needs; nothing else crosses (cookies, for one, are never sent). */
const FORWARDED = ['authorization', 'content-type', 'accept', 'accept-language', 'user-agent', 'x-request-id'];
/** Frames waiting to reach a slow widget beyond this are dropped here (the holder has already been told they arrived). */
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;
/** A streamed frame is a JPEG of the widget's size; anything from the holder over this is not one. */
const MAX_UPSTREAM_MESSAGE_BYTES = 8 * 1024 * 1024;

/** Express middleware for `/link/api/sessions/:id/…`, mounted after the body parser (so a fallback can still answer). */
export function relaySessionCalls(hosts: SessionHosts): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = req.params.id;
    if (!id || req.headers[RELAY_HEADER] !== undefined) return next();
    void (async () => {
      const holder = await hosts.holderOf(id);
      if (!holder) return next();
      const headers: Record<string, string> = { [RELAY_HEADER]: '1', 'x-forwarded-for': forwardedFor(req) };
      for (const name of FORWARDED) {
        const v = req.headers[name];
        if (typeof v === 'string') headers[name] = v;
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.body !== undefined;
      let upstream: globalThis.Response;
      try {
        upstream = await fetch(`${holder}${req.originalUrl}`, {
          method: req.method,
          headers,
          ...(hasBody ? { body: typeof req.body === 'string' ? req.body : JSON.stringify(req.body) } : {}),
          redirect: 'manual',
          signal: AbortSignal.timeout(RELAY_TIMEOUT_MS),
        });
      } catch (err) {
        if (!unreachable(err)) throw err;
        await hosts.forget(id, holder);
        return next();
      }
      const body = Buffer.from(await upstream.arrayBuffer());
      res.status(upstream.status);
      for (const name of ['content-type', 'retry-after']) {
        const v = upstream.headers.get(name);
        if (v) res.setHeader(name, v);
      }
      res.end(body);
    })().catch(next);
  };
}

/**
 * The live view's socket, for a session another process holds: opens the same socket there (with the widget's
 * Origin) and pipes both ways. Resolves false when there is nothing to relay to (serve it here).
 */
export async function relayLiveSocket(
  hosts: SessionHosts,
  wss: WebSocketServer,
  linkSessionId: string,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<boolean> {
  if (req.headers[RELAY_HEADER] !== undefined) return false;
  const holder = await hosts.holderOf(linkSessionId);
  if (!holder) return false;
  const upstream = new WebSocket(`${holder.replace(/^http/, 'ws')}${req.url ?? ''}`, {
    headers: { origin: String(req.headers.origin ?? ''), [RELAY_HEADER]: '1', 'x-forwarded-for': forwardedFor(req) },
    perMessageDeflate: false,
    maxPayload: MAX_UPSTREAM_MESSAGE_BYTES,
    handshakeTimeout: 10_000,
  });
  const opened = await new Promise<'open' | 'unreachable' | 'refused'>((resolve) => {
    upstream.once('open', () => resolve('open'));
    upstream.once('unexpected-response', (_r, response) => {
      response.resume();
      resolve('refused');
    });
    upstream.once('error', (err) => resolve(unreachable(err) ? 'unreachable' : 'refused'));
  });
  if (opened === 'unreachable') {
    await hosts.forget(linkSessionId, holder);
    return false;
  }
  if (opened === 'refused') {
    upstream.terminate();
    socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return true;
  }
  upstream.on('error', () => undefined);
  wss.handleUpgrade(req, socket, head, (client) => {
    client.on('error', () => undefined);
    client.on('message', (data: RawData, isBinary: boolean) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
    });
    upstream.on('message', (data: RawData, isBinary: boolean) => {
      if (client.readyState !== WebSocket.OPEN) return;
      if (isBinary && client.bufferedAmount > MAX_BUFFERED_BYTES) return;
      client.send(data, { binary: isBinary });
    });
    client.on('close', (code, reason) => upstream.close(sendable(code), reason));
    upstream.on('close', (code, reason) => client.close(sendable(code), reason));
  });
  return true;
}

/** Close codes 1005 (none given) and 1006 (dropped) may not be sent on: they become 1000 and 1011. */
function sendable(code: number): number {
  if (code === 1005) return 1000;
  if (code === 1006 || code < 1000 || code >= 5000) return 1011;
  return code;
}

/** A holder that is not there: its process ended or its address is wrong (nothing was delivered). */
function unreachable(err: unknown): boolean {
  const code = (err as { cause?: { code?: string }; code?: string })?.cause?.code ?? (err as { code?: string })?.code;
  return ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNRESET'].includes(code ?? '');
}

function forwardedFor(req: http.IncomingMessage): string {
  const prior = req.headers['x-forwarded-for'];
  const address = req.socket.remoteAddress ?? '';
  return typeof prior === 'string' && prior ? `${prior}, ${address}` : address;
}
