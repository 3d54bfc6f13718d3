/**
 * Zoom and pan of the live view. The remote page is drawn at a desktop size (1280×800 unless the provider declares
 * its own), far wider than the widget: the canvas first fits the stage's width (the whole page visible, small), and
 * the person zooms in (buttons, Ctrl/⌘ + wheel, a pinch) up to one page pixel per screen pixel, and pans by scrolling
 * the stage (its scroll bars, two fingers on a phone). The canvas is only ever scaled by CSS: pointer positions are
 * mapped back to the page's own coordinates from its on-screen box (live-view.ts livePoint), whatever the zoom.
 */
export interface LiveZoom {
  /** 1 = the page's width fits the stage; larger zooms in. */
  readonly level: number;
  /** Sets the level, keeping the point (client coordinates) under the same spot of the page. */
  set(level: number, anchor?: { x: number; y: number }): void;
  /** Re-applies the level (the page's size or the stage's width changed). */
  apply(): void;
  /** The most zoom that is useful: one page pixel per screen pixel (never below 1). */
  readonly max: number;
}

const STEP = 1.5;

export function liveZoom(scroll: HTMLElement, canvas: HTMLCanvasElement, label: HTMLElement): LiveZoom {
  let level = 1;
  const fitWidth = () => Math.max(1, scroll.clientWidth);
  const z: LiveZoom = {
    get level() {
      return level;
    },
    get max() {
      return Math.max(1, canvas.width / fitWidth());
    },
    set(next, anchor) {
      const r = canvas.getBoundingClientRect();
      const s = scroll.getBoundingClientRect();
      const a = anchor ?? { x: s.left + s.width / 2, y: s.top + s.height / 2 };
      // The anchor's place on the page, as a fraction of the canvas, before the change.
      const fx = r.width ? (a.x - r.left) / r.width : 0.5;
      const fy = r.height ? (a.y - r.top) / r.height : 0.5;
      level = Math.min(z.max, Math.max(1, next));
      z.apply();
      const w = fitWidth() * level;
      const h = (w * canvas.height) / Math.max(1, canvas.width);
      scroll.scrollLeft = fx * w - (a.x - s.left);
      scroll.scrollTop = fy * h - (a.y - s.top);
    },
    apply() {
      level = Math.min(z.max, Math.max(1, level));
      canvas.style.width = Math.round(fitWidth() * level) + 'px';
      label.textContent = Math.round(level * 100) + '%';
      scroll.classList.toggle('al-live-zoomed', level > 1.001);
    },
  };
  return z;
}

/** The zoom buttons (−, fit, +) of a stage. */
export function bindZoomButtons(z: LiveZoom, out: HTMLButtonElement, fit: HTMLButtonElement, zoomIn: HTMLButtonElement): void {
  out.addEventListener('click', () => z.set(z.level / STEP));
  fit.addEventListener('click', () => z.set(1));
  zoomIn.addEventListener('click', () => z.set(z.level * STEP));
}

/** Ctrl/⌘ + wheel zooms at the pointer (as a browser's own zoom does); a plain wheel goes to the page. */
export function wheelZooms(e: WheelEvent, z: LiveZoom): boolean {
  if (!(e.ctrlKey || e.metaKey)) return false;
  z.set(z.level * Math.pow(STEP, -Math.sign(e.deltaY)), { x: e.clientX, y: e.clientY });
  return true;
}

/**
 * A two-finger gesture on the stage: pinch zooms, moving pans. One finger stays the page's (a tap, a drag); when a
 * second one comes down, the page's touch is cancelled and the view is moved instead until both are lifted.
 */
export class PinchPan {
  private start: { dist: number; level: number; mid: { x: number; y: number }; left: number; top: number } | null = null;

  constructor(
    private readonly z: LiveZoom,
    private readonly scroll: HTMLElement,
  ) {}

  get active(): boolean {
    return this.start !== null;
  }

  begin(points: { x: number; y: number }[]): void {
    const [a, b] = points;
    if (!a || !b) return;
    this.start = { dist: dist(a, b), level: this.z.level, mid: mid(a, b), left: this.scroll.scrollLeft, top: this.scroll.scrollTop };
  }

  move(points: { x: number; y: number }[]): void {
    const [a, b] = points;
    if (!this.start || !a || !b) return;
    const m = mid(a, b);
    const ratio = dist(a, b) / Math.max(1, this.start.dist);
    if (Math.abs(ratio - 1) > 0.05) this.z.set(this.start.level * ratio, m);
    else {
      this.scroll.scrollLeft = this.start.left - (m.x - this.start.mid.x);
      this.scroll.scrollTop = this.start.top - (m.y - this.start.mid.y);
    }
  }

  end(): void {
    this.start = null;
  }
}

const dist = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);
const mid = (a: { x: number; y: number }, b: { x: number; y: number }) => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
