import { z } from 'zod';

/**
 * The live view's WebSocket protocol (GET /link/api/sessions/:id/live, upgraded).
 *
 * Widget → server: JSON text messages, one of ClientMessage; the first must be `hello` (it carries the link token,
 * which a browser cannot put in a WebSocket's headers, and never goes into a URL). Coordinates are CSS pixels of the
 * remote page's viewport (the widget maps its canvas onto it).
 * Server → widget: binary messages are JPEG frames of the page; text messages are ServerMessage.
 */
const coord = z.number().finite().min(-10_000).max(10_000);
/** Bit field of Alt=1, Ctrl=2, Meta=4, Shift=8 (CDP's Input modifiers). */
const modifiers = z.number().int().min(0).max(15).optional();
const button = z.enum(['left', 'middle', 'right', 'none']).optional();

/** The live page's size bounds (a provider's declared liveViewport is within them by its schema). */
export const LIVE_VIEWPORT = { minWidth: 320, maxWidth: 2560, minHeight: 320, maxHeight: 1600 } as const;
/**
 * The live sign-in page's size when the provider declares none: a desktop layout, so a desktop app (a wide editor, a
 * dialog at the left) is drawn whole; the widget scales it to its canvas and lets the person zoom and pan.
 */
export const DEFAULT_LIVE_VIEWPORT = { width: 1280, height: 800 } as const;

export const ClientMessageSchema = z.discriminatedUnion('t', [
  z
    .object({
      t: z.literal('hello'),
      linkToken: z.string().min(1).max(256),
      width: z.number().int().min(100).max(4000),
      height: z.number().int().min(100).max(4000),
      /** The widget's devicePixelRatio: the first frames are sized to its canvas before it reports `frameSize`. */
      scale: z.number().finite().min(0.5).max(4).optional(),
    })
    .strict(),
  z.object({ t: z.literal('move'), x: coord, y: coord, buttons: z.number().int().min(0).max(7).optional(), mods: modifiers }).strict(),
  z
    .object({
      t: z.enum(['down', 'up']),
      x: coord,
      y: coord,
      button,
      clickCount: z.number().int().min(1).max(3).optional(),
      mods: modifiers,
    })
    .strict(),
  z.object({ t: z.literal('wheel'), x: coord, y: coord, dx: coord, dy: coord, mods: modifiers }).strict(),
  z
    .object({
      t: z.enum(['keydown', 'keyup']),
      key: z.string().min(1).max(32),
      code: z.string().max(32).optional(),
      mods: modifiers,
    })
    .strict(),
  /** Typed text that is not a single key (IME, dictation) and pasted text: inserted as text, never as a clipboard read. */
  z.object({ t: z.literal('text'), text: z.string().min(1).max(2_000) }).strict(),
  z
    .object({
      t: z.literal('touch'),
      phase: z.enum(['start', 'move', 'end', 'cancel']),
      points: z.array(z.object({ x: coord, y: coord }).strict()).max(5),
    })
    .strict(),
  z.object({ t: z.literal('ping') }).strict(),
  /** The person's answer to "Allow AgentLink to keep a passkey for <site>" (shown outside the page, never in it). */
  z.object({ t: z.literal('passkey'), allow: z.boolean() }).strict(),
  /**
   * The canvas's size on the person's screen, in device pixels (CSS size × zoom × devicePixelRatio): frames are
   * rendered and encoded no larger than this (the page keeps its own size; the compositor scales), so a 1280×800
   * page shown in a 400-pixel-wide widget is not sent at 1280×800.
   */
  z
    .object({
      t: z.literal('frameSize'),
      width: z.number().int().min(16).max(8000),
      height: z.number().int().min(16).max(8000),
      /**
       * The part of the page the canvas shows when the person zoomed in (page CSS pixels): frames show only that part,
       * at `width`×`height`, instead of the whole page at the zoomed canvas's size.
       */
      region: z
        .object({
          x: z.number().int().min(0).max(10_000),
          y: z.number().int().min(0).max(10_000),
          width: z.number().int().min(16).max(8000),
          height: z.number().int().min(16).max(8000),
        })
        .strict()
        .optional(),
    })
    .strict(),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;
export type FrameSizeMessage = Extract<ClientMessage, { t: 'frameSize' }>;
/** What goes to a live session in order (input events, and the widget's frame size, which is not input to the page). */
export type InputMessage = Exclude<ClientMessage, { t: 'hello' } | { t: 'ping' }>;

/** Stable codes the widget shows in its status line (errors also end the socket). */
export type LiveStatusCode =
  | 'LIVE'
  | 'NAVIGATION_BLOCKED'
  | 'POPUP_BLOCKED'
  | 'SIGNED_IN'
  | 'LIVE_SESSION_TIMED_OUT'
  | 'LIVE_SESSIONS_FULL'
  | 'LIVE_SESSION_CLOSED'
  | 'LIVE_REPLACED'
  | 'LIVE_UNAUTHORIZED'
  | 'LIVE_UNAVAILABLE'
  | 'LIVE_PROTOCOL_ERROR'
  /** The page's browser went away (crashed or was killed) or the page itself crashed: the view ends; a new one starts afresh. */
  | 'LIVE_PAGE_STOPPED'
  /** A paused agent run's view: the run finished (its page is gone). */
  | 'RUN_ENDED';

/**
 * A paused agent run's view: what the run does now. waiting: it waits for this person (the ask: reason, message,
 * expiresAt, the held write); working: it runs on (the view only shows it); ended: it finished.
 */
export interface RunStateMessage {
  type: 'run';
  state: 'waiting' | 'working' | 'ended';
  ask: { reason: string; message: string; expiresAt: string; write: unknown } | null;
}

export type ServerMessage =
  | { type: 'viewport'; width: number; height: number }
  | RunStateMessage
  | { type: 'status'; code: LiveStatusCode; message: string; host?: string }
  | { type: 'pong' }
  /** The site asks to create a passkey and the organization opted in: ask the person (`done`: the question is over). */
  | { type: 'passkey'; host: string; done?: boolean }
  /** The frames after this show `region` of the page (page CSS pixels), or the whole page (null): where to draw them. */
  | { type: 'frameRegion'; region: { x: number; y: number; width: number; height: number } | null };

/** Where a live view's messages and frames go: the widget's socket (live-socket.ts), or a test's. */
export interface LiveSink {
  send(message: ServerMessage): void;
  /** Sends a frame; `done` once it left (or was dropped, the socket's buffer full), so the next frame may come. */
  sendFrame(jpeg: Buffer, done: (dropped?: boolean) => void): void;
  close(code: LiveStatusCode, message: string): void;
}
