import type { ClientMessage } from '../../live/live-protocol';
import { type LiveZoom, PinchPan, wheelZooms } from './live-zoom';

/**
 * The person's input on a live view (live-view.ts), sent to the page in AgentLink's browser: pointer, wheel, keys, paste
 * and touch, as small JSON events in the page's own coordinates (the canvas is scaled and zoomed: every position is
 * mapped back).
 */

const LIVE_BUTTONS = ['left', 'middle', 'right'] as const;

/** What the input needs of a live view (live-view.ts LiveView): its socket, canvas, soft keyboard, zoom and viewport. */
export interface LiveInputView {
  ws: WebSocket | null;
  canvas: HTMLCanvasElement;
  keys: HTMLTextAreaElement;
  scroll: HTMLElement;
  zoom: LiveZoom;
  viewport: { width: number; height: number } | null;
  /** A picture of the page: zoom and pan only, nothing is sent to the page. */
  picture?: boolean;
}

export function send(ws: WebSocket, message: ClientMessage): void {
  ws.send(JSON.stringify(message));
}

export function liveSend(l: LiveInputView, message: ClientMessage): void {
  // A picture takes no input (the server refuses it too: run-live-views.ts); a ping keeps the socket alive, and the
  // canvas's size is no input to the page (it sizes the frames the picture is painted from).
  if (l.picture && message.t !== 'ping' && message.t !== 'frameSize') return;
  if (l.ws && l.ws.readyState === 1) send(l.ws, message);
}

/** The page's own coordinates of a point on the (scaled) canvas. */
function livePoint(l: LiveInputView, clientX: number, clientY: number): { x: number; y: number } {
  const r = l.canvas.getBoundingClientRect();
  const vw = l.viewport ? l.viewport.width : l.canvas.width;
  const vh = l.viewport ? l.viewport.height : l.canvas.height;
  return {
    x: Math.round(((clientX - r.left) * vw) / Math.max(1, r.width)),
    y: Math.round(((clientY - r.top) * vh) / Math.max(1, r.height)),
  };
}

function liveMods(e: MouseEvent | KeyboardEvent): number {
  return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
}

export function bindLiveInput(l: LiveInputView): void {
  const c = l.canvas;
  let pendingMove: Extract<ClientMessage, { t: 'move' }> | null = null;
  const touches: Record<number, { x: number; y: number }> = {};
  const touchList = () => Object.values(touches).slice(0, 5);
  // Fingers on the stage in client coordinates: two of them move the view (pinch-pan), not the page.
  const fingers: Record<number, { x: number; y: number }> = {};
  const fingerList = () => Object.values(fingers);
  const pinch = new PinchPan(l.zoom, l.scroll);
  c.addEventListener('pointerdown', (e) => {
    // The point is read before focusing, and focusing never scrolls: a scroll in between would move the canvas under
    // the event's coordinates, and the page would get a point off by the scroll (a tall, zoomed canvas).
    const p = livePoint(l, e.clientX, e.clientY);
    c.focus({ preventScroll: true });
    if (e.pointerType === 'touch') {
      fingers[e.pointerId] = { x: e.clientX, y: e.clientY };
      if (pinch.active) return;
      if (fingerList().length >= 2) {
        // A second finger: the page's touch is cancelled, and the fingers move the view until they are lifted.
        if (touchList().length) liveSend(l, { t: 'touch', phase: 'cancel', points: [] });
        for (const k of Object.keys(touches)) delete touches[Number(k)];
        pinch.begin(fingerList());
        return;
      }
      touches[e.pointerId] = p;
      liveSend(l, { t: 'touch', phase: 'start', points: touchList() });
    } else {
      liveSend(l, {
        t: 'down',
        x: p.x,
        y: p.y,
        button: LIVE_BUTTONS[e.button] || 'left',
        clickCount: Math.min(3, Math.max(1, e.detail || 1)),
        mods: liveMods(e),
      });
    }
    try {
      c.setPointerCapture(e.pointerId);
    } catch {
      /* not capturable */
    }
    e.preventDefault();
  });
  c.addEventListener('pointermove', (e) => {
    const p = livePoint(l, e.clientX, e.clientY);
    if (e.pointerType === 'touch') {
      if (fingers[e.pointerId]) fingers[e.pointerId] = { x: e.clientX, y: e.clientY };
      if (pinch.active) return pinch.move(fingerList());
      if (!touches[e.pointerId]) return;
      touches[e.pointerId] = p;
      liveSend(l, { t: 'touch', phase: 'move', points: touchList() });
      return;
    }
    // One move per animation frame is all the page can show.
    const first = !pendingMove;
    pendingMove = { t: 'move', x: p.x, y: p.y, buttons: e.buttons & 7, mods: liveMods(e) };
    if (first)
      window.requestAnimationFrame(() => {
        if (pendingMove) liveSend(l, pendingMove);
        pendingMove = null;
      });
  });
  const up = (e: PointerEvent) => {
    const p = livePoint(l, e.clientX, e.clientY);
    if (e.pointerType === 'touch') {
      delete fingers[e.pointerId];
      if (pinch.active) {
        if (!fingerList().length) pinch.end();
        return;
      }
      if (!touches[e.pointerId]) return;
      delete touches[e.pointerId];
      liveSend(l, { t: 'touch', phase: e.type === 'pointercancel' ? 'cancel' : 'end', points: touchList() });
      return;
    }
    if (e.type === 'pointercancel') return;
    if (pendingMove) {
      liveSend(l, pendingMove);
      pendingMove = null;
    }
    liveSend(l, {
      t: 'up',
      x: p.x,
      y: p.y,
      button: LIVE_BUTTONS[e.button] || 'left',
      clickCount: Math.min(3, Math.max(1, e.detail || 1)),
      mods: liveMods(e),
    });
  };
  c.addEventListener('pointerup', up);
  c.addEventListener('pointercancel', up);
  c.addEventListener('contextmenu', (e) => e.preventDefault());
  c.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      if (wheelZooms(e, l.zoom)) return;
      const p = livePoint(l, e.clientX, e.clientY);
      const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      liveSend(l, { t: 'wheel', x: p.x, y: p.y, dx: e.deltaX * scale, dy: e.deltaY * scale, mods: liveMods(e) });
    },
    { passive: false },
  );
  // Escape hands the keyboard back to the widget for one Tab (so a keyboard user can leave the page).
  let released = false;
  const onKey = (e: KeyboardEvent) => {
    if (released && e.key === 'Tab') return;
    if (e.type === 'keydown') released = e.key === 'Escape';
    // Pasting goes through the paste event (text only); the page never reads the clipboard itself.
    if ((e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V')) return;
    // Composition (IME, some soft keyboards): the text arrives as input on the text field.
    if (e.isComposing || e.key === 'Process' || e.key === 'Unidentified' || e.key === 'Dead') return;
    liveSend(l, { t: e.type as 'keydown' | 'keyup', key: e.key, code: e.code, mods: liveMods(e) });
    e.preventDefault();
  };
  for (const target of [c, l.keys] as HTMLElement[]) {
    target.addEventListener('keydown', onKey);
    target.addEventListener('keyup', onKey);
    target.addEventListener('paste', (e) => {
      const text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
      if (text) liveSend(l, { t: 'text', text: text.slice(0, 2000) });
      e.preventDefault();
    });
  }
  l.keys.addEventListener('input', () => {
    if (l.keys.value) liveSend(l, { t: 'text', text: l.keys.value.slice(0, 2000) });
    l.keys.value = '';
  });
  // On touch screens the page's fields need the phone's keyboard: tapping the view opens it.
  c.addEventListener('pointerup', (e) => {
    if (e.pointerType === 'touch') l.keys.focus({ preventScroll: true });
  });
}
