import { performance } from 'node:perf_hooks';

/**
 * The live view's JPEG quality, adapted to the widget's socket. Frames go one at a time (the screencast sends the
 * next only once this one left), so a socket that drains slowly (a phone on a weak network) slows the stream and
 * makes each frame, the one that answers the person's key among them, wait behind the one before. Smaller frames
 * then leave sooner: the quality steps down while frames are slow to leave, and back up once they leave quickly
 * again, as video calls adapt their bitrate. Frames are already no larger than the canvas shows (frame-size.ts).
 */
export const QUALITY_STEPS = [70, 55, 40, 30] as const;
/** A frame that takes longer than this to leave holds the next one (and the input's answer) behind it. */
const SLOW_SEND_MS = 50;
/** A frame that leaves within this is on a socket with room to spare. */
const FAST_SEND_MS = 10;
/** Slow frames in a row before stepping down (one slow frame is a hiccup, not a network). */
const SLOW_RUN = 3;
/** Fast frames in a row before stepping up. */
const FAST_RUN = 30;
/** Every change restarts the screencast: at most one a second down, and up only after a calm while. */
const DOWN_AFTER_MS = 1_000;
const UP_AFTER_MS = 5_000;

export class FrameQuality {
  private step = 0;
  private slow = 0;
  private fast = 0;
  private changedAt = -Infinity;

  constructor(private readonly now: () => number = () => performance.now()) {}

  get quality(): number {
    return QUALITY_STEPS[this.step]!;
  }

  /**
   * One frame left the socket after `sendMs` (Infinity: it was dropped, the socket's buffer full). Answers true
   * when the quality changed, so the screencast restarts at the new one.
   */
  sent(sendMs: number): boolean {
    if (sendMs > SLOW_SEND_MS) {
      this.fast = 0;
      this.slow++;
      if (this.slow >= SLOW_RUN && this.step < QUALITY_STEPS.length - 1) return this.change(1, DOWN_AFTER_MS);
    } else {
      this.slow = 0;
      this.fast = sendMs <= FAST_SEND_MS ? this.fast + 1 : 0;
      if (this.fast >= FAST_RUN && this.step > 0) return this.change(-1, UP_AFTER_MS);
    }
    return false;
  }

  private change(by: 1 | -1, afterMs: number): boolean {
    const now = this.now();
    if (now - this.changedAt < afterMs) return false;
    this.step += by;
    this.changedAt = now;
    this.slow = 0;
    this.fast = 0;
    return true;
  }
}
