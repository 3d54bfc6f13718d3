import type { Browser, BrowserContext, Page } from 'playwright-core';

import { elementLocator, type PageSnapshot, takeSnapshot } from '../../server/agent/observation';
import { type BreadthSite, startBreadthSite } from '../fixtures/breadth/server';
import { startBrowser } from '../support/live-server';

/**
 * The classes of controls a benchmark of small web tasks showed missing or nameless (issue 34), on the breadth corpus
 * (test/fixtures/breadth/, MIT): icons and cells whose clicks jQuery delegates (read from jQuery's own registry of
 * delegated selectors), a game board's cells under one document listener, SVG shapes with listeners, and fields with
 * no <label> named by their row or their place in a grid. Each is listed, named, and a click on its index reaches
 * the page's handler. What no handler answers stays text.
 */
jest.setTimeout(60_000);

let site: BreadthSite;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [site, browser] = await Promise.all([startBreadthSite(), startBrowser()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(5_000);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await site?.close();
});

async function open(path: string): Promise<{ page: Page; s: PageSnapshot }> {
  const page = await context.newPage();
  await page.goto(site.url(path));
  return { page, s: await takeSnapshot(page) };
}

const names = (s: PageSnapshot) => s.elements.map((e) => `${e.role} ${e.name}`);
const nth = (s: PageSnapshot, role: string, name: string, n = 0) => {
  const hit = s.elements.filter((e) => e.role === role && e.name === name)[n];
  if (!hit) throw new Error(`no ${n + 1}th ${role} '${name}' in ${JSON.stringify(names(s))}`);
  return hit;
};
const clicked = (page: Page) => page.evaluate(() => (window as unknown as { clicked: string[] }).clicked.slice());

describe('observation breadth (issue 34)', () => {
  it("lists icons whose clicks jQuery delegates, named by their classes, and a click on one reaches the page's handler", async () => {
    const { page, s } = await open('/feed.html');
    for (const icon of ['reply', 'retweet', 'like', 'share', 'more']) expect(s.elements.filter((e) => e.name === icon)).toHaveLength(3);
    expect(s.elements.filter((e) => e.name === 'add' || e.name === 'remove')).toHaveLength(4);
    // The post's text is no control: no handler answers it.
    expect(names(s).some((n) => n.includes('Shipping'))).toBe(false);
    await (await elementLocator(page, nth(s, 'button', 'like', 1))).click();
    await (await elementLocator(page, nth(s, 'button', 'remove', 0))).click();
    expect(await clicked(page)).toEqual(['like 2', 'remove Apples']);
    await page.close();
  });

  it('names the empty cells of a slot table by their headers and of a game board by their row and column', async () => {
    const { page, s } = await open('/grids.html');
    expect(names(s)).toEqual(expect.arrayContaining(['gridcell Mon 9:00 slot', 'gridcell Wed 11:00 slot', 'button X', 'button O']));
    expect(names(s)).not.toContain('gridcell Tue 10:00 slot'); // busy: no handler's selector matches it
    const cell = nth(s, 'button', 'row 1, column 2');
    expect(cell.nameFrom).toBe('position');
    await (await elementLocator(page, cell)).click();
    await (await elementLocator(page, nth(s, 'gridcell', 'Tue 9:00 slot'))).click();
    expect(await clicked(page)).toEqual(['cell 1', 'slot 2 1']);
    await page.close();
  });

  it('lists SVG shapes with listeners by their title, their text, their classes or their place in the chart', async () => {
    const { page, s } = await open('/svg.html');
    expect(names(s)).toEqual(
      expect.arrayContaining(['button January: 20', 'button Copy', 'button Undo', 'button tile red', 'button tile yellow']),
    );
    const points = s.elements.filter((e) => e.nameFrom === 'chart').map((e) => e.name);
    expect(points).toEqual([
      expect.stringMatching(/^point Feb, 3\d/),
      expect.stringMatching(/^point Mar, 1\d/),
      expect.stringMatching(/^point Apr, 4\d/),
    ]);
    await (
      await elementLocator(
        page,
        s.elements.find((e) => e.name.startsWith('point Mar'))!,
      )
    ).click();
    await (await elementLocator(page, nth(s, 'button', 'Paste', 1))).click();
    await (await elementLocator(page, nth(s, 'button', 'tile blue'))).click();
    expect(await clicked(page)).toEqual(['point 2', 'slice Paste', 'tile tile blue']);
    // The axis labels and ticks, which nothing listens to, are not controls.
    expect(names(s).some((n) => /^button (Jan|Feb|40|0)$/.test(n))).toBe(false);
    await page.close();
  });

  it("takes the observation when a page's fake jQuery registry throws, and believes nothing of it", async () => {
    const page = await context.newPage();
    await page.goto(site.url('/feed.html'));
    // The page swaps in a `$` whose registry throws for the document and claims a selector for the rest.
    await page.evaluate(() => {
      const real = (window as unknown as { jQuery: { _data: (el: unknown, k: string) => unknown } }).jQuery;
      const fake = Object.assign(() => undefined, {
        fn: { jquery: '9.9.9' },
        hasData: () => true,
        _data: (el: unknown, k: string) => {
          if (el === document) throw new Error('no registry for you');
          return real._data(el, k);
        },
      });
      (window as unknown as Record<string, unknown>).jQuery = fake;
      (window as unknown as Record<string, unknown>).$ = fake;
    });
    const s = await takeSnapshot(page);
    // The document comes first, so nothing of the registry is read, and the observation is still taken, as without
    // jQuery: the feed, whose own listener answers its clicks, is one control; no icon is listed on the registry's word.
    expect(s.elements.filter((e) => ['like', 'add', 'remove'].includes(e.name))).toHaveLength(0);
    expect(names(s)).toEqual([expect.stringMatching(/^button @ana Shipping/)]);
    await page.close();
  });

  it('names fields with no <label> by the text of their row, and a grid of bare checkboxes by row and column', async () => {
    const { page, s } = await open('/rows.html');
    expect(nth(s, 'checkbox', 'INV-1044 $89.50').nameFrom).toBe('row');
    expect(names(s)).toEqual(
      expect.arrayContaining([
        'textbox City',
        'textbox Name',
        'checkbox Paper copy',
        'radio Standard',
        'radio Express',
        'checkbox row 3, column 2',
      ]),
    );
    expect(s.elements.filter((e) => e.role === 'checkbox' || e.role === 'textbox' || e.role === 'radio').every((e) => e.name)).toBe(true);
    await (await elementLocator(page, nth(s, 'checkbox', 'row 2, column 3'))).click();
    expect(await page.locator('#pixels p:nth-child(2) input:nth-child(3)').isChecked()).toBe(true);
    await page.close();
  });
});
