import type { FrameSizeMessage } from './live-protocol';

/**
 * The size the live view's frames are rendered and encoded at. The page keeps its own layout size (a 1280×800
 * desktop, or a run's device); the screencast asks Chromium's compositor to scale each frame to fit the canvas the
 * person sees, in device pixels, because rendering, encoding and sending a desktop-sized JPEG for a 400-pixel-wide
 * canvas is what made the view slow (issue #38). Never larger than the page (no upscaling: no detail to gain).
 */
export interface FrameBounds {
  width: number;
  height: number;
}

/** The least a frame is drawn at (a canvas briefly laid out at zero size must not ask for a blank stamp). */
const MIN_FRAME_SIDE = 160;

/** The screencast's maxWidth/maxHeight for a canvas of `asked` device pixels showing a page of `viewport` CSS pixels. */
export function frameBoundsFor(viewport: FrameBounds, asked: Pick<FrameSizeMessage, 'width' | 'height'>): FrameBounds {
  // Exact, not rounded up: a frame is never larger than the canvas. The widget sends a size only once it settles.
  const side = (n: number, max: number) => Math.min(max, Math.max(MIN_FRAME_SIDE, Math.round(n)));
  return { width: side(asked.width, viewport.width), height: side(asked.height, viewport.height) };
}

/** What the widget's hello says of its stage: its CSS size, and its devicePixelRatio if it sent one. */
export interface WidgetSize {
  width: number;
  height: number;
  scale?: number;
}

/**
 * The device pixels a widget's canvas will show before it has measured them (its hello's stage size × its pixel ratio),
 * so the very first frames are not rendered at the page's own size: a 2560-pixel desktop at ratio 2 took 250–350 ms
 * to capture and encode whole. A widget that sends no ratio is taken as 2 (phones and laptops); `frameSize` corrects.
 */
export function firstFrameFor(widget: WidgetSize): Pick<FrameSizeMessage, 'width' | 'height'> {
  const scale = widget.scale ?? 2;
  return { width: widget.width * scale, height: widget.height * scale };
}

export function sameBounds(a: FrameBounds, b: FrameBounds): boolean {
  return a.width === b.width && a.height === b.height;
}

/** A part of the page in its CSS pixels (the part of it a zoomed-in canvas shows). */
export interface FrameRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The part of the page the frames show: the widget's `asked` region kept inside the page, or null for the whole page
 * (none asked, or one that covers nearly all of it: a region saves nothing there).
 */
export function frameRegionFor(viewport: FrameBounds, asked: FrameRegion | undefined): FrameRegion | null {
  if (!asked) return null;
  const width = Math.min(asked.width, viewport.width);
  const height = Math.min(asked.height, viewport.height);
  if (width * height >= 0.9 * viewport.width * viewport.height) return null;
  return {
    x: Math.max(0, Math.min(asked.x, viewport.width - width)),
    y: Math.max(0, Math.min(asked.y, viewport.height - height)),
    width,
    height,
  };
}

/**
 * The whole canvas's size in device pixels, from a message that gives the size of the part in view and the region of
 * the page it shows: what a view that cannot send regions (a borrowed page's) sizes its whole-page frames to, so a
 * zoomed-in canvas is painted as sharp as before regions existed.
 */
export function wholeCanvasFor(viewport: FrameBounds, asked: Pick<FrameSizeMessage, 'width' | 'height' | 'region'>): FrameBounds {
  if (!asked.region) return { width: asked.width, height: asked.height };
  return {
    width: (asked.width * viewport.width) / asked.region.width,
    height: (asked.height * viewport.height) / asked.region.height,
  };
}

export function sameRegion(a: FrameRegion | null, b: FrameRegion | null): boolean {
  return a === b || (!!a && !!b && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height);
}
