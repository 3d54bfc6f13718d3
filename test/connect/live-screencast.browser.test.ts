import type { Browser, CDPSession, Page } from 'playwright-core';

import { launchBrowser } from '../../server/browser/chromium';
import { QUALITY_STEPS } from '../../server/connect/live/frame-quality';
import type { LiveSink } from '../../server/connect/live/live-protocol';
import { LiveScreencast } from '../../server/connect/live/live-screencast';
import { InputToFrame } from '../../server/connect/live/live-timing';

/**
 * The live view's frames follow the widget's socket (real Chromium, CDP screencast): a socket that takes each frame
 * slowly gets the stream at a lower JPEG quality, so the frame that answers the person's next key is smaller and
 * leaves sooner; a socket that keeps up keeps the best quality.
 */
jest.setTimeout(60_000);

let browser: Browser;
let page: Page;
let cdp: CDPSession;

beforeAll(async () => {
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 640, height: 400 } });
  page = await context.newPage();
  // A page that paints all the time, detailed enough that the JPEG quality shows in the frames' size.
  await page.setContent(`<canvas id="c" width="640" height="400"></canvas><script>
    const c = document.getElementById('c').getContext('2d');
    let n = 0;
    (function paint() {
      n++;
      for (let i = 0; i < 400; i++) {
        c.fillStyle = 'hsl(' + ((i * 37 + n * 11) % 360) + ',70%,' + (30 + ((i * 13 + n) % 40)) + '%)';
        c.fillRect((i * 53 + n * 7) % 640, (i * 29 + n * 3) % 400, 24, 16);
      }
      requestAnimationFrame(paint);
    })();
  </script>`);
  cdp = await context.newCDPSession(page);
  await cdp.send('Page.enable');
});

afterAll(async () => {
  await browser?.close();
});

/** A sink whose socket takes `delayMs` per frame; it records each frame's size. */
function socketTaking(delayMs: number): { sink: LiveSink; sizes: number[] } {
  const sizes: number[] = [];
  const sink: LiveSink = {
    send: () => undefined,
    sendFrame: (jpeg, done) => {
      sizes.push(jpeg.length);
      if (delayMs === 0)
        done(); // at once: a loaded machine's timers cannot make this socket look slow
      else setTimeout(() => done(), delayMs);
    },
    close: () => undefined,
  };
  return { sink, sizes };
}

async function until(ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

it('a socket that keeps up keeps the best quality', async () => {
  const { sink, sizes } = socketTaking(0);
  const cast = new LiveScreencast(cdp, { width: 640, height: 400 }, { width: 640, height: 400 }, () => sink, new InputToFrame('lses_fast'));
  await cast.start();
  try {
    await until(() => sizes.length >= 20, 20_000);
    expect(sizes.length).toBeGreaterThanOrEqual(20);
    expect(cast.frameQuality).toBe(QUALITY_STEPS[0]);
  } finally {
    cast.stop();
    await cdp.send('Page.stopScreencast');
  }
});

it('a slow socket gets smaller frames at a lower quality', async () => {
  const { sink, sizes } = socketTaking(120);
  const cast = new LiveScreencast(cdp, { width: 640, height: 400 }, { width: 640, height: 400 }, () => sink, new InputToFrame('lses_slow'));
  await cast.start();
  try {
    await until(() => sizes.length >= 3, 20_000);
    const before = mean(sizes.slice(0, 3));
    // Three slow frames step it down; the restarted screencast sends at the new quality.
    await until(() => cast.frameQuality < QUALITY_STEPS[0], 20_000);
    expect(cast.frameQuality).toBe(QUALITY_STEPS[1]);
    const stepped = sizes.length;
    await until(() => cast.frameQuality <= QUALITY_STEPS[2], 20_000);
    expect(cast.frameQuality).toBeLessThanOrEqual(QUALITY_STEPS[2]);
    await until(() => sizes.length >= stepped + 6, 20_000);
    // Past any frame the old screencast had on its way.
    expect(mean(sizes.slice(stepped + 2))).toBeLessThan(before * 0.9);
  } finally {
    cast.stop();
    await cdp.send('Page.stopScreencast');
  }
});

it('with nobody watching, the screencast stops (no frame captured); a widget that attaches again gets frames at once', async () => {
  let watching: LiveSink | null = socketTaking(0).sink;
  const cast = new LiveScreencast(
    cdp,
    { width: 640, height: 400 },
    { width: 640, height: 400 },
    () => watching,
    new InputToFrame('lses_away'),
  );
  await cast.start();
  try {
    await until(() => cast.lastFrame !== null, 20_000);
    // The widget's socket goes away (LiveSession.detach): once the stop is answered, a frame already on its way may land.
    watching = null;
    await cast.pause();
    let last = cast.lastFrame;
    let quietSince = Date.now();
    await until(() => {
      if (cast.lastFrame !== last) [last, quietSince] = [cast.lastFrame, Date.now()];
      return Date.now() - quietSince >= 300;
    }, 5_000);
    // The page paints on every animation frame: a screencast still running would capture dozens of frames in a second.
    const before = cast.lastFrame;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(cast.lastFrame).toBe(before);
    // A widget attaches again (LiveSession.attach): the screencast restarts, and frames of the page as it is now come.
    const back = socketTaking(0);
    watching = back.sink;
    await cast.resume();
    await until(() => back.sizes.length >= 3, 20_000);
    expect(back.sizes.length).toBeGreaterThanOrEqual(3);
  } finally {
    cast.stop();
    await cdp.send('Page.stopScreencast');
  }
});
