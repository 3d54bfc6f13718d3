import type { BrowserContext, CDPSession, Page } from 'playwright-core';

import { captureSession } from '../../browser/session-capture';
import { boundSession } from '../../browser/session-format';
import { releasePageSession } from '../../browser/webauthn-environment';
import type { EgressPolicy } from '../../egress/egress-policy';
import type { ProviderDefinition } from '../../providers/provider';
import type { StorageState } from '../login-engine';
import { firstFrameFor, frameBoundsFor, type WidgetSize } from './frame-size';
import { LiveEmulation } from './live-emulation';
import { dispatchInput } from './live-input-dispatch';
import { LivePageFence } from './live-page-fence';
import type { InputMessage, LiveSink, LiveStatusCode, ServerMessage } from './live-protocol';
import { LiveScreencast } from './live-screencast';
import { InputToFrame } from './live-timing';
import { isSignedIn } from './signed-in';

export type { LiveSink } from './live-protocol';

/**
 * One live sign-in: the provider's page in a fenced browser context, streamed to the widget with CDP's screencast
 * (JPEG frames, acknowledged one by one so a slow socket slows the stream instead of queueing frames), and the
 * person's pointer, wheel, keyboard, text and touch relayed back as CDP input events. The widget is a `LiveSink`;
 * it may drop and come back (reattach) while the session lives. The session ends when the provider's signed-in
 * signal appears (onSignedIn gets the session: all of its origins' storage), when it idles out, or when its owner closes it.
 */
export interface LiveSessionEvents {
  /** Sign-in views: the provider's signed-in signal appeared (views of a run's page never watch for it). */
  onSignedIn?(state: StorageState): void;
  onEnded(code: LiveStatusCode, message: string): void;
}

/**
 * A view of a page it does not own (a paused agent run's, live/run-live-views.ts): the page keeps its size (the run's
 * device), ending the view leaves the page and its context as they are, and input goes through only while `inputAllowed`.
 */
export interface BorrowedPage {
  inputAllowed(): boolean;
  /** A picture of the page from before the view (the run's still as it paused), shown until the screencast sends one. */
  lastFrame?(): Buffer | null;
}

/** Pending input events kept in order; beyond this the widget is flooding and events are dropped. */
const MAX_QUEUED_INPUT = 256;
const SIGNED_IN_POLL_MS = 400;
/** How long a borrowed page's view waits for the screencast's first frame before it takes a still. */
const FIRST_FRAME_WAIT_MS = 250;

export class LiveSession {
  private sink: LiveSink | null = null;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private lifeTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private ended = false;
  private viewport: { width: number; height: number };
  /** The frames (live-screencast.ts). */
  private readonly screencast: LiveScreencast;
  /** Last time an input event arrived (for the bench's and the metrics' benefit as much as the idle timer). */
  lastInputAt = Date.now();
  /** Where the page may go while the person drives it (live-page-fence.ts). */
  private readonly fence: LivePageFence;
  /** Undoes watchForLoss (the browser outlives the view: its listeners must not pile up). */
  private unwatch: () => void = () => undefined;
  /** Stage times of input to frame, for bench:live (live-timing.ts; nothing kept unless it listens). */
  private readonly timing: InputToFrame;

  private constructor(
    readonly linkSessionId: string,
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly cdp: CDPSession,
    private readonly provider: ProviderDefinition,
    private readonly policy: EgressPolicy,
    private readonly idleMs: number,
    private readonly events: LiveSessionEvents,
    viewport: { width: number; height: number },
    private readonly borrowed: BorrowedPage | null,
    widget: WidgetSize,
    emulation: (() => Promise<LiveEmulation | null>) | null,
  ) {
    this.viewport = viewport;
    this.timing = new InputToFrame(linkSessionId);
    const bounds = frameBoundsFor(viewport, firstFrameFor(widget));
    this.screencast = new LiveScreencast(cdp, viewport, bounds, () => this.sink, this.timing, emulation);
    this.fence = new LivePageFence(
      context,
      page,
      policy,
      (code, message, host) => this.notify(code, message, host),
      () => (borrowed ? !borrowed.inputAllowed() : false),
    );
  }

  /**
   * Takes a fenced context and its page (fresh, or handed over by the login engine) and starts streaming. `until`:
   * the session never outlives the link token.
   */
  static async start(opts: {
    linkSessionId: string;
    context: BrowserContext;
    page: Page;
    provider: ProviderDefinition;
    policy: EgressPolicy;
    startUrl: string | null;
    viewport: { width: number; height: number };
    /** The widget that opened the view: its first frames are sized to it (frame-size.ts). */
    widget: WidgetSize;
    idleMs: number;
    until: Date;
    events: LiveSessionEvents;
    borrowed?: BorrowedPage;
  }): Promise<LiveSession> {
    const { context, page } = opts;
    const borrowed = opts.borrowed ?? null;
    // A borrowed page keeps the size its run gave it (resizing would reflow the page under the run); the widget scales it.
    const viewport = borrowed ? (page.viewportSize() ?? opts.viewport) : opts.viewport;
    const cdp = await context.newCDPSession(page);
    // The view's own page at the view's size, its screen and pixel ratio kept (live-emulation.ts): a page opened at that
    // size already has it; a page handed over by the login engine is resized (Playwright's resize also sets the screen
    // to the view's size, and moves the window), then given its own screen back through the view's session.
    const own = borrowed ? null : await LiveEmulation.of(cdp, viewport).catch(() => null);
    const size = page.viewportSize();
    if (!borrowed && (size?.width !== viewport.width || size?.height !== viewport.height)) {
      await page.setViewportSize(viewport);
      await own?.apply();
    }
    // A borrowed page's metrics are read only when the person first zooms in: it may be mid-navigation now (a held form
    // post), when Chromium answers no command for it. A page without a size of its own (no viewport) is shown whole.
    let lent: Promise<LiveEmulation | null> | null = null;
    const emulation = !borrowed
      ? own && (() => Promise.resolve(own))
      : size &&
        (() =>
          (lent ??= LiveEmulation.of(cdp, size).catch(() => {
            lent = null; // a navigation committed meanwhile: read again at the next zoom
            return null;
          })));
    const session = new LiveSession(
      opts.linkSessionId,
      context,
      page,
      cdp,
      opts.provider,
      opts.policy,
      opts.idleMs,
      opts.events,
      viewport,
      borrowed,
      opts.widget,
      emulation,
    );
    session.watchForLoss();
    // A borrowed page may be mid-navigation (a run waiting on a held form post): Page.enable then answers only once the
    // navigation settles, which is what the person is there to decide. The screencast works without waiting for it.
    if (borrowed) void cdp.send('Page.enable').catch(() => undefined);
    else await cdp.send('Page.enable');
    const screencast = session.screencast.start();
    if (borrowed) {
      // A borrowed page mid-navigation answers once the navigation settles: the screencast starts then. Meanwhile the
      // person sees the run's last picture of it, or a still (a page that is not painting sends no frame on its own).
      void screencast.catch(() => undefined);
      session.screencast.lastFrame = borrowed.lastFrame?.() ?? null;
      // The screencast's first frame, at the canvas's size, usually comes within some 50 ms; a still (the page's whole
      // size, slower) only for a page that does not paint meanwhile.
      if (!session.screencast.lastFrame && !(await session.screencast.firstFrameWithin(FIRST_FRAME_WAIT_MS))) {
        await session.screencast.still();
      }
    } else {
      await screencast;
    }
    if (opts.startUrl) {
      await page.goto(opts.startUrl, { waitUntil: 'domcontentloaded' }).catch(() => undefined);
      session.fence.settled();
    }
    session.touchIdle();
    const lifeMs = Math.max(0, opts.until.getTime() - Date.now());
    session.lifeTimer = setTimeout(() => void session.end('LIVE_SESSION_CLOSED', 'The link expired.'), lifeMs);
    session.lifeTimer.unref();
    if (!borrowed) {
      session.pollTimer = setInterval(() => void session.checkSignedIn(), SIGNED_IN_POLL_MS);
      session.pollTimer.unref();
    }
    return session;
  }

  get livePage(): Page {
    return this.page;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  get currentViewport(): { width: number; height: number } {
    return this.viewport;
  }

  /** The widget (re)connected: it replaces any earlier socket, and gets the viewport and the latest frame at once. */
  attach(sink: LiveSink): void {
    if (this.ended) {
      sink.close('LIVE_SESSION_CLOSED', 'This sign-in view has ended.');
      return;
    }
    const previous = this.sink;
    this.sink = sink;
    previous?.close('LIVE_REPLACED', 'The sign-in view was opened somewhere else.');
    sink.send({ type: 'viewport', ...this.viewport });
    sink.send({ type: 'status', code: 'LIVE', message: 'Connected.' });
    const region = this.screencast.frameRegion;
    if (region) sink.send({ type: 'frameRegion', region });
    if (this.screencast.lastFrame) sink.sendFrame(this.screencast.lastFrame, () => undefined);
    void this.screencast.resume();
    this.touchIdle();
  }

  isAttached(sink: LiveSink): boolean {
    return this.sink === sink;
  }

  /** The widget's socket went away: no frames until one attaches again (live-screencast.ts, pause). */
  detach(sink: LiveSink): void {
    if (this.sink !== sink) return;
    this.sink = null;
    void this.screencast.pause();
  }

  /** Relays one input event, in order; false when the queue is full (the event is dropped). */
  input(message: InputMessage): boolean {
    // Not input to the page: a view of a run the person may not act on still gets frames its canvas's size.
    if (message.t === 'frameSize') {
      if (!this.ended) this.screencast.resize(message);
      return !this.ended;
    }
    if (this.ended || (this.borrowed && !this.borrowed.inputAllowed())) return false;
    if (this.queued >= MAX_QUEUED_INPUT) return false;
    this.queued++;
    this.lastInputAt = Date.now();
    this.touchIdle();
    const dispatched = this.timing.received();
    this.queue = this.queue
      // Asked again as the event's turn comes: a step that ended (or a write held meanwhile) takes no queued input.
      .then(() =>
        this.ended || (this.borrowed && !this.borrowed.inputAllowed()) ? undefined : dispatchInput(this.page, this.cdp, message),
      )
      .then(dispatched)
      .catch(() => undefined) // the page navigated or closed mid-event: nothing to relay to
      .finally(() => {
        this.queued--;
      });
    return true;
  }

  async end(code: LiveStatusCode, message: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.screencast.stop();
    this.unwatch();
    for (const t of [this.idleTimer, this.lifeTimer]) if (t) clearTimeout(t);
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.sink?.close(code, message);
    this.sink = null;
    if (this.borrowed) {
      // The run's page goes on without the view: only what the view added is taken away (its fence, its region).
      this.fence.stop();
      await this.screencast.showWhole();
      // Released, not detached: a detach would take the page's WebAuthn environment with it (webauthn-environment.ts).
      await releasePageSession(this.cdp);
    } else {
      await this.context.close().catch(() => undefined);
    }
    this.events.onEnded(code, message);
  }

  // ---------- internals ----------

  /**
   * A browser that dies (a crash, a kill) or a page that crashes ends the view at once, telling the person, instead of
   * leaving a frozen picture that answers nothing. A borrowed page's own close is its run's business (the run's view
   * ends with the run); the view's own page closing by itself is a stop too.
   */
  private watchForLoss(): void {
    const stopped = () => void this.end('LIVE_PAGE_STOPPED', 'The sign-in page stopped; try again.');
    const browser = this.context.browser();
    browser?.on('disconnected', stopped);
    this.page.on('crash', stopped);
    if (!this.borrowed) this.page.on('close', stopped);
    this.unwatch = () => {
      browser?.off('disconnected', stopped);
      this.page.off('crash', stopped);
      this.page.off('close', stopped);
    };
  }

  /** The egress proxy's report of a refused connection (wired by the owner, which opened the context). */
  blocked(url: string): void {
    this.fence.blocked(url);
  }

  notify(code: LiveStatusCode, message: string, host?: string | null): void {
    this.sink?.send({ type: 'status', code, message, ...(host ? { host } : {}) });
  }

  /** A message to the attached widget, if any (a run's state, live/run-live-views.ts). */
  send(message: ServerMessage): void {
    this.sink?.send(message);
  }

  /** Whole-page frames from now on (live-screencast.ts, wholeOnly): a paused run's view whose ask is over. */
  wholeFrames(): void {
    this.screencast.wholeOnly();
  }

  /** The JPEG quality the frames are encoded at now (frame-quality.ts). */
  get frameQuality(): number {
    return this.screencast.frameQuality;
  }

  private touchIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(
      () => void this.end('LIVE_SESSION_TIMED_OUT', 'The sign-in view was closed after a few minutes without activity.'),
      this.idleMs,
    );
    this.idleTimer.unref();
  }

  private checking = false;
  private async checkSignedIn(): Promise<void> {
    if (this.ended || this.checking) return;
    this.checking = true;
    try {
      if (!(await isSignedIn(this.page, this.provider))) return;
      // Bounded like a run's: the largest storage goes first; a session whose cookies alone do not fit cannot be kept.
      const { session: state } = boundSession(await captureSession(this.context, (origin) => this.policy.checkUrl(origin).ok));
      if (this.ended) return;
      if (!state) {
        await this.end('LIVE_SESSION_CLOSED', 'This account keeps more in the browser than a connection can store.');
        return;
      }
      this.notify('SIGNED_IN', 'Signed in.');
      this.events.onSignedIn?.(state);
      await this.end('SIGNED_IN', 'Signed in.');
    } catch {
      // the page was navigating; the next tick looks again
    } finally {
      this.checking = false;
    }
  }
}
