import type { Browser, Page } from 'playwright-core';

import { fmt, printStages, quantile, type Stages, stagesOf } from './input-stages';

/**
 * bench:live's person: a widget page in the bench's own Chromium, typing into the page its live view streams (a
 * sign-in's or a paused run's), one key at a time, each key timed until its frame is painted on the canvas.
 */

/** A person in a widget (a page of the bench's own Chromium), on one live view (its link session). */
export interface Person {
  widget: Page;
  linkSessionId: string;
}

/**
 * A widget page, as it is today (`sized`: its frames sized to its canvas, and to the part in view when zoomed in) or as
 * it was before issue #38 (`desktop`: it never says its canvas's size; `whole`: zoomed in, it asks for the whole canvas).
 */
export async function widgetPage(widgets: Browser, frames: 'sized' | 'desktop' | 'whole' = 'sized'): Promise<Page> {
  const context = await widgets.newContext({ viewport: { width: 420, height: 820 } });
  // The widget as it was before issue #38: it never says its canvas's size, so frames come at the page's (1280×800).
  if (frames === 'desktop') {
    await context.addInitScript(() => {
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
        if (typeof data === 'string' && data.includes('"t":"frameSize"')) return;
        send.call(this, data);
      };
    });
  }
  // The widget as it was before zoomed frames showed only the part in view: it asks for the whole zoomed canvas.
  if (frames === 'whole') {
    await context.addInitScript(() => {
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
        if (typeof data === 'string' && data.includes('"t":"frameSize"')) {
          // (No named inner function: tsx would wrap it in a helper the page does not have.)
          const r = document.getElementById('al-live-canvas')!.getBoundingClientRect();
          const [width, height] = [r.width, r.height].map((n) => Math.min(8000, Math.max(16, Math.floor(n * devicePixelRatio))));
          data = JSON.stringify({ t: 'frameSize', width, height });
        }
        send.call(this, data);
      };
    });
  }
  return context.newPage();
}

/** Marks each keydown on the widget's canvas, for typeAndMeasure. */
export async function timeKeys(widget: Page): Promise<void> {
  await widget.evaluate(() => {
    const w = window as unknown as { __benchKeyAt: number };
    w.__benchKeyAt = 0;
    document.getElementById('al-live-canvas')!.addEventListener('keydown', () => (w.__benchKeyAt = performance.now()), { capture: true });
  });
}

/**
 * Types `keys` keys, one every `intervalMs`; answers each key's input-to-frame latency, the frames per second, and the
 * size of the last frame painted (frames are sized to the canvas's device pixels, not the page's: issue #38).
 */
export async function typeAndMeasure(
  p: Person,
  keys: number,
  intervalMs: number,
): Promise<{ latencies: number[]; fps: number; frame: string; stages: Stages[] }> {
  const latencies: number[] = [];
  const stages: Stages[] = [];
  const framesBefore = await p.widget.evaluate(() => (window as unknown as { __agentlinkLive: { frames: number } }).__agentlinkLive.frames);
  const started = Date.now();
  for (let i = 0; i < keys; i++) {
    const tick = Date.now();
    const key = 'abcdefghijklmnopqrstuvwxyz'[i % 26]!;
    await p.widget.keyboard.press(i % 20 === 19 ? 'Backspace' : key);
    const latency = await p.widget
      .waitForFunction(
        () => {
          const w = window as unknown as { __benchKeyAt: number; __agentlinkLive: { paintedAt: number } };
          const at = w.__agentlinkLive.paintedAt;
          return at > w.__benchKeyAt ? [performance.timeOrigin + w.__benchKeyAt, performance.timeOrigin + at] : false;
        },
        undefined,
        { timeout: 5_000, polling: 'raf' },
      )
      .then((h) => h.jsonValue() as Promise<[number, number]>)
      .catch(() => null);
    if (latency) {
      latencies.push(latency[1] - latency[0]);
      const s = stagesOf(p.linkSessionId, latency[0], latency[1]);
      if (s) stages.push(s);
    }
    const wait = intervalMs - (Date.now() - tick);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const probe = await p.widget.evaluate(
    () => (window as unknown as { __agentlinkLive: { frames: number; frameWidth?: number; frameHeight?: number } }).__agentlinkLive,
  );
  const frame = probe.frameWidth ? `${probe.frameWidth}×${probe.frameHeight}` : 'unknown';
  return { latencies, fps: (probe.frames - framesBefore) / ((Date.now() - started) / 1000), frame, stages };
}

/**
 * The person zooms in to one page pixel per screen pixel and pans the stage until `selector` of `live` (the page the
 * view streams) is in the middle of it.
 */
export async function zoomTo(p: Person, live: Page, selector: string): Promise<void> {
  for (let i = 0; i < 6; i++) await p.widget.locator('#al-live-zoom-in').click();
  const box = (await live.locator(selector).first().boundingBox())!;
  const vp = { width: await live.evaluate(() => innerWidth), height: await live.evaluate(() => innerHeight) };
  await p.widget.evaluate(
    ([fx, fy]) => {
      const s = document.getElementById('al-live-scroll')!;
      const c = document.getElementById('al-live-canvas')!.getBoundingClientRect();
      s.scrollLeft = fx! * c.width - s.clientWidth / 2;
      s.scrollTop = fy! * c.height - s.clientHeight / 2;
    },
    [(box.x + box.width / 2) / vp.width, (box.y + box.height / 2) / vp.height],
  );
  await p.widget.locator('#al-live-canvas').focus(); // the keys go to the page again, not to the zoom button
  await new Promise((r) => setTimeout(r, 500)); // the frame size settles (120 ms) and the screencast restarts
}

/** One session per side, typing in alternating rounds (the same load on both), side by side. */
export async function sideBySide(
  title: string,
  sides: { name: string; person: Person }[],
  opts: { keys: number; warmup: number; intervalMs: number },
): Promise<void> {
  const measured = sides.map((s) => ({ ...s, latencies: [] as number[], fps: [] as number[], frame: '', stages: [] as Stages[] }));
  for (const side of measured) if (opts.warmup) await typeAndMeasure(side.person, opts.warmup, opts.intervalMs);
  const ROUNDS = 4;
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 ? [...measured].reverse() : measured) {
      const r = await typeAndMeasure(side.person, Math.ceil(opts.keys / ROUNDS), opts.intervalMs);
      side.latencies.push(...r.latencies);
      side.stages.push(...r.stages);
      side.fps.push(r.fps);
      side.frame = r.frame;
    }
  }
  console.log(`\n${title} (input-to-frame on loopback; alternating rounds):`);
  console.log('  frames                          size        median ms   p95 ms   fps/widget   keys');
  for (const s of measured) {
    console.log(
      `  ${s.name.padEnd(31)} ${s.frame.padEnd(11)} ${fmt(quantile(s.latencies, 0.5)).padStart(9)} ${fmt(quantile(s.latencies, 0.95)).padStart(8)} ` +
        `${fmt(s.fps.reduce((a, b) => a + b, 0) / s.fps.length, 1).padStart(12)} ${String(s.latencies.length).padStart(6)}`,
    );
  }
  for (const s of measured) printStages(`Input to frame, ${s.name}`, s.stages);
  const [before, after] = measured.map((s) => quantile(s.latencies, 0.5));
  console.log(`\n  median before / after: ${fmt(before! / after!, 2)}×`);
}
