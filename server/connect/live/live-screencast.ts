import { performance } from 'node:perf_hooks';

import type { CDPSession } from 'playwright-core';

import { within } from '../../browser/page-quiet';
import { FrameQuality } from './frame-quality';
import { type FrameBounds, frameBoundsFor, type FrameRegion, frameRegionFor, sameBounds, sameRegion, wholeCanvasFor } from './frame-size';
import type { LiveEmulation } from './live-emulation';
import type { FrameSizeMessage, LiveSink } from './live-protocol';
import type { InputToFrame } from './live-timing';

/** Stills (a borrowed page's first picture) at the stream's best quality. */
const STILL_QUALITY = 70;
/** How long a still of a borrowed page may take (a page mid-navigation may not paint one at all). */
const STILL_FRAME_MS = 1_500;

type ScreencastFrame = { data: string; sessionId: number; metadata?: { timestamp?: number } };

/**
 * A live view's frames: CDP's screencast of the page, as JPEG, acknowledged one by one so a slow socket slows the
 * stream instead of queueing frames; sized to the widget's canvas (frame-size.ts) and encoded at the quality the
 * socket keeps up with (frame-quality.ts). Restarts (a new size, a new quality) go one at a time, the last asked wins.
 */
export class LiveScreencast {
  /** The latest frame, for a widget that (re)attaches. */
  lastFrame: Buffer | null = null;
  private onFirstFrame: () => void = () => undefined;
  /** Resolves at the screencast's first frame. */
  private readonly framed = new Promise<void>((resolve) => (this.onFirstFrame = resolve));
  private chain: Promise<void> = Promise.resolve();
  private readonly quality = new FrameQuality();
  private stopped = false;
  /** The part of the page the frames show (null: all of it), as asked, and as the page's emulation has it now. */
  private region: FrameRegion | null = null;
  private shownRegion: FrameRegion | null = null;
  /** The widget's last size message (whole frames are sized from it again if the page cannot show regions). */
  private asked: FrameSizeMessage | null = null;
  /** Whether the frames may show a part of the page (a paused run's view stops once its person's ask is over). */
  private regions = true;
  /** Whether a widget is there to see the frames (pause, resume). */
  private watched = true;

  constructor(
    private readonly cdp: CDPSession,
    private readonly viewport: { width: number; height: number },
    /** The screencast's frame size: the widget's canvas's, from its first message on (frame-size.ts). */
    private bounds: FrameBounds,
    private readonly sink: () => LiveSink | null,
    private readonly timing: InputToFrame,
    /**
     * The page's emulation (live-emulation.ts), through which frames show a region: at hand for a view's own page; for a
     * borrowed one read when the person first zooms in (a page mid-navigation answers no command until it settles).
     * Null: whole frames only.
     */
    private emulation: (() => Promise<LiveEmulation | null>) | null = null,
  ) {
    cdp.on('Page.screencastFrame', (frame: ScreencastFrame) => this.onFrame(frame));
  }

  start(): Promise<unknown> {
    const { width, height } = this.bounds;
    return this.cdp.send('Page.startScreencast', {
      format: 'jpeg',
      quality: this.quality.quality,
      maxWidth: width,
      maxHeight: height,
      everyNthFrame: 1,
    });
  }

  /** No more frames are sent (the view ended; the CDP session goes with its owner). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Nobody watches (the widget's socket went away): the screencast stops until a widget attaches again. A screencast
   * makes Chromium capture every repaint: on a page that animates (a spinner) that cost about 2 CPU-seconds per second
   * (bench:held-page), for frames nobody would see until the view's idle time ran out. Resolves once it is stopped.
   */
  pause(): Promise<void> {
    if (!this.watched) return this.chain;
    this.watched = false;
    this.chain = this.chain
      .then(async () => {
        if (!this.watched || this.stopped) await this.cdp.send('Page.stopScreencast');
      })
      .catch(() => undefined); // the page closed
    return this.chain;
  }

  /** A widget attached again: the screencast restarts (its first frame comes at once, the page as it is now). */
  resume(): Promise<void> {
    if (this.watched) return this.chain;
    this.watched = true;
    this.chain = this.chain
      .then(async () => {
        if (this.watched && !this.stopped) await this.start();
      })
      .catch(() => undefined);
    return this.chain;
  }

  /** The JPEG quality the frames are encoded at now. */
  get frameQuality(): number {
    return this.quality.quality;
  }

  /**
   * The widget's canvas changed size (opened, zoomed, window resized) or shows another part of the page (zoomed in and
   * panned): the screencast restarts at that size, showing that part (whole, where the page cannot show one).
   */
  resize(asked: FrameSizeMessage): void {
    this.asked = asked;
    const region = this.emulation && this.regions ? frameRegionFor(this.viewport, asked.region) : null;
    // A whole-page frame (a page that cannot show regions, or a region too large to save anything) at the whole canvas's size.
    const next = region ? frameBoundsFor(region, asked) : this.wholeBounds(asked);
    if (sameBounds(next, this.bounds) && sameRegion(region, this.region)) return;
    this.bounds = next;
    this.region = region;
    this.restart();
  }

  private wholeBounds(asked: FrameSizeMessage): FrameBounds {
    return frameBoundsFor(this.viewport, wholeCanvasFor(this.viewport, asked));
  }

  /**
   * Whole-page frames from now on, the page made whole: a paused run's view once its person's ask is over. The run goes
   * on under the view, and its stills (what the next held write shows its person) and any other view of the page
   * must be of the whole page.
   */
  wholeOnly(): void {
    if (!this.regions) return;
    this.regions = false;
    if (this.asked) this.resize(this.asked);
  }

  /**
   * The page's whole picture again, once the view ends (a borrowed page lives on: its run's trace and stills must
   * not be left with a part of it). After any restart already on its way; nothing to do if no region was ever shown.
   * Waited for at most `waitMs`: a page mid-navigation (a held write) answers once it settles, and is made whole then.
   */
  async showWhole(waitMs = STILL_FRAME_MS): Promise<void> {
    this.chain = this.chain
      .then(async () => {
        if (!this.shownRegion || !this.emulation) return;
        await (await this.emulation())?.apply(null);
        this.shownRegion = null;
      })
      .catch(() => undefined); // the page closed with its run
    await within(this.chain, waitMs, undefined);
  }

  /** The part of the page the frames sent now show (null: the whole page), for a widget that (re)attaches. */
  get frameRegion(): FrameRegion | null {
    return this.shownRegion;
  }

  /** Whether a frame came within `ms`. */
  async firstFrameWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([this.framed, late]);
    clearTimeout(timer);
    return this.lastFrame !== null;
  }

  /** A screenshot for a page that paints nothing on its own (the screencast sends frames only when the page changes). */
  async still(): Promise<void> {
    try {
      const shot = await Promise.race([
        this.cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: STILL_QUALITY }) as Promise<{ data: string }>,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no still')), STILL_FRAME_MS).unref()),
      ]);
      if (this.lastFrame) return; // the screencast was quicker
      this.lastFrame = Buffer.from(shot.data, 'base64');
      this.sink()?.sendFrame(this.lastFrame, () => undefined);
    } catch {
      // the page was closing: the screencast's frames are all there is
    }
  }

  /** The screencast again at the current size and quality, after any restart already on its way. */
  private restart(): void {
    const bounds = this.bounds;
    const region = this.region;
    const quality = this.quality.quality;
    this.chain = this.chain
      .then(async () => {
        // A later size, part or quality is on its way: that restart does it.
        if (this.stopped || !sameBounds(bounds, this.bounds) || region !== this.region || quality !== this.quality.quality) return;
        await this.cdp.send('Page.stopScreencast');
        if (this.emulation && !sameRegion(region, this.shownRegion)) {
          const emulation = await this.emulation();
          // Read while a navigation settled, maybe: the view may have ended, or the person asked for another part.
          if (this.stopped || region !== this.region) return;
          if (emulation) {
            // No frame of the last part comes after the stop: the widget learns where the next ones go, then they come.
            await emulation.apply(region);
            this.shownRegion = region;
            this.sink()?.send({ type: 'frameRegion', region });
          } else if (this.asked) {
            // The page's metrics could not be read (it was navigating): whole frames at the whole canvas's size, until
            // the person zooms or pans again, which asks again.
            this.region = null;
            this.bounds = this.wholeBounds(this.asked);
          }
        }
        if (this.watched) await this.start(); // paused: resume() starts it at the size asked last
      })
      .catch(() => undefined); // the page closed: nothing to stream
  }

  private onFrame(frame: ScreencastFrame): void {
    if (this.stopped) return; // a frame already on its way when the view ended
    const jpeg = Buffer.from(frame.data, 'base64');
    this.lastFrame = jpeg;
    this.onFirstFrame();
    const ack = () => void this.cdp.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
    const sink = this.sink();
    if (!sink) return ack();
    const shown = this.timing.frame(frame.metadata?.timestamp, jpeg.length);
    const sending = performance.now();
    sink.sendFrame(jpeg, (dropped) => {
      shown?.();
      ack();
      if (!this.stopped && this.quality.sent(dropped ? Infinity : performance.now() - sending)) this.restart();
    });
  }
}
