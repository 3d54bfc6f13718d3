import type { Page } from 'playwright-core';

/**
 * What the live-view tests read on both sides of the stream: on the streamed page, what it can see of its own window
 * (to show a view's emulation is invisible to it); on the widget, what its canvas was sent and where it painted it.
 */

/**
 * The streamed page's window as its own scripts read it: inner and outer size, screen, visual viewport scale, pixel
 * ratio, and how many resize events it got since the first call (window and visual viewport).
 */
export function pageWindow(page: Page): Promise<unknown[]> {
  return page.evaluate(() => {
    const w = window as unknown as { __resized?: number };
    if (w.__resized === undefined) {
      w.__resized = 0;
      addEventListener('resize', () => w.__resized!++);
      visualViewport!.addEventListener('resize', () => w.__resized!++);
    }
    return [innerWidth, innerHeight, outerWidth, screen.width, screen.height, visualViewport!.scale, devicePixelRatio, w.__resized];
  });
}

export interface WidgetFrames {
  /** Frames painted so far. */
  frames: number;
  /** The width of the last frame (device pixels). */
  width: number;
  /** The part of the page the last frames show (page CSS pixels), or null for the whole page. */
  region: { x: number; y: number; width: number; height: number } | null;
}

/** What the widget's live view painted (its test probe, live-view.ts). */
export function widgetFrames(widget: Page): Promise<WidgetFrames> {
  return widget.evaluate(() => {
    const p = (window as unknown as { __agentlinkLive: { frames: number; frameWidth?: number; region?: unknown } }).__agentlinkLive;
    return { frames: p.frames, width: p.frameWidth ?? 0, region: (p.region ?? null) as WidgetFrames['region'] };
  });
}

/** A cover of one colour over the whole streamed page, so where each frame was painted on the canvas can be read back. */
export function coverPage(page: Page, colour: string): Promise<void> {
  return page.evaluate((c) => {
    let el = document.getElementById('cover');
    if (!el) {
      el = document.createElement('div');
      el.id = 'cover';
      el.style.cssText = 'position:fixed;inset:0;z-index:2147483647';
      document.body.append(el);
    }
    el.style.background = c;
  }, colour);
}

/** The colour the widget's canvas shows at (x, y) of its own pixels: red, green, blue, or its RGB values. */
export function canvasColourAt(widget: Page, x: number, y: number): Promise<string> {
  return widget.evaluate(
    ([px, py]) => {
      const c = document.getElementById('al-live-canvas') as HTMLCanvasElement;
      const [r, g, b] = c.getContext('2d')!.getImageData(px!, py!, 1, 1).data;
      return r! > 150 && g! < 100 && b! < 100
        ? 'red'
        : g! > 100 && r! < 100 && b! < 100
          ? 'green'
          : b! > 150 && r! < 100
            ? 'blue'
            : `${r},${g},${b}`;
    },
    [x, y],
  );
}

/** Zooms the widget's view in six steps (to one page pixel per screen pixel on a phone-sized stage) and pans it right. */
export async function zoomInAtRightEdge(widget: Page): Promise<void> {
  for (let i = 0; i < 6; i++) await widget.locator('#al-live-zoom-in').click();
  await widget.evaluate(() => {
    const s = document.getElementById('al-live-scroll')!;
    s.scrollLeft = s.scrollWidth;
  });
}

/** The widget's stage width in device pixels (what a frame of the part in view is at most). */
export function stageWidth(widget: Page): Promise<number> {
  return widget.evaluate(() => document.getElementById('al-live-scroll')!.clientWidth * devicePixelRatio);
}
