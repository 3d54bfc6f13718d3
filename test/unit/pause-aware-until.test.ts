import { until, waitBudget } from '../../server/agent/playbooks/site-helpers';
import { RunClock, runNow, runPaused, withRunClock } from '../../server/agent/run/clock';

/**
 * The playbooks' waits count the run's own time (run/clock.ts): while the run waits for its end user the clock stands
 * still, so a wait that spans the pause, or a budget taken after it, is not used up by the minutes the person took.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('until and waitBudget in run time', () => {
  it('outside a run: wall-clock time (a condition never met times out, naming what it waited for and why)', async () => {
    const started = Date.now();
    await expect(
      until(
        'the answer',
        async () => {
          throw new Error('not there yet\nsecond line');
        },
        150,
        20,
      ),
    ).rejects.toThrow('timed out waiting for the answer (not there yet)');
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(await until('a value', async () => 42, 100)).toBe(42);
  });

  it('does not time out while the run is paused for its user, and does once the run works again', async () => {
    const clock = new RunClock();
    let ready = false;
    await withRunClock(clock, async () => {
      const waiting = until('the person', async () => ready, 200, 10);
      clock.pause();
      expect(runPaused()).toBe(true);
      await sleep(400); // twice the timeout in wall time, none in run time
      ready = true;
      clock.resume();
      await expect(waiting).resolves.toBe(true);

      // Resumed and never ready: the run's own 200 ms do run out.
      await expect(until('something that never comes', async () => false, 200, 10)).rejects.toThrow(
        'timed out waiting for something that never comes',
      );
    });
  });

  it('times out a wait that started before a pause only by the time the run worked', async () => {
    const clock = new RunClock();
    await withRunClock(clock, async () => {
      const wallStarted = Date.now();
      const started = runNow();
      const waiting = until('never', async () => false, 300, 10);
      await sleep(100);
      clock.pause();
      await sleep(3_000);
      clock.resume();
      await expect(waiting).rejects.toThrow('timed out waiting for never');
      // At least the 300 ms of run time went by; the wall moved on by the whole pause (3 s) more than the run's clock did:
      // a pause counted would keep the two together. (How long the run's own steps took is the machine's speed.)
      expect(runNow() - started).toBeGreaterThanOrEqual(300);
      expect(Date.now() - wallStarted - (runNow() - started)).toBeGreaterThanOrEqual(2_990);
    });
  });

  it('waitBudget: the time left before the deadline in run time, bounded (a pause does not spend it)', async () => {
    const clock = new RunClock();
    await withRunClock(clock, async () => {
      const ctx = { deadline: runNow() + 5000 };
      expect(waitBudget(ctx)).toBeGreaterThan(4900);
      expect(waitBudget(ctx, 2000)).toBe(2000);
      clock.pause();
      await sleep(2_000);
      clock.resume();
      // A pause counted would leave at most 3 s; the run's own steps took far less than 2 s however busy the machine.
      expect(waitBudget(ctx)).toBeGreaterThan(3_000);
      // Outside the clock, wall time: the same deadline looks 2 s closer.
      expect(ctx.deadline - Date.now()).toBeLessThan(3_100);
      expect(waitBudget({ deadline: runNow() - 10_000 })).toBe(1000);
    });
  });

  it('stops once its run is over, not at its own deadline (a canceled run’s step polled a closed page for 15 s)', async () => {
    const clock = new RunClock();
    let checks = 0;
    await withRunClock(clock, async () => {
      const waiting = until(
        'a page that closed',
        async () => {
          checks += 1;
          throw new Error('Target page, context or browser has been closed');
        },
        60_000,
        10,
      );
      await eventuallyChecked(() => checks >= 2);
      clock.end();
      await expect(waiting).rejects.toThrow('the run ended while waiting for a page that closed');
      const after = checks;
      await sleep(50);
      expect(checks).toBe(after); // no check after the end
    });
  });
});

/** Waits (in real time, bounded) until `ok` holds. */
async function eventuallyChecked(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await sleep(10);
  expect(ok()).toBe(true);
}
