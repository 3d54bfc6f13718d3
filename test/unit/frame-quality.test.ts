import { FrameQuality, QUALITY_STEPS } from '../../server/connect/live/frame-quality';
import { InputToFrame, type LiveInputTiming, liveTimingChannel } from '../../server/connect/live/live-timing';

/** The live view's frame quality follows the widget's socket: down while frames are slow to leave, up once they are quick. */
describe('FrameQuality', () => {
  let now = 0;
  const quality = () => new FrameQuality(() => now);
  beforeEach(() => (now = 10_000));

  it('keeps its best quality while frames leave quickly, and after one slow frame', () => {
    const q = quality();
    for (let i = 0; i < 50; i++) expect(q.sent(3)).toBe(false);
    expect(q.sent(400)).toBe(false);
    expect(q.sent(2)).toBe(false);
    expect(q.quality).toBe(QUALITY_STEPS[0]);
  });

  it('steps down after three slow frames in a row, at most once a second', () => {
    const q = quality();
    expect([q.sent(80), q.sent(80), q.sent(80)]).toEqual([false, false, true]);
    expect(q.quality).toBe(QUALITY_STEPS[1]);
    now += 500;
    expect([q.sent(80), q.sent(80), q.sent(80)]).toEqual([false, false, false]);
    expect(q.quality).toBe(QUALITY_STEPS[1]);
    now += 600;
    expect(q.sent(80)).toBe(true);
    expect(q.quality).toBe(QUALITY_STEPS[2]);
  });

  it('counts a frame dropped on a full socket as slow, and never goes below its lowest step', () => {
    const q = quality();
    for (let step = 0; step < QUALITY_STEPS.length + 2; step++) {
      for (let i = 0; i < 3; i++) q.sent(Infinity);
      now += 1_001;
    }
    expect(q.quality).toBe(QUALITY_STEPS[QUALITY_STEPS.length - 1]);
  });

  it('steps back up after thirty quick frames, once five seconds passed since the last change', () => {
    const q = quality();
    for (let i = 0; i < 3; i++) q.sent(80);
    expect(q.quality).toBe(QUALITY_STEPS[1]);
    for (let i = 0; i < 30; i++) expect(q.sent(2)).toBe(false); // too soon after stepping down
    now += 5_000;
    expect(q.sent(2)).toBe(true);
    expect(q.quality).toBe(QUALITY_STEPS[0]);
  });

  it('a middling frame (neither slow nor quick) breaks a run of quick ones', () => {
    const q = quality();
    for (let i = 0; i < 3; i++) q.sent(80);
    now += 10_000;
    for (let i = 0; i < 29; i++) q.sent(2);
    expect(q.sent(30)).toBe(false);
    for (let i = 0; i < 29; i++) expect(q.sent(2)).toBe(false);
    expect(q.sent(2)).toBe(true);
  });
});

describe('InputToFrame', () => {
  it('measures nothing while nobody listens', () => {
    const t = new InputToFrame('lses_a');
    t.received()();
    expect(t.frame(1, 10)).toBeNull();
  });

  it('follows the oldest input not yet shown to the first frame after its dispatch, once', () => {
    const seen: LiveInputTiming[] = [];
    const listen = (m: unknown) => seen.push(m as LiveInputTiming);
    liveTimingChannel.subscribe(listen);
    try {
      const t = new InputToFrame('lses_b');
      const first = t.received();
      const second = t.received();
      expect(t.frame(undefined, 5)).toBeNull(); // a frame before the input reached the page shows something else
      first();
      second();
      const sent = t.frame(Date.now() / 1000, 1234)!;
      expect(sent).not.toBeNull();
      expect(t.frame(undefined, 5)).toBeNull(); // the next frame answers no input
      sent();
      expect(seen).toHaveLength(1);
      const [m] = seen;
      expect(m!.linkSessionId).toBe('lses_b');
      expect(m!.bytes).toBe(1234);
      expect(m!.receivedAt).toBeLessThanOrEqual(m!.dispatchedAt);
      expect(m!.dispatchedAt).toBeLessThanOrEqual(m!.frameAt);
      expect(m!.frameAt).toBeLessThanOrEqual(m!.sentAt);
      expect(m!.swappedAt).toBeGreaterThan(0);
    } finally {
      liveTimingChannel.unsubscribe(listen);
    }
  });
});
