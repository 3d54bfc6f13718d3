import type { Page } from 'playwright-core';

import { waitForQuiet } from '../../server/browser/page-quiet';
import { waitForReady } from '../../server/browser/page-ready';
import { captureSession } from '../../server/browser/session-capture';
import { useStorageSite } from './storage-site-rig';

/**
 * What every run does in a page besides its steps, as the page sees it (issue 36: nothing of ours in the page). Taking
 * the provider session out of a context after a run, a sign-in or a check (session-capture.ts): the sessionStorage of
 * the provider's origins is read by DevTools, so a site that wraps Storage's methods and the storage getters records
 * no call of ours, and what is captured is what the tab holds. Waiting for the page to be drawn and to go quiet
 * (page-ready.ts, page-quiet.ts): their checks run in an isolated world of ours (isolated-world.ts), so a site that
 * wraps MutationObserver, setTimeout and the query methods, as zone.js does in every Angular app, sees none of them.
 */
jest.setTimeout(60_000);

/** The site's own watch, first in every document: after its own writes, every use of a Storage is recorded. */
const WATCH = `
  window.__seen = [];
  var note = function (what) { window.__seen.push(what + ' ' + (new Error().stack || '').split('\\n').slice(2, 4).join(' | ')); };
  ['key', 'getItem', 'setItem', 'removeItem', 'clear'].forEach(function (name) {
    var f = Storage.prototype[name];
    Storage.prototype[name] = function () { note('Storage.' + name); return f.apply(this, arguments); };
  });
  var len = Object.getOwnPropertyDescriptor(Storage.prototype, 'length');
  Object.defineProperty(Storage.prototype, 'length', { configurable: true, get: function () { note('Storage.length'); return len.get.call(this); } });
  var MO = window.MutationObserver;
  window.MutationObserver = function (cb) { note('MutationObserver'); return new MO(cb); };
  var st = window.setTimeout;
  window.setTimeout = function () { note('setTimeout'); return st.apply(window, arguments); };
  ['querySelector', 'querySelectorAll', 'matches'].forEach(function (name) {
    var f = Element.prototype[name];
    Element.prototype[name] = function () { note('Element.' + name); return f.apply(this, arguments); };
  });
  ['sessionStorage', 'localStorage'].forEach(function (name) {
    var d = Object.getOwnPropertyDescriptor(window, name) || Object.getOwnPropertyDescriptor(Window.prototype, name);
    Object.defineProperty(window, name, { configurable: true, get: function () { note(name); return d.get.call(window); } });
  });`;

/** A document that writes its own sessionStorage (before the watch), then watches; `frames` are iframes it opens. */
const documentOf = (writes: Record<string, string>, frames: string[] = []) =>
  `<!doctype html><title>s</title><script>
  ${Object.entries(writes)
    .map(([k, v]) => `sessionStorage.setItem(${JSON.stringify(k)}, ${JSON.stringify(v)});`)
    .join('\n')}
  ${WATCH}
  </script><p>Signed in.</p>${frames.map((src) => `<iframe src="${src}"></iframe>`).join('')}`;

const BIG = 'x'.repeat(400_000);

const rig = useStorageSite((req, port) => {
  const host = (req.headers.host ?? '').split(':')[0];
  const at = (name: string) => `http://${name}.localhost:${port}/`;
  return req.url === '/big'
    ? documentOf({ one: BIG, two: BIG, three: BIG })
    : host === 'keep.localhost'
      ? documentOf({ a: '1', b: 'ü☃ <&>' }, [at('keep2'), at('other')])
      : host === 'keep2.localhost'
        ? documentOf({ 'in-frame': '2' })
        : documentOf({ secret: 'not the provider' });
});

const keep = (origin: string) => /^http:\/\/keep2?\.localhost:\d+$/.test(origin);

async function open(path = '/'): Promise<Page> {
  const context = await rig.newContext();
  const page = await context.newPage();
  await page.goto(`http://keep.localhost:${rig.port}${path}`, { waitUntil: 'load' });
  return page;
}

/** What each document of the page recorded (read after the capture, by the test, not by the capture). */
const seen = (page: Page) => Promise.all(page.frames().map((f) => f.evaluate(() => (window as unknown as { __seen: string[] }).__seen)));

it("captures the provider origins' sessionStorage, the top document's and a frame's, and no other origin's", async () => {
  const page = await open();
  expect(page.frames()).toHaveLength(3);
  const session = await captureSession(page.context(), keep);
  const byOrigin = Object.fromEntries((session.sessionStorage ?? []).map((o) => [o.origin, o.items]));
  expect(byOrigin).toEqual({
    [`http://keep.localhost:${rig.port}`]: [
      { name: 'a', value: '1' },
      { name: 'b', value: 'ü☃ <&>' },
    ],
    [`http://keep2.localhost:${rig.port}`]: [{ name: 'in-frame', value: '2' }],
  });
});

it('leaves no call in the page: a site wrapping Storage and the storage getters records none from the capture', async () => {
  const page = await open();
  // The watch works: a use by the page itself is recorded (then forgotten, so only the capture's would remain).
  expect(
    (await page.evaluate(() => (sessionStorage.getItem('a'), (window as unknown as { __seen: string[] }).__seen.splice(0)))).length,
  ).toBe(2);
  await captureSession(page.context(), keep);
  expect(await seen(page)).toEqual([[], [], []]);
});

it('keeps whole items up to its bound per origin, in the order the browser lists them', async () => {
  const page = await open('/big');
  const session = await captureSession(page.context(), keep);
  const items = session.sessionStorage?.find((o) => o.origin === `http://keep.localhost:${rig.port}`)?.items ?? [];
  expect(await seen(page)).toEqual([[]]);
  // The first two in the page's own order (sessionStorage.key): a third 400,000-character item would pass 1 MiB.
  const order = await page.evaluate(() => Array.from({ length: sessionStorage.length }, (_, i) => sessionStorage.key(i)));
  expect(items.map((i) => i.name)).toEqual(order.slice(0, 2));
  expect(items.every((i) => i.value === BIG)).toBe(true);
});

it('leaves no call in the page while it waits for the page to be drawn and to go quiet', async () => {
  const page = await open();
  const before = await seen(page);
  expect(before).toEqual([[], [], []]);
  expect(await waitForReady(page, { budgetMs: 5_000, quietMs: 100 })).toMatchObject({ ready: true });
  await waitForQuiet(page, { quietMs: 100, maxMs: 5_000 });
  // A new document: the checks make their world in it too.
  await page.goto(`http://keep.localhost:${rig.port}/again`, { waitUntil: 'load' });
  expect(await waitForReady(page, { budgetMs: 5_000, quietMs: 100 })).toMatchObject({ ready: true });
  await waitForQuiet(page, { quietMs: 100, maxMs: 5_000 });
  expect(await seen(page)).toEqual([[], [], []]);
  // The watch works: the page's own use of them is recorded.
  expect(
    await page.evaluate(
      () => (setTimeout(() => undefined, 0), document.body.matches('body'), (window as unknown as { __seen: string[] }).__seen.length),
    ),
  ).toBe(2);
});
