import type { Page } from 'playwright-core';

import {
  elementLocator,
  evaluateOnElement,
  extractText,
  optionLocator,
  Redactor,
  runDomAt,
  takeSnapshot,
  withRefs,
} from '../../server/agent/observation';
import { planResult, readResult } from '../../server/agent/replay/extraction';
import { clickDirectly } from '../../server/agent/tools/direct-click';
import { evaluateAllIsolated, evaluateOneIsolated } from '../../server/browser/locator-reads';
import { waitForNewDocument } from '../../server/connect/login-page';
import { html, indexOf, useRig } from './tools-rig';

/**
 * What a tool reads of the element it acts on, as the page sees it (issue 36: nothing of ours in the page). The
 * tools' reads (a field's value after typing, a checkbox's state around a click, a scroll area, a select's options)
 * and the sign-in's "is this a new document" check run in an isolated world, so a site that wraps the DOM's getters
 * and methods, as bot detectors do, records none of them. The page below records every use of what it wraps; each test
 * empties the record once the observation it acts on was taken (the observation runs in the page's world on purpose:
 * observation/documents.ts) and reads it as soon as the tool returns.
 */
jest.setTimeout(60_000);

const rig = useRig();

/** The site's watch, first in the document: every call of what it wraps is recorded with the top of its stack. */
const WATCH = `
  window.__seen = [];
  var note = function (what) { window.__seen.push(what + ' ' + (new Error().stack || '').split('\\n').slice(2, 4).join(' | ')); };
  var wrapMethod = function (proto, name, label) {
    var f = proto[name];
    proto[name] = function () { note(label + '.' + name); return f.apply(this, arguments); };
  };
  var wrapGetter = function (proto, name, label) {
    var d = Object.getOwnPropertyDescriptor(proto, name);
    Object.defineProperty(proto, name, { configurable: true, enumerable: d.enumerable, set: d.set,
      get: function () { note(label + '.' + name); return d.get.call(this); } });
  };
  ['getAttribute', 'hasAttribute', 'closest', 'getBoundingClientRect', 'getClientRects', 'matches', 'querySelector',
   'querySelectorAll', 'scrollBy'].forEach(function (n) { wrapMethod(Element.prototype, n, 'Element'); });
  ['scrollTop', 'scrollHeight', 'clientHeight', 'tagName'].forEach(function (n) { wrapGetter(Element.prototype, n, 'Element'); });
  ['value', 'checked', 'type'].forEach(function (n) { wrapGetter(HTMLInputElement.prototype, n, 'HTMLInputElement'); });
  ['innerText', 'isContentEditable'].forEach(function (n) { wrapGetter(HTMLElement.prototype, n, 'HTMLElement'); });
  wrapGetter(HTMLSelectElement.prototype, 'options', 'HTMLSelectElement');
  wrapGetter(Node.prototype, 'textContent', 'Node');
  wrapGetter(Document.prototype, 'activeElement', 'Document');
  wrapGetter(Performance.prototype, 'timeOrigin', 'Performance');
  ['addEventListener', 'removeEventListener'].forEach(function (n) { wrapMethod(EventTarget.prototype, n, 'EventTarget'); });
  ['elementFromPoint', 'getAnimations'].forEach(function (n) { wrapMethod(Document.prototype, n, 'Document'); });
  ['requestAnimationFrame', 'setTimeout'].forEach(function (n) { wrapMethod(window, n, 'window'); });
  var gcs = window.getComputedStyle;
  window.getComputedStyle = function () { note('getComputedStyle'); return gcs.apply(window, arguments); };`;

const FORM = html(
  'Profile',
  `<script>${WATCH}</script>
<main><h1>Profile</h1>
<form aria-label="Profile" onsubmit="return false">
  <p><label for="name">Display name</label> <input id="name" type="text"></p>
  <p><label><input type="checkbox" id="news"> Newsletter</label></p>
  <p><input type="checkbox" id="terms" style="display:none"><label for="terms" class="switch">Terms</label></p>
  <p><button type="button" id="save" onclick="this.textContent = 'Saved'">Save</button></p>
</form>
<div role="region" aria-label="Log" id="log" tabindex="0" style="height:80px;overflow:auto;border:1px solid #999">
  ${Array.from({ length: 40 }, (_, i) => `<p>Entry ${i + 1}</p>`).join('')}
</div>
</main>`,
);

let path: string;
beforeAll(() => {
  path = new URL(rig.site.page('/profile', FORM)).pathname;
});

const seen = (page: Page) => page.evaluate(() => (window as unknown as { __seen: string[] }).__seen.splice(0));

describe("a tool's reads of its element", () => {
  it('run where the page sees none of them, and read what the page shows', async () => {
    const run = await rig.open(path);
    await run.page.locator('#name').fill('Ada');
    const snapshot = await takeSnapshot(run.page);
    const loc = await elementLocator(run.page, indexOf(snapshot, 'textbox', 'Display name'));
    await seen(run.page);
    const read = await evaluateOnElement(loc, (el: Element) => ({
      tag: el.tagName,
      value: (el as HTMLInputElement).value,
      label: el.closest('p')!.querySelector('label')!.textContent,
      drawn: el.getBoundingClientRect().width > 0 && getComputedStyle(el).display !== 'none',
      focused: el.ownerDocument.activeElement === el,
      began: performance.timeOrigin > 0,
    }));
    expect(read).toEqual({ tag: 'INPUT', value: 'Ada', label: 'Display name', drawn: true, focused: true, began: true });
    expect(await seen(run.page)).toEqual([]);

    // The same read through a locator of the page's own (not an observation's reference) runs in the page's world,
    // as before: the page's watch sees it, so the empty record above is the isolated world's doing.
    expect(await evaluateOnElement(run.page.locator('#name'), (el: Element) => (el as HTMLInputElement).value)).toBe('Ada');
    expect((await seen(run.page)).join('\n')).toMatch(/HTMLInputElement\.value/);
  });

  // Its timeout is longer than the test's own (60 s): waiting it out, as Playwright's evaluate did, fails the test.
  it('rejects at once for an element that left the page, not after its timeout', async () => {
    const run = await rig.open(path);
    const snapshot = await takeSnapshot(run.page);
    const loc = await elementLocator(run.page, indexOf(snapshot, 'textbox', 'Display name'));
    await run.page.locator('#name').evaluate((el) => el.remove());
    await expect(evaluateOnElement(loc, (el: Element) => el.tagName, undefined, { timeout: 120_000 })).rejects.toThrow(
      /no longer on the page/,
    );
  });
});

it("bounds a read the page's renderer never answers (its main thread spins)", async () => {
  const run = await rig.open(path);
  const snapshot = await takeSnapshot(run.page);
  const loc = await elementLocator(run.page, indexOf(snapshot, 'textbox', 'Display name'));
  await run.page.evaluate(
    () =>
      void setTimeout(() => {
        for (;;);
      }, 0),
  );
  await expect(evaluateOnElement(loc, (el: Element) => el.tagName, undefined, { timeout: 500 })).rejects.toThrow(/timed out/);
});

describe("a playbook's reads of what its locators find (locator-reads.ts)", () => {
  it('read every element a locator finds, in order, with no call the page records', async () => {
    const run = await rig.open(path);
    await seen(run.page);
    const entries = await evaluateAllIsolated(
      run.page.locator('#log p'),
      (els: HTMLElement[], upTo: number) =>
        els.slice(0, upTo).map((p) => ({ text: p.innerText, tag: p.tagName, inside: !!p.closest('[role=region]') })),
      3,
    );
    expect(entries).toEqual([1, 2, 3].map((i) => ({ text: `Entry ${i}`, tag: 'P', inside: true })));
    const label = await evaluateOneIsolated(run.page.getByRole('checkbox', { name: 'Newsletter' }), (el: HTMLInputElement) => ({
      checked: el.checked,
      label: el.closest('label')!.textContent!.trim(),
    }));
    expect(label).toEqual({ checked: false, label: 'Newsletter' });
    expect(await seen(run.page)).toEqual([]);

    // The same read through Playwright runs in the page's world: the watch records it.
    await run.page.locator('#log p').evaluateAll((els) => els.map((p) => (p as HTMLElement).innerText));
    expect((await seen(run.page)).join('\n')).toMatch(/HTMLElement\.innerText/);
  });

  it('answer as Playwright does: none found is an empty list, two for one element an error, a missing one waited for', async () => {
    const run = await rig.open(path);
    expect(await evaluateAllIsolated(run.page.locator('.nothing-here'), (els: Element[]) => els.length)).toBe(0);
    await expect(evaluateOneIsolated(run.page.locator('input[type=checkbox]'), (el: Element) => el.id)).rejects.toThrow(/strict mode/);
    await expect(evaluateOneIsolated(run.page.locator('#later'), (el: Element) => el.id, undefined, { timeout: 300 })).rejects.toThrow(
      /Timeout 300ms/,
    );
    await run.page.evaluate(() => setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id="later">Later</p>'), 100));
    expect(await evaluateOneIsolated(run.page.locator('#later'), (el: HTMLElement) => el.textContent)).toBe('Later');
  });
});

describe('the tools, as the planner runs them', () => {
  it('types into a field and reads it back, with no call the page records', async () => {
    const run = await rig.open(path);
    const snapshot = await takeSnapshot(run.page);
    await seen(run.page);
    const out = await rig.tool(run, 'type', { index: indexOf(snapshot, 'textbox', 'Display name'), text: 'Grace Hopper' }, snapshot);
    expect(out.message).toMatch(/Grace Hopper/);
    expect(await seen(run.page)).toEqual([]);
    expect(await run.page.locator('#name').inputValue()).toBe('Grace Hopper');
  });

  it('checks a checkbox, reading its state before and after the click, with no call the page records', async () => {
    const run = await rig.open(path);
    const snapshot = await takeSnapshot(run.page);
    await seen(run.page);
    const out = await rig.tool(run, 'click', { index: indexOf(snapshot, 'checkbox', 'Newsletter') }, snapshot);
    expect(out.message).toMatch(/now checked/);
    expect(await seen(run.page)).toEqual([]);
  });

  it('checks a checkbox whose input is hidden through its label, with no call the page records', async () => {
    const run = await rig.open(path);
    const snapshot = await takeSnapshot(run.page);
    // The hidden input, as the observation keeps its elements (off the page), pinned the way checkable.test.ts does.
    const index = 900 + snapshot.elements.length;
    await withRefs(run.page, {}, 'function (r, a) { r.el[a.i] = document.getElementById(a.id); }', { i: index, id: 'terms' });
    snapshot.elements.push({ index, role: 'checkbox', name: 'Terms', tag: 'input', scope: null, states: {} });
    await seen(run.page);
    const out = await rig.tool(run, 'click', { index }, snapshot);
    expect(out.message).toMatch(/by its label \(now checked\)/);
    expect(await seen(run.page)).toEqual([]);
  });

  it("clicks a button through the fast path (its check, and the click's guard on the window), with no call the page records", async () => {
    const run = await rig.open(path);
    const snapshot = await takeSnapshot(run.page);
    const button = snapshot.elements.find((e) => e.index === indexOf(snapshot, 'button', 'Save'))!;
    await seen(run.page);
    expect(await clickDirectly(run.page, button)).toBe('clicked');
    expect(await seen(run.page)).toEqual([]);
    expect(await run.page.locator('#save').textContent()).toBe('Saved');
  });

  it('scrolls a scroll area, with no call the page records', async () => {
    const run = await rig.open(path);
    const snapshot = await takeSnapshot(run.page);
    await seen(run.page);
    const out = await rig.tool(run, 'scroll', { index: indexOf(snapshot, 'region', 'Log'), direction: 'down' }, snapshot);
    expect(out.message).toMatch(/scrolled/);
    expect(await seen(run.page)).toEqual([]);
    expect(await run.page.locator('#log').evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  });
});

/** A custom list a person opens with its button, and a card of text. */
const LIST = html(
  'Plan',
  `<script>${WATCH}</script>
<main><h1>Plan</h1>
<section aria-label="Billing" id="billing"><h2>Billing</h2><p>Next invoice on <b>May 3</b>.</p><p>Paid by card ending 4242.</p></section>
<button type="button" id="plan" aria-haspopup="listbox" aria-controls="plans" aria-expanded="false"
  onclick="document.getElementById('plans').hidden = false; this.setAttribute('aria-expanded', 'true')">Plan: Basic</button>
<ul role="listbox" id="plans" aria-label="Plans" hidden onclick="document.getElementById('plan').textContent = 'Plan: ' + event.target.textContent">
  <li role="option" data-value="basic">Basic</li><li role="option" data-value="pro">Pro</li><li role="option" data-value="team">Team</li>
</ul>
</main>`,
);

describe("the observation's operations on what it listed (dom-apart.ts)", () => {
  let listPath: string;
  beforeAll(() => {
    listPath = new URL(rig.site.page('/plan', LIST)).pathname;
  });

  it("read an element's text, and the whole page's, with no call the page records", async () => {
    const run = await rig.open(listPath);
    const snapshot = await takeSnapshot(run.page);
    const button = snapshot.elements.find((e) => e.index === indexOf(snapshot, 'button', 'Plan: Basic'))!;
    await seen(run.page);
    expect(await extractText(run.page, button, new Redactor())).toMatchObject({ ok: true, text: 'Plan: Basic' });
    const whole = await extractText(run.page, undefined, new Redactor());
    expect(whole).toMatchObject({ ok: true });
    expect((whole as { text: string }).text).toMatch(/Next invoice on\s+May 3\.[\s\S]*card ending 4242/);
    expect(await seen(run.page)).toEqual([]);
  });

  it('find the option to choose in an open list, with no call the page records, and the tool clicks that option', async () => {
    const run = await rig.open(listPath);
    await run.page.locator('#plan').click();
    const snapshot = await takeSnapshot(run.page);
    const button = snapshot.elements.find((e) => e.index === indexOf(snapshot, 'button', 'Plan: Basic'))!;
    await seen(run.page);
    expect(await runDomAt(run.page, button, 'markOption', { index: button.index, option: 'pro' })).toEqual({ ok: true, name: 'Pro' });
    expect(await runDomAt(run.page, button, 'markOption', { index: button.index, option: 'Team' })).toEqual({ ok: true, name: 'Team' });
    expect(await seen(run.page)).toEqual([]);
    // The option found last is the one the tool's locator clicks.
    await (await optionLocator(run.page, button)).click();
    await expect(run.page.locator('#plan').textContent()).resolves.toBe('Plan: Team');
  });

  it('answer as before for an element that left the page', async () => {
    const run = await rig.open(listPath);
    const snapshot = await takeSnapshot(run.page);
    const button = snapshot.elements.find((e) => e.index === indexOf(snapshot, 'button', 'Plan: Basic'))!;
    await run.page.evaluate(() => document.getElementById('plan')!.remove());
    expect(await extractText(run.page, button, new Redactor())).toEqual({
      ok: false,
      error: `element [${button.index}] is no longer on the page`,
    });
  });
});

it("a replay's plan of its answer, and its read of it from the page, ask the page nothing", async () => {
  const run = await rig.open(path);
  await run.page.locator('#name').fill('Ada Lovelace');
  const answer = { entries: ['Entry 1', 'Entry 2', 'Entry 3'] };
  await seen(run.page);
  // Where the answer shows on the page, found to replay it: in an isolated world too.
  const plan = await planResult(run.page, answer, answer, [], { constantsAllowed: false });
  if (!plan.ok) throw new Error(plan.reason);
  expect(await seen(run.page)).toEqual([]);
  expect(await readResult(run.page, plan.value, [])).toEqual({ ok: true, value: answer });
  expect(await seen(run.page)).toEqual([]);
});

it("the sign-in's wait for a new document asks the page nothing", async () => {
  const run = await rig.open(path);
  await seen(run.page);
  const began = await run.page.evaluate(() => performance.timeOrigin);
  await seen(run.page);
  await waitForNewDocument(run.page, began, 300);
  expect(await seen(run.page)).toEqual([]);
});
