import type { CDPSession } from 'playwright-core';

/** What Chromium emulates for a page, read where no page script reaches: its screen and its pixel ratio. */
export interface PageMetrics {
  screen: { width: number; height: number };
  deviceScaleFactor: number;
}

/** A part of the page, in its CSS pixels. */
export interface PageRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The size of a live view's page, set through the view's DevTools session with everything else the page reads left as
 * it was:
 * - Not Playwright's page.setViewportSize, which sets the screen to the viewport's size too: a connection's device
 *   (a 1920×1080 screen) read 1280×800 in its sign-in and 1920×1080 in its runs, two fingerprints for one device.
 * - The same override, with the part of the page the person's canvas shows, renders only that part (issue #38: zoom
 *   and pan ask for the region they show). The page sees no change: its window, screen, visual viewport and pointer
 *   coordinates stay as they are (Chromium scales the compositor's output, not the page).
 * The metrics a DevTools session sets go when the session detaches, and the page would then read its window's own
 * (measured: a 1280×800 page became 320×200 on an 800×600 screen): a view's own page closes with its session, and a
 * borrowed page's (a paused run's) is never detached (webauthn-environment.ts, releasePageSession). A borrowed page is
 * given its own size, screen and pixel ratio, as its run's context set them, so only the region changes, and is made
 * whole again when the view ends.
 */
export class LiveEmulation {
  private constructor(
    private readonly cdp: CDPSession,
    private readonly viewport: { width: number; height: number },
    private readonly metrics: PageMetrics,
  ) {}

  /** Reads the page's metrics in an isolated world (a page script could lie in its own) and keeps them for `viewport`. */
  static async of(cdp: CDPSession, viewport: { width: number; height: number }): Promise<LiveEmulation> {
    const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    const { executionContextId } = (await cdp.send('Page.createIsolatedWorld', {
      frameId: frameTree.frame.id,
      worldName: 'agentlink-live-metrics',
    })) as { executionContextId: number };
    const { result } = (await cdp.send('Runtime.evaluate', {
      expression: '[screen.width, screen.height, devicePixelRatio]',
      contextId: executionContextId,
      returnByValue: true,
    })) as { result: { value?: unknown } };
    const [width, height, scale] = Array.isArray(result.value) ? (result.value as unknown[]) : [];
    const number = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback);
    return new LiveEmulation(cdp, viewport, {
      screen: { width: number(width, viewport.width), height: number(height, viewport.height) },
      deviceScaleFactor: number(scale, 1),
    });
  }

  /**
   * The page at the view's size with its own screen and pixel ratio; with `region`, frames show only that part of it, at
   * the page's own scale (the screencast's maxWidth/maxHeight scale it down to the canvas).
   */
  apply(region: PageRegion | null = null): Promise<unknown> {
    const { screen, deviceScaleFactor } = this.metrics;
    return this.cdp.send('Emulation.setDeviceMetricsOverride', {
      width: this.viewport.width,
      height: this.viewport.height,
      deviceScaleFactor,
      // Desktop, as every context's device is (device-identity.ts, isMobile false): what Playwright set for the page.
      mobile: false,
      screenWidth: screen.width,
      screenHeight: screen.height,
      // As Playwright sets it for a desktop page.
      screenOrientation: { angle: 0, type: 'landscapePrimary' },
      ...(region ? { viewport: { ...region, scale: 1 } } : {}),
    });
  }
}
