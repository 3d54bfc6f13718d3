import diagnostics_channel from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

/**
 * Where one input's time goes on its way back to the person as a frame, stage by stage, published on a diagnostics
 * channel (as undici and Node's http publish theirs): nothing is measured or kept unless someone subscribes
 * (`bench:live`). Times are milliseconds since the epoch with sub-millisecond precision, so a subscriber can put them
 * beside a browser's `performance.timeOrigin + performance.now()` on the same machine.
 */
export interface LiveInputTiming {
  linkSessionId: string;
  /** The input message reached the live session. */
  receivedAt: number;
  /** The browser acknowledged the input event (it reached the page). */
  dispatchedAt: number;
  /** The compositor swapped the first frame after it (the screencast frame's own timestamp), when Chromium gives one. */
  swappedAt: number | null;
  /** That frame, encoded as JPEG, reached this process. */
  frameAt: number;
  /** The frame left on the widget's socket. */
  sentAt: number;
  /** The frame's size, in pixels. */
  bytes: number;
}

export const liveTimingChannel = diagnostics_channel.channel('agentlink.live.input-to-frame');

export const epochMs = (): number => performance.timeOrigin + performance.now();

/** Follows the oldest input not yet shown to the first frame after it (one record per frame, not per event). */
export class InputToFrame {
  private pending: { receivedAt: number; dispatchedAt: number | null } | null = null;

  constructor(private readonly linkSessionId: string) {}

  /** An input arrived; answers the callback to call once it is dispatched (no-op when nobody listens). */
  received(): () => void {
    if (!liveTimingChannel.hasSubscribers) return () => undefined;
    const entry = this.pending ?? { receivedAt: epochMs(), dispatchedAt: null };
    this.pending = entry;
    return () => {
      entry.dispatchedAt ??= epochMs();
    };
  }

  /** A frame arrived; answers the callback to call once it is sent, or null when it shows no dispatched input. */
  frame(swapSeconds: number | undefined, bytes: number): (() => void) | null {
    const entry = this.pending;
    if (!entry || entry.dispatchedAt === null) return null;
    this.pending = null;
    const frameAt = epochMs();
    const dispatchedAt = entry.dispatchedAt;
    return () =>
      liveTimingChannel.publish({
        linkSessionId: this.linkSessionId,
        receivedAt: entry.receivedAt,
        dispatchedAt,
        swappedAt: typeof swapSeconds === 'number' && swapSeconds > 0 ? swapSeconds * 1000 : null,
        frameAt,
        sentAt: epochMs(),
        bytes,
      } satisfies LiveInputTiming);
  }
}
