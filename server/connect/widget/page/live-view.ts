import type { LinkStepResult } from '../../link-session.service';
import type { ClientMessage, LiveStatusCode, RunStateMessage, ServerMessage } from '../../live/live-protocol';
import { api, run } from './api';
import { h } from './dom';
import { bindLiveInput, liveSend, send } from './live-input';
import { bindZoomButtons, type LiveZoom, liveZoom } from './live-zoom';
import { nav } from './nav';
import { passkeyConsent } from './passkey-consent';
import { emit } from './sdk';
import { apiBase, currentView, el, state } from './state';

/**
 * A live view: a page in AgentLink's fenced browser (the provider's real sign-in page, or a paused run's page). Its
 * frames (JPEG) arrive on a WebSocket and are painted on a canvas, and the person's pointer, wheel, keys, paste and
 * touch go back as small JSON events in the page's own coordinates (the canvas is scaled to fit the widget, and zoomed
 * and panned by the person: live-zoom.ts; every position is mapped back). Protocol: server/connect/live/live-protocol.ts.
 */

/** What the status line shows: the server's status codes, and the widget's own states. */
export type LiveCode = LiveStatusCode | 'connecting' | 'reconnecting' | 'RUN_WORKING';

const LIVE_COPY: { readonly [K in LiveCode]?: string } = {
  connecting: 'Connecting to the sign-in page…',
  reconnecting: 'Connection lost. Reconnecting…',
  LIVE: 'Sign in on the page below.',
  NAVIGATION_BLOCKED: 'That page is outside this sign-in and was blocked.',
  POPUP_BLOCKED: 'The page tried to open another window; it was closed.',
  SIGNED_IN: 'Signed in. Saving your session…',
  LIVE_SESSION_TIMED_OUT: 'The sign-in page was closed after a few minutes without activity.',
  LIVE_SESSIONS_FULL: 'Too many people are signing in right now. Try again in a minute.',
  LIVE_SESSION_CLOSED: 'The sign-in page was closed.',
  LIVE_REPLACED: 'The sign-in page was opened in another window.',
  LIVE_UNAUTHORIZED: 'This sign-in is no longer available. Go back to the app and start again.',
  LIVE_UNAVAILABLE: 'The sign-in page could not be opened right now.',
  LIVE_PROTOCOL_ERROR: 'The connection to the sign-in page failed.',
  LIVE_PAGE_STOPPED: 'The sign-in page stopped; try again.',
  RUN_ENDED: 'The task has finished.',
};
/** Close codes after which reconnecting cannot help (see live-socket.ts). */
const LIVE_FINAL: ReadonlySet<number> = new Set([1000, 1008, 1013, 4401, 4408, 4409, 4410]);
const LIVE_MAX_RETRIES = 6;

export interface LiveView {
  ws: WebSocket | null;
  canvas: HTMLCanvasElement;
  ctx: CanvasRenderingContext2D | null;
  status: HTMLElement;
  /** "Open the sign-in page again": shown when reconnecting cannot help. */
  retry: HTMLButtonElement;
  /** The text field a soft keyboard types into. */
  keys: HTMLTextAreaElement;
  /** The stage's scrolling area (panned when zoomed in), and the zoom of the canvas in it. */
  scroll: HTMLElement;
  zoom: LiveZoom;
  /** The remote page's viewport (the canvas's coordinates are mapped onto it). */
  viewport: { width: number; height: number } | null;
  retries: number;
  frames: number;
  stopped: boolean;
  /** The sign-in is over (signed in): a closed socket is not reopened. */
  done?: boolean;
  /** A paused run's view has its own words for some states; the sign-in's otherwise. */
  copy?: { readonly [K in LiveCode]?: string };
  /** A paused run's view: what the run does now. */
  onRun?: (m: Pick<RunStateMessage, 'state'>) => void;
  /** A picture of the page (a held write to approve): zoom and pan only, nothing is sent to the page. */
  picture?: boolean;
  /** Tells the server the canvas's size in device pixels, once it settles (watchFrameSize). */
  frameSize?: () => void;
  /** The part of the page the frames coming now show (the server's frameRegion; null: the whole page). */
  region?: PageRegion | null;
}

/** A part of the page, in its CSS pixels (the canvas's own coordinates: the canvas is the page's size). */
type PageRegion = { x: number; y: number; width: number; height: number };

/** What tests and benches read of the painting (frames painted, when the last one was). */
interface LiveProbe {
  frames: number;
  paintedAt: number;
  /** The last frame's own size (the server sizes frames to the canvas: server/connect/live/frame-size.ts). */
  frameWidth?: number;
  frameHeight?: number;
  /** The first frame's width (sized from the hello, before the widget measured its canvas). */
  firstFrameWidth?: number;
  /** The part of the page the last frame showed (null: all of it). */
  region?: PageRegion | null;
}
const probeHost = window as Window & { __agentlinkLive?: LiveProbe };

let live: LiveView | null = null;

/** What a screen gives to show a live view: its stage (liveStage), its status line and retry button, its own words. */
export type LiveViewInit = Pick<LiveView, 'canvas' | 'keys' | 'scroll' | 'zoom' | 'status' | 'retry' | 'copy' | 'onRun' | 'picture'>;

export interface LiveStage {
  /** The element to place on the screen: zoom buttons, the scrolling canvas, the soft keyboard's field. */
  stage: HTMLElement;
  canvas: HTMLCanvasElement;
  keys: HTMLTextAreaElement;
  scroll: HTMLElement;
  zoom: LiveZoom;
}

/**
 * The live view's stage, one for the sign-in and the paused run's page alike: a canvas for the frames (focusable and
 * named for assistive technology when the person can use the page; a picture otherwise), the text field a phone's
 * keyboard types into, the scrolling area it pans in, and the zoom buttons.
 */
export function liveStage(o: {
  label: string;
  keysLabel: string;
  interactive: boolean;
  roleDescription: string;
  className?: string;
}): LiveStage {
  const canvas = h('canvas', {
    class: 'al-live-canvas' + (o.className ? ' ' + o.className : ''),
    id: 'al-live-canvas',
    tabindex: o.interactive ? '0' : '-1',
    role: o.interactive ? 'application' : 'img',
    'aria-roledescription': o.roleDescription,
    'aria-label': o.label,
    'aria-describedby': 'al-live-status',
    width: 1280,
    height: 800,
  });
  // Soft keyboards (phones) type into a real text field: it relays what it receives, then empties itself.
  const keys = h('textarea', {
    class: 'al-live-keys',
    id: 'al-live-keys',
    tabindex: '-1',
    'aria-label': o.keysLabel,
    autocapitalize: 'off',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const scroll = h('div', { class: 'al-live-scroll', id: 'al-live-scroll' }, canvas);
  const level = h('span', { class: 'al-live-zoom-level' }, '100%');
  const button = (id: string, label: string, ...content: (string | HTMLElement)[]) =>
    h('button', { type: 'button', class: 'al-live-zoom-button', id, 'aria-label': label, title: label }, ...content);
  const out = button('al-live-zoom-out', 'Zoom out', '−');
  const fit = button('al-live-zoom-fit', 'Fit the whole page', level);
  const zoomIn = button('al-live-zoom-in', 'Zoom in', '+');
  const zoom = liveZoom(scroll, canvas, level);
  bindZoomButtons(zoom, out, fit, zoomIn);
  const tools = h('div', { class: 'al-live-zoom', role: 'group', 'aria-label': 'Zoom the page' }, out, fit, zoomIn);
  return { stage: h('div', { class: 'al-live-stage' }, tools, scroll, keys), canvas, keys, scroll, zoom };
}

// The stage's width follows the window (a phone turned, a resized popup): the canvas keeps its zoom of that width.
window.addEventListener('resize', () => live?.zoom.apply());

/** Closes the live view shown, if any. */
export function stopLive(): void {
  if (!live) return;
  live.stopped = true;
  if (live.ws) live.ws.close(1000);
  live = null;
}

/** Shows a live view (`init` from a screen): binds the person's input to it and connects. */
export function openLive(init: LiveViewInit): void {
  const l: LiveView = { ...init, ws: null, ctx: init.canvas.getContext('2d'), viewport: null, retries: 0, frames: 0, stopped: false };
  live = l;
  probeHost.__agentlinkLive = { frames: 0, paintedAt: 0 };
  bindLiveInput(l);
  l.frameSize = watchFrameSize(l);
  connectLive(l);
}

/** A pinch or a dragged window resizes the canvas many times a second: the size is sent once it settles. */
const FRAME_SIZE_SETTLE_MS = 120;

/**
 * The server renders frames no larger than the canvas shows them (device pixels: a 1280×800 page in a 400-pixel
 * widget is sent at about 400×250). Zoomed in, the canvas is larger than the stage that shows it: frames then show only
 * the part of the page in view (its region, in the page's pixels), at the size that part has on screen, and a pan asks
 * for the next part. Returns the scheduler, for a new socket.
 */
function watchFrameSize(l: LiveView): () => void {
  let timer = 0;
  let sent: { ws: WebSocket; key: string } | null = null;
  const report = () => {
    timer = 0;
    const r = l.canvas.getBoundingClientRect();
    const ws = l.ws;
    if (l.stopped || !l.viewport || !ws || ws.readyState !== 1 || r.width < 1 || r.height < 1) return;
    // What of the canvas the stage shows, in CSS pixels of the widget.
    const s = l.scroll.getBoundingClientRect();
    const left = Math.max(r.left, s.left);
    const top = Math.max(r.top, s.top);
    const right = Math.min(r.right, s.right);
    const bottom = Math.min(r.bottom, s.bottom);
    if (right - left < 1 || bottom - top < 1) return;
    const whole = left <= r.left + 1 && top <= r.top + 1 && right >= r.right - 1 && bottom >= r.bottom - 1;
    const dpr = window.devicePixelRatio || 1;
    const side = (n: number) => Math.min(8000, Math.max(16, Math.floor(n * dpr)));
    const m: ClientMessage = whole
      ? { t: 'frameSize', width: side(r.width), height: side(r.height) }
      : { t: 'frameSize', width: side(right - left), height: side(bottom - top), region: regionOf(l, r, left, top, right, bottom) };
    const key = JSON.stringify(m);
    if (sent && sent.ws === ws && sent.key === key) return;
    sent = { ws, key };
    send(ws, m);
  };
  const schedule = () => {
    if (!timer) timer = window.setTimeout(report, FRAME_SIZE_SETTLE_MS);
  };
  if (typeof ResizeObserver === 'function') new ResizeObserver(schedule).observe(l.canvas);
  l.scroll.addEventListener('scroll', schedule, { passive: true });
  return schedule;
}

/** The page's pixels behind the canvas's visible box (rounded outwards: the region covers all that is seen). */
function regionOf(l: LiveView, r: DOMRect, left: number, top: number, right: number, bottom: number): PageRegion {
  const sx = l.canvas.width / r.width;
  const sy = l.canvas.height / r.height;
  const x = Math.max(0, Math.floor((left - r.left) * sx));
  const y = Math.max(0, Math.floor((top - r.top) * sy));
  return {
    x,
    y,
    width: Math.max(16, Math.min(l.canvas.width - x, Math.ceil((right - r.left) * sx) - x)),
    height: Math.max(16, Math.min(l.canvas.height - y, Math.ceil((bottom - r.top) * sy) - y)),
  };
}

function liveStatus(l: LiveView, code: LiveCode, message?: string, host?: string): void {
  l.status.textContent = (l.copy && l.copy[code]) || LIVE_COPY[code] || message || '';
  if (host && code === 'NAVIGATION_BLOCKED') l.status.textContent = 'Blocked: ' + host + ' is outside this sign-in.';
  l.status.setAttribute('data-code', code);
  l.status.className =
    'al-live-status' + (/BLOCKED|TIMED_OUT|FULL|UNAUTHORIZED|UNAVAILABLE|ERROR|CLOSED|REPLACED/.test(code) ? ' al-live-warn' : '');
}

function liveSize(): { width: number; height: number } {
  const width = Math.max(320, Math.min(el.screen.clientWidth || 360, 480));
  const height = Math.max(480, Math.min(Math.round(width * 1.5), Math.max(480, window.innerHeight - 120)));
  return { width, height };
}

function connectLive(l: LiveView): void {
  if (l.stopped) return;
  liveStatus(l, l.retries ? 'reconnecting' : 'connecting');
  const url =
    (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + apiBase + '/sessions/' + currentView().linkSessionId + '/live';
  const ws = new WebSocket(url);
  ws.binaryType = 'blob';
  l.ws = ws;
  ws.onopen = () => {
    const size = liveSize();
    const scale = Math.min(4, Math.max(0.5, window.devicePixelRatio || 1));
    send(ws, { t: 'hello', linkToken: state.token ?? '', width: size.width, height: size.height, scale });
  };
  ws.onmessage = (event: MessageEvent<Blob | string>) => {
    if (typeof event.data !== 'string') return paintFrame(l, event.data, l.region ?? null);
    let m: ServerMessage;
    try {
      m = JSON.parse(event.data) as ServerMessage;
    } catch {
      return;
    }
    if (m.type === 'frameRegion') {
      l.region = m.region;
    } else if (m.type === 'viewport') {
      // A new socket's view: its frames show the whole page until it says otherwise.
      l.region = null;
      l.viewport = { width: m.width, height: m.height };
      l.canvas.width = m.width;
      l.canvas.height = m.height;
      l.zoom.apply();
      l.frameSize?.();
      l.retries = 0;
    } else if (m.type === 'passkey') {
      passkeyConsent(l.canvas.closest('.al-live-stage'), m, (allow) => liveSend(l, { t: 'passkey', allow }));
    } else if (m.type === 'run') {
      if (l.onRun) l.onRun(m);
      if (m.state === 'working') liveStatus(l, 'RUN_WORKING');
    } else if (m.type === 'status') {
      liveStatus(l, m.code, m.message, m.host);
      // A paused run's view: the run ended, or is no longer there to show (its step is over).
      if ((m.code === 'RUN_ENDED' || m.code === 'LIVE_UNAUTHORIZED') && l.onRun) l.onRun({ state: 'ended' });
      if (m.code === 'SIGNED_IN') finishLive(l);
      if (
        m.code === 'LIVE_SESSION_TIMED_OUT' ||
        m.code === 'LIVE_SESSIONS_FULL' ||
        m.code === 'LIVE_UNAVAILABLE' ||
        m.code === 'LIVE_PAGE_STOPPED'
      ) {
        l.retry.hidden = false;
        state.lastError = { code: 'PROVIDER_UNAVAILABLE', message: LIVE_COPY[m.code] ?? '' };
      }
    }
  };
  ws.onclose = (event) => {
    if (l.ws !== ws || l.stopped) return;
    l.ws = null;
    if (LIVE_FINAL.has(event.code) || l.done) return;
    if (l.retries >= LIVE_MAX_RETRIES) {
      liveStatus(l, 'LIVE_PROTOCOL_ERROR');
      l.retry.hidden = false;
      return;
    }
    l.retries++;
    liveStatus(l, 'reconnecting');
    window.setTimeout(() => connectLive(l), Math.min(4000, 250 * Math.pow(2, l.retries)));
  };
}

/** Paints a frame where it belongs: over the whole canvas, or over the part of the page it shows (`region`). */
function paintFrame(l: LiveView, blob: Blob, region: PageRegion | null): void {
  createImageBitmap(blob).then(
    (bitmap) => {
      if (l.stopped) return;
      // A frame smaller than the page (sized to the canvas) is drawn over the whole canvas, a region's over its part of
      // it (the canvas is the page's size): input maps by the page's size either way.
      if (region) l.ctx?.drawImage(bitmap, region.x, region.y, region.width, region.height);
      else l.ctx?.drawImage(bitmap, 0, 0, l.canvas.width, l.canvas.height);
      const size = { width: bitmap.width, height: bitmap.height };
      bitmap.close();
      l.frames++;
      const probe = probeHost.__agentlinkLive;
      if (probe) {
        probe.frames = l.frames;
        probe.paintedAt = performance.now();
        probe.frameWidth = size.width;
        probe.firstFrameWidth ??= size.width;
        probe.frameHeight = size.height;
        probe.region = region;
      }
    },
    () => {},
  );
}

/** The provider's page is signed in: AgentLink keeps the session, and the flow goes on. */
function finishLive(l: LiveView): void {
  if (l.done) return;
  l.done = true;
  emit('SUBMIT_CREDENTIALS');
  run(
    () => api<LinkStepResult>('/sessions/' + currentView().linkSessionId + '/live/finish'),
    (result) => {
      stopLive();
      nav.step(result);
    },
  );
}
