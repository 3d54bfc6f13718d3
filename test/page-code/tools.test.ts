import type { Page } from 'playwright-core';

import type checkableInPage from '../../server/agent/tools/checkable.page';
import type directClickInPage from '../../server/agent/tools/direct-click.page';
import type scrollInPage from '../../server/agent/tools/scroll.page';
import type typeInPage from '../../server/agent/tools/type.page';
import { PAGE_ENTRIES } from '../../server/page-code/entries';
import { pageFunction, pageFunctions } from '../../server/page-code/page-function';
import { usePage } from './page-rig';

/**
 * The tools' helpers in the page, called as the tools call them (a locator's or a handle's evaluate, with the
 * element first): checkable.page.ts, direct-click.page.ts, scroll.page.ts, type.page.ts.
 */
jest.setTimeout(60_000);

const rig = usePage();
const checkable = pageFunctions<typeof checkableInPage>(PAGE_ENTRIES.checkable);
const direct = pageFunctions<typeof directClickInPage>(PAGE_ENTRIES.directClick);
const scroll = pageFunction<typeof scrollInPage>(PAGE_ENTRIES.scroll);
const typeField = pageFunctions<typeof typeInPage>(PAGE_ENTRIES.typeField);

describe('checkable', () => {
  const PAGE = `
    <style>.sr { position:absolute; opacity:0; width:1px; height:1px; } .hidden { display:none }</style>
    <label id="terms" for="t">Accept the terms <a href="/terms">(read)</a></label><input id="t" type="checkbox" class="sr">
    <div id="wrap" class="switch"><input type="checkbox" class="hidden" checked><span>Dark mode</span></div>
    <div id="card"><input type="checkbox"><input type="checkbox"></div>
    <div id="aria" role="switch" aria-checked="mixed" tabindex="0">Sync</div>
    <div id="menuitem" role="menuitemradio" aria-checked="false">Small</div>`;

  it('finds the control an element is, labels or wraps, and reads its kind and state', async () => {
    const page = await rig.set(PAGE);
    expect(await page.locator('#terms').evaluate(checkable.probe)).toEqual({ kind: 'checkbox', checked: false, hits: true });
    expect(await page.locator('#wrap').evaluate(checkable.probe)).toEqual({ kind: 'checkbox', checked: true, hits: true });
    expect(await page.locator('#aria').evaluate(checkable.probe)).toEqual({ kind: 'switch', checked: 'mixed', hits: true });
    expect(await page.locator('#menuitem').evaluate(checkable.probe)).toMatchObject({ kind: 'radio', checked: false });
    // A card with two checkboxes is not one control.
    expect(await page.locator('#card').evaluate(checkable.probe)).toBeNull();
    await page.locator('#t').check({ force: true });
    expect(await page.locator('#terms').evaluate(checkable.state)).toBe(true);
  });

  it('finds a point of the visible label that reaches the label, not the link inside it', async () => {
    const page = await rig.set(PAGE);
    const handle = (await page.$('#t'))!;
    const found = await handle.evaluateHandle(checkable.label);
    const label = (await found.getProperty('label')).asElement();
    expect(await label!.evaluate((e) => e.id)).toBe('terms');
    const x = Number(await (await found.getProperty('x')).jsonValue());
    const box = (await label!.boundingBox())!;
    const link = (await page.locator('#terms a').boundingBox())!;
    const at = box.x + x;
    expect(at < link.x || at > link.x + link.width).toBe(true);
    // A click there toggles the input.
    await page.mouse.click(at, box.y + Number(await (await found.getProperty('y')).jsonValue()));
    expect(await page.locator('#t').isChecked()).toBe(true);
  });

  it('focuses the control when it can take focus, and says when it cannot', async () => {
    const page = await rig.set(PAGE);
    expect(await page.locator('#aria').evaluate(checkable.focus)).toBe(true);
    expect(await page.locator('#wrap').evaluate(checkable.focus)).toBe(false); // display:none
    const control = (await (await page.$('#wrap'))!.evaluateHandle(checkable.control)).asElement();
    expect(await control!.evaluate((e) => (e as HTMLInputElement).type)).toBe('checkbox');
  });
});

describe('direct click', () => {
  const args = () => ({ notAfter: Date.now() + 2_000, guardMs: 2_000 });
  /** The check on the element the server would hand over by reference (here: the one with id t). */
  const check = async (page: Page) => (await page.$('#t'))!.evaluateHandle(direct.checkAndGuard, args());
  const checked = async (page: Page) => (await check(page)).jsonValue();
  /**
   * The check of an element it must resolve: asked again while it answers null, which it also does when the page paints
   * no frame within 100 ms (its slow path), as a loaded machine's renderer can.
   */
  const resolved = async (page: Page) => {
    for (const until = Date.now() + 20_000; ;) {
      const guard = await check(page);
      if ((await guard.jsonValue()) !== null || Date.now() > until) return guard;
    }
  };
  /** The page's own view of its window: every name on it (the guard must add none). */
  const windowNames = (page: Page) => page.evaluate(() => Object.getOwnPropertyNames(window).sort());

  it('resolves the centre of a still, uncovered element, and guards the click that follows, leaving nothing on the window', async () => {
    const page = await rig.set(`<button id="t" style="position:absolute;left:100px;top:100px;width:100px;height:40px">Go</button>`);
    const before = await windowNames(page);
    const guard = await resolved(page);
    expect(await guard.evaluate(direct.pointOf)).toEqual({ x: 150, y: 120 });
    expect(await windowNames(page)).toEqual(before);
    await page.mouse.click(150, 120);
    expect(await guard.evaluate(direct.intercepted)).toBeNull();
  });

  it('proves nothing of an element that is disabled, gone, covered or moving', async () => {
    let page = await rig.set(`<button id="t" disabled>Off</button>`);
    expect(await checked(page)).toBeNull();
    page = await rig.set(`<button id="t">Gone</button>`);
    const gone = (await page.$('#t'))!;
    await gone.evaluate((e) => e.remove());
    expect(await (await gone.evaluateHandle(direct.checkAndGuard, args())).jsonValue()).toBeNull();
    page = await rig.set(`<button id="t">Under</button><div style="position:fixed;inset:0;background:rgba(0,0,0,.3)"></div>`);
    expect(await checked(page)).toBeNull();
    page = await rig.set(
      `<style>@keyframes m { from { margin-left: 0 } to { margin-left: 50px } }</style><button id="t" style="animation: m 5s infinite">Moving</button>`,
    );
    expect(await checked(page)).toBeNull();
  });

  it('the guard cancels a click that reaches something else first, and says what', async () => {
    const page = await rig.set(
      `<button id="t" onclick="window.clicked = true" style="position:absolute;left:10px;top:10px;width:80px;height:30px">Go</button>`,
    );
    const guard = await resolved(page);
    const point = (await guard.evaluate(direct.pointOf))!;
    await page.evaluate(() => {
      const cover = document.createElement('div');
      cover.id = 'cover';
      cover.style.cssText = 'position:fixed;inset:0';
      document.body.appendChild(cover);
    });
    await page.mouse.click(point.x, point.y);
    expect(await guard.evaluate(direct.intercepted)).toBe('div');
    expect(await page.evaluate(() => (window as unknown as { clicked?: boolean }).clicked)).toBeUndefined();
    expect(await guard.evaluate(direct.intercepted)).toBe('div'); // asked again: the guard is already down, no error
  });
});

describe('scroll', () => {
  const PAGE = `
    <div id="box" style="height:100px;overflow:auto"><div style="height:1000px"><p id="inside" style="margin:0">Row</p></div></div>
    <p id="plain">Not in a box</p>`;

  it('scrolls the element itself or its nearest scroll area, and reports where it stands', async () => {
    const page = await rig.set(PAGE);
    expect(await page.locator('#box').evaluate(scroll, { dx: 0, dy: 0.8, dry: true })).toEqual({ which: 'self', inView: true });
    expect(await page.locator('#box').evaluate(scroll, { dx: 0, dy: 0.8, dry: false })).toEqual({
      which: 'self',
      inView: true,
      moved: 80,
      at: 80,
      max: 900,
    });
    expect(await page.locator('#inside').evaluate(scroll, { dx: 0, dy: -0.8, dry: false })).toMatchObject({
      which: 'ancestor',
      moved: -80,
      at: 0,
    });
    expect(await page.locator('#plain').evaluate(scroll, { dx: 0, dy: 0.8, dry: false })).toEqual({ which: 'none', inView: true });
  });
});

describe('type', () => {
  it('describes a field by its kind and the text that may state its format, and reads it back', async () => {
    const page = await rig.set(`
      <label for="d">Start date</label>
      <input id="d" placeholder="DD/MM/YYYY" aria-describedby="help" data-date-format="dd/mm/yyyy">
      <span id="help">Day first</span>
      <input id="n" type="email" required value="not-an-email">
      <input id="c" role="combobox" aria-autocomplete="list"> <input id="l" list="states"><datalist id="states"></datalist>`);
    expect(await page.locator('#d').evaluate(typeField.field)).toEqual({
      tag: 'input',
      type: 'text',
      hint: 'DD/MM/YYYY | dd/mm/yyyy | Start date | Day first',
      suggests: false,
    });
    // Fields that suggest as you type are typed key by key (their scripts listen for keys).
    expect(await page.locator('#c').evaluate(typeField.field)).toMatchObject({ suggests: true });
    expect(await page.locator('#l').evaluate(typeField.field)).toMatchObject({ suggests: true });
    await page.locator('#d').fill('18/07/2025');
    expect(await page.locator('#d').evaluate(typeField.readBack)).toEqual({ value: '18/07/2025', valid: true, message: '' });
    const back = await page.locator('#n').evaluate(typeField.readBack);
    expect(back).toMatchObject({ value: 'not-an-email', valid: false });
    expect(back.message).not.toBe('');
  });
});
