import type { CDPSession } from 'playwright-core';

import { frameRegionFor, wholeCanvasFor } from '../../server/connect/live/frame-size';
import type { LiveEmulation } from '../../server/connect/live/live-emulation';
import type { LiveSink, ServerMessage } from '../../server/connect/live/live-protocol';
import { LiveScreencast } from '../../server/connect/live/live-screencast';
import { InputToFrame } from '../../server/connect/live/live-timing';

/**
 * The live view's frames, sized and placed from what the widget's canvas shows: the whole page at the canvas's size, or
 * (zoomed in, on a page the view owns) only the part in view at its size on screen. A view of a borrowed page cannot
 * show a part: its whole-page frames stay as sharp as the zoomed canvas, as before regions existed.
 */
const PAGE = { width: 1280, height: 800 };

describe('frameRegionFor', () => {
  it('keeps a region inside the page, and asks for none where a region would save nothing', () => {
    expect(frameRegionFor(PAGE, undefined)).toBeNull();
    expect(frameRegionFor(PAGE, { x: 900, y: 0, width: 400, height: 600 })).toEqual({ x: 880, y: 0, width: 400, height: 600 });
    expect(frameRegionFor(PAGE, { x: 0, y: 0, width: 5000, height: 5000 })).toBeNull();
    expect(frameRegionFor(PAGE, { x: 10, y: 10, width: 1270, height: 790 })).toBeNull(); // 98% of the page
  });
});

describe('wholeCanvasFor', () => {
  it('scales the part in view back up to the whole canvas', () => {
    expect(wholeCanvasFor(PAGE, { width: 400, height: 600 })).toEqual({ width: 400, height: 600 });
    // 400×250 device pixels showing a 400×250 part of the page: the canvas is the page's size.
    expect(wholeCanvasFor(PAGE, { width: 400, height: 250, region: { x: 880, y: 550, width: 400, height: 250 } })).toEqual(PAGE);
  });
});

/**
 * A CDP session that records what the screencast asks of it, and a LiveEmulation that records its regions: `readable`,
 * the page's metrics could be read (null: a page that cannot show regions, as one without a size of its own).
 */
function rig(emulationOf: 'readable' | 'unreadable' | null) {
  const sent: { method: string; params?: Record<string, unknown> }[] = [];
  const cdp = {
    on: () => undefined,
    send: async (method: string, params?: Record<string, unknown>) => void sent.push({ method, params }),
  } as unknown as CDPSession;
  const regions: unknown[] = [];
  let reads = 0;
  const emulation = { apply: async (region: unknown) => void regions.push(region) } as unknown as LiveEmulation;
  const messages: ServerMessage[] = [];
  const sink: LiveSink = { send: (m) => void messages.push(m), sendFrame: () => undefined, close: () => undefined };
  const screencast = new LiveScreencast(
    cdp,
    PAGE,
    { width: 400, height: 250 },
    () => sink,
    new InputToFrame('t'),
    emulationOf &&
      (async () => {
        reads += 1;
        return emulationOf === 'readable' ? emulation : null;
      }),
  );
  // The fake session answers at once: every step of a restart is a microtask, all run before the next event-loop turn.
  const settled = () => new Promise((r) => setImmediate(r));
  const starts = () => sent.filter((s) => s.method === 'Page.startScreencast').map((s) => [s.params!.maxWidth, s.params!.maxHeight]);
  return { screencast, regions, messages, settled, starts, reads: () => reads };
}

describe('LiveScreencast.resize', () => {
  const zoomed = { t: 'frameSize' as const, width: 400, height: 600, region: { x: 880, y: 100, width: 400, height: 600 } };

  it('on its own page, zoomed in: frames of the part in view at its size, the widget told where they go first', async () => {
    const r = rig('readable');
    r.screencast.resize(zoomed);
    await r.settled();
    expect(r.regions).toEqual([{ x: 880, y: 100, width: 400, height: 600 }]);
    expect(r.messages).toEqual([{ type: 'frameRegion', region: { x: 880, y: 100, width: 400, height: 600 } }]);
    expect(r.starts()).toEqual([[400, 600]]);
    expect(r.screencast.frameRegion).toEqual({ x: 880, y: 100, width: 400, height: 600 });
    // Fit again: the whole page, and the widget told so.
    r.screencast.resize({ t: 'frameSize', width: 400, height: 250 });
    await r.settled();
    expect(r.regions).toEqual([{ x: 880, y: 100, width: 400, height: 600 }, null]);
    expect(r.messages[1]).toEqual({ type: 'frameRegion', region: null });
    expect(r.starts()).toEqual([
      [400, 600],
      [400, 250],
    ]);
  });

  it('ending, shows the whole page again if it showed a part (a borrowed page lives on), and asks nothing if not', async () => {
    const r = rig('readable');
    await r.screencast.showWhole();
    expect(r.regions).toEqual([]);
    r.screencast.resize(zoomed);
    await r.settled();
    r.screencast.stop();
    await r.screencast.showWhole();
    expect(r.regions).toEqual([{ x: 880, y: 100, width: 400, height: 600 }, null]);
    expect(r.screencast.frameRegion).toBeNull();
  });

  it('on a page whose metrics cannot be read (it was navigating), zoomed in: whole frames at the whole zoomed canvas’s size, read again at the next zoom', async () => {
    const r = rig('unreadable');
    r.screencast.resize(zoomed);
    await r.settled();
    expect(r.regions).toEqual([]);
    expect(r.messages).toEqual([]);
    // 400 device pixels showing 400 of the page's 1280: the canvas is 1280 wide; 600 of 800 tall: 800.
    expect(r.starts()).toEqual([[1280, 800]]);
    expect(r.screencast.frameRegion).toBeNull();
    r.screencast.resize({ ...zoomed, region: { x: 0, y: 0, width: 400, height: 600 } });
    await r.settled();
    expect(r.reads()).toBe(2);
    expect(r.starts()).toEqual([
      [1280, 800],
      [1280, 800],
    ]);
  });

  it('whole only (a paused run’s ask is over): the page made whole, whole frames from then on, zoomed or not', async () => {
    const r = rig('readable');
    r.screencast.resize(zoomed);
    await r.settled();
    r.screencast.wholeOnly();
    await r.settled();
    expect(r.regions).toEqual([{ x: 880, y: 100, width: 400, height: 600 }, null]);
    expect(r.messages[1]).toEqual({ type: 'frameRegion', region: null });
    expect(r.starts()).toEqual([
      [400, 600],
      [1280, 800],
    ]);
    r.screencast.resize({ ...zoomed, region: { x: 0, y: 0, width: 400, height: 600 } });
    await r.settled();
    expect(r.regions).toHaveLength(2);
  });

  it('on a page that cannot show regions (no emulation), zoomed in: whole-page frames at the whole zoomed canvas’s size', async () => {
    const r = rig(null);
    r.screencast.resize(zoomed);
    await r.settled();
    expect(r.regions).toEqual([]);
    expect(r.starts()).toEqual([[1280, 800]]);
  });
});
