import { type LiveInputTiming, liveTimingChannel } from '../../server/connect/live/live-timing';

/**
 * bench:live's input-to-frame time, stage by stage: the widget's keydown and paint (measured in the widget) joined to
 * the server's record of the same key (published on live-timing.ts's channel).
 */

export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

// ---------- input to frame, stage by stage (the server's side published on live-timing.ts's channel) ----------

export const STAGES = ['widget → server', 'dispatch', 'to frame swap', 'capture & encode', 'send', 'to widget paint'] as const;
export type Stages = Record<(typeof STAGES)[number], number>;
const serverTimings: LiveInputTiming[] = [];
liveTimingChannel.subscribe((m) => {
  serverTimings.push(m as LiveInputTiming);
  if (serverTimings.length > 10_000) serverTimings.splice(0, 5_000);
});

/** One key's way: the server's record of the first input it received after the widget's keydown and before its paint. */
export function stagesOf(linkSessionId: string, keyAt: number, paintedAt: number): Stages | null {
  const t = serverTimings.find((x) => x.linkSessionId === linkSessionId && x.receivedAt >= keyAt && x.sentAt <= paintedAt);
  if (!t) return null;
  const swapped = t.swappedAt !== null && t.swappedAt >= t.dispatchedAt - 50 && t.swappedAt <= t.frameAt ? t.swappedAt : t.dispatchedAt;
  return {
    'widget → server': t.receivedAt - keyAt,
    dispatch: t.dispatchedAt - t.receivedAt,
    'to frame swap': swapped - t.dispatchedAt,
    'capture & encode': t.frameAt - swapped,
    send: t.sentAt - t.frameAt,
    'to widget paint': paintedAt - t.sentAt,
  };
}

export function printStages(title: string, all: Stages[]): void {
  if (all.length === 0) return;
  console.log(`\n${title} (${all.length} keys; medians, ms; the widget's clock and the server's are this machine's one):`);
  for (const stage of STAGES) {
    console.log(
      `  ${stage.padEnd(18)} ${fmt(
        quantile(
          all.map((s) => s[stage]),
          0.5,
        ),
        1,
      ).padStart(7)}   p95 ${fmt(
        quantile(
          all.map((s) => s[stage]),
          0.95,
        ),
        1,
      ).padStart(6)}`,
    );
  }
}
