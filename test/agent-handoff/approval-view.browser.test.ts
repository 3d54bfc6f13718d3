import type { BrowserContext, Page } from 'playwright-core';
import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks';
import type { LiveSink } from '../../server/connect/live/live-session';
import { api, connectOrbit, createRequest, eventually, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageWindow, stageWidth, widgetFrames, zoomInAtRightEdge } from '../support/live-view-probes';
import { FINAL_STATUSES, jpegSize, openRunWidget, requestWhen, runPage, widgetFor } from './handoff-support';

/**
 * What a paused run's person sees and does, each with the attack or slip it stops (real AgentLink, worker, Chromium):
 *  - a held write's view is a picture: the server relays no pointer or key to the run's page while a write is held (a
 *    tap there navigated the page away from the write), and a code step keeps input;
 *  - after Approve, the next step waits for the write's answer and the page it brings (it used to read the page as
 *    the person decided, before the write was even sent);
 *  - the link of a pause that expired says "This step is over" (USER_ACTION_OVER; USER_ACTION_ENDED to the SDK), not
 *    "This link has expired … connection links";
 *  - zoomed in, the view is sent only the part of the run's page in view (issue #38), and the run's page is left whole
 *    when the view ends or its ask is over and the run goes on (its still at the next pause, the next ask's view).
 */
jest.setTimeout(120_000);

let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };
let context: BrowserContext;
/** The server's clock runs this far ahead (a pause's expiry reached without waiting for it). */
let ahead = 0;

/** Posts a note from the page (held for approval); the page shows "Saved" once the answer and a reload of its list came. */
const notePlaybook: Playbook<unknown> = {
  providerSlug: 'orbit',
  name: 'test.save-note',
  description: 'test playbook: a write whose answer the page renders after a follow-up read',
  writes: true,
  examples: ['test: save a note'],
  resultFields: { state: 'string' },
  parameters: z.unknown(),
  run: async (ctx) => {
    await ctx.page.setContent('<main><h1 id="state">Draft</h1></main>');
    await ctx.step(
      'click',
      'Save',
      async () => {
        await ctx.page.evaluate(() => {
          void fetch('/notes', { method: 'POST', body: 'text=hello' })
            .then(() => fetch('/?list'))
            .then(() => (document.querySelector('#state')!.textContent = 'Saved'));
        });
        // The click's step ends once its write was put to the person (as a playbook's click ends once its navigation
        // started). `asked`, not `current`: a quick Approve can end the ask between two looks.
        await eventually(
          async () => live.services.handoffs.registry.find(ctx.requestId)?.asked ?? false,
          (asked) => asked,
          20_000,
        );
      },
      { writes: true },
    );
    const state = await ctx.step('read', 'state', () => ctx.page.textContent('#state'));
    return { state: state ?? '' };
  },
};

const codePlaybook: Playbook<unknown> = {
  providerSlug: 'orbit',
  name: 'test.code-step',
  description: 'test playbook: a code step',
  writes: false,
  examples: ['test: a code step'],
  resultFields: { ok: 'boolean' },
  parameters: z.unknown(),
  run: async (ctx) => {
    await ctx.page.setContent('<main><input id="code"></main>');
    await ctx.needsUser({ reason: 'CODE', message: 'Enter the code.' });
    return { ok: true };
  },
};

/** A code step, then work that goes on until the test lets it end (the view of a run that goes on after its ask). */
let letRunEnd: () => void = () => undefined;
const codeThenWorkPlaybook: Playbook<unknown> = {
  ...codePlaybook,
  name: 'test.code-then-work',
  run: async (ctx) => {
    await ctx.page.setContent('<main><input id="code"></main>');
    await ctx.needsUser({ reason: 'CODE', message: 'Enter the code.' });
    await new Promise<void>((resolve) => {
      letRunEnd = resolve;
      setTimeout(resolve, 30_000).unref();
    });
    return { ok: true };
  },
};

beforeAll(async () => {
  live = await startLiveServer({
    worker: true,
    clock: { now: () => new Date(Date.now() + ahead) },
    env: { AGENTLINK_USER_ACTION_TTL_SECONDS: '60' },
  });
  live.services.playbooks.register(notePlaybook);
  live.services.playbooks.register(codePlaybook);
  live.services.playbooks.register(codeThenWorkPlaybook);
  org = await liveOrg(live);
  conn = await connectOrbit(live, org);
  context = await live.services.browsers.newContext({ viewport: { width: 480, height: 900 } });
});

afterAll(async () => {
  await context?.close();
  await live?.close();
});

const run = (playbook: string, approval?: string) =>
  createRequest(live, org, {
    accessToken: conn.accessToken,
    action: `test: ${playbook}`,
    playbook,
    ...(approval ? { approval } : {}),
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: playbook === 'test.save-note' ? { state: 'string' } : { ok: 'boolean' },
  });

const quietSink: LiveSink = { send: () => undefined, sendFrame: (_jpeg, done) => done(), close: () => undefined };

/** Opens the run's live view for this pause's link, server side, and tries one key press on the page. */
async function keyReachesPage(linkToken: string): Promise<boolean> {
  const w = widgetFor(live, linkToken);
  expect((await w.start()).status).toBe(200);
  const opened = await live.services.runLiveViews.connect(linkToken, w.id, { width: 480, height: 900 }, quietSink);
  expect(opened.ok).toBe(true);
  try {
    return live.services.runLiveViews.input(w.id, quietSink, { t: 'keydown', key: 'a' });
  } finally {
    live.services.runLiveViews.detach(w.id, quietSink);
  }
}

it('relays no input to the page while a write is held; a code step keeps it', async () => {
  const held = await run('test.save-note', 'writes');
  const waiting = await requestWhen(live, org, held, ['NEEDS_USER']);
  expect(waiting.userAction.reason).toBe('APPROVAL');
  expect(await keyReachesPage(waiting.userAction.linkToken)).toBe(false);
  await api(live, org, 'POST', `/api/agent-requests/${held}/cancel`);

  const code = await run('test.code-step');
  const asking = await requestWhen(live, org, code, ['NEEDS_USER']);
  expect(await keyReachesPage(asking.userAction.linkToken)).toBe(true);
  await api(live, org, 'POST', `/api/agent-requests/${code}/cancel`);
  await requestWhen(live, org, held, FINAL_STATUSES);
  await requestWhen(live, org, code, FINAL_STATUSES);
});

it('after Approve, the next step reads the page the write brought, not the page as it was', async () => {
  const id = await run('test.save-note', 'writes');
  const waiting = await requestWhen(live, org, id, ['NEEDS_USER']);
  const w = widgetFor(live, waiting.userAction.linkToken);
  await w.start();
  expect((await w.answer('approve')).status).toBe(200);
  const done = await requestWhen(live, org, id, FINAL_STATUSES);
  expect({ status: done.status, result: done.result, error: done.error ?? null }).toEqual({
    status: 'COMPLETED',
    result: { state: 'Saved' },
    error: null,
  });
});

it('the link of a pause that expired says "This step is over", never a connection screen', async () => {
  const id = await run('test.code-step');
  const waiting = await requestWhen(live, org, id, ['NEEDS_USER']);
  ahead = 61_000;
  try {
    const res = await widgetFor(live, waiting.userAction.linkToken).start();
    expect(res.body.error).toMatchObject({ code: 'USER_ACTION_OVER', message: expect.stringContaining('This step is over') });
    const widget = await context.newPage();
    await widget.goto(waiting.userAction.url);
    await widget.getByRole('heading', { name: 'This step is over' }).waitFor();
    expect(await widget.textContent('body')).not.toContain('connection links');
    await widget.close();
  } finally {
    ahead = 0;
  }
  await api(live, org, 'POST', `/api/agent-requests/${id}/cancel`);
  await requestWhen(live, org, id, FINAL_STATUSES);
});

/** One screencast frame of `page`, from a DevTools session of its own (as any other view of the page gets them). */
async function frameOf(page: Page): Promise<{ width: number; height: number }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const frame = new Promise<Buffer>((resolve) =>
      cdp.once('Page.screencastFrame', (f: { data: string }) => resolve(Buffer.from(f.data, 'base64'))),
    );
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 50, maxWidth: 4000, maxHeight: 4000 });
    // A page that is not painting sends no frame: make it paint.
    await page.evaluate(() => (document.body.style.outline = `${Math.random()}px solid transparent`));
    return jpegSize(await frame);
  } finally {
    await cdp.send('Page.stopScreencast').catch(() => undefined);
  }
}

/** A paused run's view, opened at its ask's link and zoomed in to the page's right edge, with the run's page. */
async function zoomedRunView(playbook: string) {
  const id = await run(playbook);
  const waiting = await requestWhen(live, org, id, ['NEEDS_USER']);
  const page = runPage(live, id);
  const size = page.viewportSize()!;
  const before = { window: await pageWindow(page), frame: await frameOf(page) };
  const widget = await openRunWidget(context, waiting.userAction.url);
  await zoomInAtRightEdge(widget);
  const zoomed = await eventually(
    () => widgetFrames(widget),
    (p) => p.region !== null && p.region.x + p.region.width === size.width,
    20_000,
  );
  return { id, page, widget, zoomed, before };
}

const ratio = (f: { width: number; height: number }) => f.width / f.height;

it('zoomed in, a paused run’s view is sent only the part in view; the run’s page sees nothing of it, and is whole again once the view ends', async () => {
  const { id, page, widget, zoomed, before } = await zoomedRunView('test.code-step');
  await page.evaluate(() => (document.body.style.background = '#0f0')); // a frame of the part in view
  const part = await eventually(
    () => widgetFrames(widget),
    (p) => p.frames > zoomed.frames,
  );
  expect(part.width).toBeLessThanOrEqual(await stageWidth(widget)); // the part in view, not the whole zoomed canvas
  // Another session's frames (any other view's) show the part too while the view is zoomed in …
  expect(ratio(await frameOf(page))).not.toBeCloseTo(ratio(before.frame), 1);
  // … and the whole page again once the view ends, its run still waiting.
  await live.services.runLiveViews.closeAll();
  // The view's end waits for that at most a moment (live-screencast.ts, showWhole); on a loaded machine it comes after.
  const whole = await eventually(
    () => frameOf(page),
    (f) => f.width === before.frame.width && f.height === before.frame.height,
    15_000,
    200,
  );
  expect(whole).toEqual(before.frame);
  // The page saw none of it: its window, screen, visual viewport and pixel ratio are as they were, never resized.
  expect(await pageWindow(page)).toEqual(before.window);
  await widget.close();
  await api(live, org, 'POST', `/api/agent-requests/${id}/cancel`);
  await requestWhen(live, org, id, FINAL_STATUSES);
});

it('zoomed in, a paused run’s view shows the whole page again once its ask is over and the run works on under it', async () => {
  const { id, page, widget, before } = await zoomedRunView('test.code-then-work');
  expect(ratio(await frameOf(page))).not.toBeCloseTo(ratio(before.frame), 1);
  expect(live.services.handoffs.registry.find(id)!.decide('done')).toBe(true);
  await requestWhen(live, org, id, ['RUNNING']);
  // The view stays open on the run going on: the page's frames (the next pause's still, the next ask's view's) are whole.
  await eventually(
    () => frameOf(page),
    (f) => f.width === before.frame.width && f.height === before.frame.height,
  );
  expect(await pageWindow(page)).toEqual(before.window);
  letRunEnd();
  expect((await requestWhen(live, org, id, FINAL_STATUSES)).status).toBe('COMPLETED');
  await widget.close();
});
