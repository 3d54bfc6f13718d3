import type { Page } from 'playwright-core';

import type { FindArgs, Found } from '../../server/agent/replay/find-targets.page';
import { PAGE_ENTRIES } from '../../server/page-code/entries';
import { callWithRefs, dom, referenced, usePage } from './page-rig';

/**
 * A replay's narrow search (server/agent/replay/find-targets.page.ts): the elements of one role the snapshot would
 * list, named and described as the snapshot describes them, or a fallback where it would see less.
 */
jest.setTimeout(60_000);

const rig = usePage();
const find = (page: Page, a: FindArgs) => callWithRefs<Found>(page, PAGE_ENTRIES.findTargets, a);

const PAGE = `
  <nav aria-label="Main"><a href="/a">Home</a><a href="/b">Settings</a></nav>
  <main>
    <button>Save</button>
    <button style="visibility:hidden">Save</button>
    <div style="display:none"><button>Save</button></div>
    <button aria-pressed="true">Bold</button>
    <a href="/c"><button>Nested in a link</button></a>
    <div role="listbox" aria-label="Pick"><div role="option">One</div></div>
  </main>`;

it('lists the elements of the role the snapshot would list, described alike and kept by index', async () => {
  const page = await rig.set(PAGE);
  const found = await find(page, { role: 'button', name: null, max: 50 });
  if ('fallback' in found) throw new Error(found.fallback);
  expect(found.elements.map((e) => [e.index, e.name, e.scope, e.states])).toEqual([
    [1, 'Save', 'main', {}],
    [2, 'Bold', 'main', { pressed: true }],
    // a control inside another is listed when the outer one holds it as a control of its own (markup says so)
    [3, 'Nested in a link', 'main', {}],
  ]);
  expect(await referenced(page, 'el')).toEqual([
    [1, 'Save'],
    [2, 'Bold'],
    [3, 'Nested in a link'],
  ]);
  // The snapshot says the same of them.
  const s = await dom(page, 'snapshot', {});
  const fromSnapshot = s.elements.filter((e) => e.role === 'button').map(({ index: _, ...e }) => e);
  expect(found.elements.map(({ index: _, ...e }) => e)).toEqual(fromSnapshot);
});

it('lists only the elements of a name, when the name is given; options inside a list box too', async () => {
  const page = await rig.set(PAGE);
  const links = await find(page, { role: 'link', name: 'Settings', max: 50 });
  expect(links).toMatchObject({ elements: [{ index: 1, role: 'link', name: 'Settings', scope: "navigation 'Main'" }] });
  const options = await find(page, { role: 'option', name: null, max: 50 });
  expect(options).toMatchObject({ elements: [{ name: 'One', scope: "listbox 'Pick'" }] });
});

it('answers a fallback where the snapshot would see more: frames, shadow roots, too many candidates', async () => {
  let page = await rig.set(`<button>A</button><iframe srcdoc="<button>B</button>"></iframe>`);
  expect(await find(page, { role: 'button', name: null, max: 50 })).toEqual({ fallback: 'the page has frames' });
  page = await rig.set(`<button>A</button><div id="h"></div>`);
  await page.evaluate(() => document.getElementById('h')!.attachShadow({ mode: 'open' }));
  expect(await find(page, { role: 'button', name: null, max: 50 })).toEqual({ fallback: 'the page has shadow roots' });
  page = await rig.set(`<button>A</button><button>B</button><button>C</button>`);
  expect(await find(page, { role: 'button', name: null, max: 2 })).toEqual({ fallback: 'more than 2 candidates' });
});

it('searches only the open modal dialog', async () => {
  const page = await rig.set(`<button>Behind</button><dialog id="d" aria-label="Sure?"><button>Yes</button></dialog>`);
  await page.evaluate(() => (document.getElementById('d') as HTMLDialogElement).showModal());
  const found = await find(page, { role: 'button', name: null, max: 50 });
  expect(found).toMatchObject({ modal: true, elements: [{ name: 'Yes', scope: "dialog 'Sure?'" }] });
});
