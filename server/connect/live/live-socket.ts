import type http from 'node:http';
import type { Duplex } from 'node:stream';

import { type RawData, WebSocket, WebSocketServer } from 'ws';

import type { Result } from '../../domain/errors';
import { relayLiveSocket, type SessionHosts } from '../relay/session-relay';
import type { WidgetSize } from './frame-size';
import { ClientMessageSchema, type InputMessage, type LiveStatusCode, type ServerMessage } from './live-protocol';
import type { LiveSink } from './live-session';

/**
 * The live view's socket: `GET /link/api/sessions/:id/live` upgraded to a WebSocket on the API's own server. Only
 * the widget's own origins, from the configuration, may open it (a page elsewhere cannot ride a person's browser to
 * it). Never the Host the request came with: a sandbox site's page is served by this very server under its own host
 * name, and a DNS-rebinding name points at it too; either would name itself in both Host and Origin. Nothing happens
 * until its first message, `hello`, carries the link token that opened the session (within HELLO_TIMEOUT_MS).
 * Bounds: MAX_MESSAGE_BYTES per message, a token bucket of input events per socket, frames skipped (still
 * acknowledged) while the socket's buffer is full.
 */
const PATH = /^\/link\/api\/sessions\/(lses_[A-Za-z0-9_-]{1,60})\/live$/;
const MAX_MESSAGE_BYTES = 4 * 1024;
const HELLO_TIMEOUT_MS = 5_000;
/** Input events per second a socket may send (pointer moves come at display rate, 60–120/s), with a burst. */
const RATE_PER_SECOND = 150;
const RATE_BURST = 300;
/** Dropped events before the socket is closed as abusive. */
const MAX_DROPPED = 2_000;
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;
/** WebSocket close codes: 1008 policy violation, 1013 try again later, 4000+ ours. */
const CLOSE: Partial<Record<LiveStatusCode, number>> = {
  LIVE_SESSIONS_FULL: 1013,
  LIVE_PROTOCOL_ERROR: 1008,
  LIVE_UNAUTHORIZED: 4401,
  LIVE_SESSION_TIMED_OUT: 4408,
  LIVE_REPLACED: 4409,
  LIVE_PAGE_STOPPED: 4410,
  SIGNED_IN: 1000,
  RUN_ENDED: 1000,
};

/** What the socket drives: live sign-ins, and the views of paused agent runs (one door for both, by link token). */
export interface LiveViewPort {
  connect(linkToken: string, linkSessionId: string, widget: WidgetSize, sink: LiveSink): Promise<Result<void>>;
  has(linkSessionId: string): boolean;
  input(linkSessionId: string, sink: LiveSink, message: InputMessage): boolean;
  detach(linkSessionId: string, sink: LiveSink): void;
}

/**
 * A socket whose hello carries a paused run's link token is a view of that run (run-live-views.ts); any other is a
 * live sign-in. Each session id then stays with the side that took it.
 */
export function liveViews(signIn: LiveViewPort, runs: LiveViewPort, isRunToken: (linkToken: string) => Promise<boolean>): LiveViewPort {
  const side = (id: string) => (runs.has(id) ? runs : signIn);
  return {
    connect: async (linkToken, id, widget, sink) => ((await isRunToken(linkToken)) ? runs : signIn).connect(linkToken, id, widget, sink),
    has: (id) => runs.has(id) || signIn.has(id),
    input: (id, sink, message) => side(id).input(id, sink, message),
    detach: (id, sink) => side(id).detach(id, sink),
  };
}

export interface LiveSocketOptions {
  /** The origins the widget is served from (config.widgetOrigins: AGENTLINK_PUBLIC_URL's and AGENTLINK_WIDGET_ORIGINS). */
  widgetOrigins: readonly string[];
  /** Where sessions held by other API processes are (their sockets are piped there: relay/session-relay.ts). */
  hosts?: SessionHosts;
}

export function attachLiveSignIn(server: http.Server, live: LiveViewPort, opts: LiveSocketOptions): () => Promise<void> {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
  const sockets = new Set<WebSocket>();
  const allowed = new Set(opts.widgetOrigins);
  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const match = PATH.exec((req.url ?? '').split('?')[0]);
    if (!match) return refuse(socket, 404, 'Not Found');
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || !allowed.has(origin)) return refuse(socket, 403, 'Forbidden');
    const here = () =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.add(ws);
        ws.on('close', () => sockets.delete(ws));
        serve(ws, match[1], live);
      });
    if (!opts.hosts) return here();
    relayLiveSocket(opts.hosts, wss, match[1], req, socket, head).then(
      (relayed) => {
        if (!relayed) here();
      },
      () => refuse(socket, 502, 'Bad Gateway'),
    );
  };
  server.on('upgrade', onUpgrade);
  return async () => {
    server.off('upgrade', onUpgrade);
    for (const ws of sockets) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
}

function serve(ws: WebSocket, linkSessionId: string, live: LiveViewPort): void {
  let attached = false;
  let closed = false;
  let tokens = RATE_BURST;
  let refilledAt = Date.now();
  let dropped = 0;
  const sink: LiveSink = {
    send: (message: ServerMessage) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
    },
    sendFrame: (jpeg, done) => {
      if (ws.readyState !== WebSocket.OPEN) return done();
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) return done(true);
      ws.send(jpeg, { binary: true }, () => done());
    },
    close: (code, message) => {
      if (closed) return;
      closed = true;
      sink.send({ type: 'status', code, message });
      ws.close(CLOSE[code] ?? 4000, code);
    },
  };
  const helloTimer = setTimeout(() => sink.close('LIVE_PROTOCOL_ERROR', 'No hello.'), HELLO_TIMEOUT_MS);
  helloTimer.unref();

  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (isBinary) return sink.close('LIVE_PROTOCOL_ERROR', 'Text messages only.');
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8'));
    } catch {
      return sink.close('LIVE_PROTOCOL_ERROR', 'Messages are JSON.');
    }
    const message = ClientMessageSchema.safeParse(parsed);
    if (!message.success) return; // an event this server does not know: ignored, like a browser ignores one
    const m = message.data;
    if (m.t === 'ping') return sink.send({ type: 'pong' });
    if (m.t === 'hello') {
      if (attached) return;
      attached = true;
      clearTimeout(helloTimer);
      const widget = { width: m.width, height: m.height, ...(m.scale === undefined ? {} : { scale: m.scale }) };
      void live.connect(m.linkToken, linkSessionId, widget, sink).then(
        (result) => {
          if (result.ok) return;
          const code: LiveStatusCode =
            result.error.code === 'LIVE_SESSIONS_FULL'
              ? 'LIVE_SESSIONS_FULL'
              : result.error.code === 'PROVIDER_UNAVAILABLE'
                ? 'LIVE_UNAVAILABLE'
                : 'LIVE_UNAUTHORIZED';
          sink.close(code, result.error.message);
        },
        () => sink.close('LIVE_UNAVAILABLE', 'The sign-in view could not start.'),
      );
      return;
    }
    if (!attached || !live.has(linkSessionId)) return;
    const now = Date.now();
    tokens = Math.min(RATE_BURST, tokens + ((now - refilledAt) / 1000) * RATE_PER_SECOND);
    refilledAt = now;
    if (tokens < 1 || !live.input(linkSessionId, sink, m)) {
      if (++dropped > MAX_DROPPED) sink.close('LIVE_PROTOCOL_ERROR', 'Too many events.');
      return;
    }
    tokens -= 1;
  });
  ws.on('close', () => {
    closed = true;
    clearTimeout(helloTimer);
    live.detach(linkSessionId, sink);
  });
  ws.on('error', () => undefined);
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
