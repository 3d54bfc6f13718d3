import type http from 'node:http';

/**
 * What the egress proxy (egress-proxy.ts) reads of a request's headers and passes on: the end-to-end headers, how a
 * forwarded body is framed, and who sent a request.
 */

export const HOP_BY_HOP = new Set([
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

/** The headers a hop passes on: hop-by-hop ones (and those `Connection` names) dropped, Host set by the caller. */
export function endToEnd(raw: string[], drop: ReadonlySet<string> = HOP_BY_HOP): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() === 'connection') raw[i + 1].split(',').forEach((n) => named.add(n.trim().toLowerCase()));
  }
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (drop.has(name) || (drop === HOP_BY_HOP && named.has(name)) || name === 'host') continue;
    const prev = out[name];
    out[name] = prev === undefined ? raw[i + 1] : ([] as string[]).concat(prev, raw[i + 1]);
  }
  return out;
}

/**
 * How a forwarded body is framed. A streamed chunked body stays chunked: sent unframed, it would be read upstream as a
 * request of its own (smuggling). A held body is known whole: its length frames it (the browser's chunking is gone).
 */
export function framing(req: http.IncomingMessage, body?: Buffer): Record<string, string> {
  if (body) return { 'content-length': String(body.length) };
  return req.headers['transfer-encoding'] ? { 'transfer-encoding': 'chunked' } : {};
}

/** Who sent a request, from what the browser declares of it: `Sec-Fetch-Dest`, and the referrer when it has one. */
export function realmOf(headers: http.IncomingHttpHeaders): string {
  // A WebSocket handshake carries no Sec-Fetch-* nor Referer in Chromium: its Origin is what names the sender.
  if (String(headers.upgrade ?? '').toLowerCase() === 'websocket') {
    return typeof headers.origin === 'string' ? `websocket, from ${headers.origin.slice(0, 200)}` : 'websocket';
  }
  const mode = String(headers['sec-fetch-mode'] ?? '');
  const dest = String(headers['sec-fetch-dest'] ?? '');
  const named: Record<string, string> = {
    document: 'page',
    iframe: 'frame',
    frame: 'frame',
    worker: 'worker',
    sharedworker: 'shared worker',
    serviceworker: 'service worker',
    report: 'report',
    empty: 'script (fetch, XHR, beacon or fetchLater)',
  };
  const realm = mode === 'websocket' ? 'websocket' : (named[dest] ?? (dest ? dest.slice(0, 40) : 'unknown'));
  const referer = typeof headers.referer === 'string' ? headers.referer.slice(0, 200) : '';
  return referer ? `${realm}, from ${referer}` : realm;
}

/** Whether the browser declares (`Sec-Fetch-Dest`) the request's destination as one of `skip`. */
export function destinationIn(headers: http.IncomingHttpHeaders, skip: ReadonlySet<string> | undefined): boolean {
  const dest = headers['sec-fetch-dest'];
  return !!skip && typeof dest === 'string' && skip.has(dest);
}
