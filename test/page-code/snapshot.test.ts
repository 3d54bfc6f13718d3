import { dom, named, referenced, refersTo, usePage } from './page-rig';

/**
 * The core of the observation's page code (server/agent/observation/dom/), bundled and run in real Chromium on
 * small fixtures: roles, accessible names, what counts as shown, states and values, scopes, modal dialogs, the
 * flat tree of shadow roots, and the references the tools find elements by (kept off the page).
 */
jest.setTimeout(60_000);

const rig = usePage();

async function snapshot(body: string, head = '') {
  const page = await rig.set(body, head);
  return dom(page, 'snapshot', {});
}

describe('roles', () => {
  it('are explicit, or implicit from the tag and input type', async () => {
    const s = await snapshot(`
      <button>Plain</button>
      <a href="/x">Linked</a>
      <a>No href</a>
      <input type="checkbox" aria-label="Tick">
      <input type="radio" aria-label="Pick">
      <input type="range" aria-label="Level">
      <input type="number" aria-label="Count">
      <input type="search" aria-label="Find">
      <input type="text" aria-label="Text">
      <input list="l" aria-label="Suggest"><datalist id="l"><option>In a datalist</option></datalist>
      <select aria-label="One"><option>In a dropdown</option></select>
      <select aria-label="Many" multiple><option>In a list box</option></select>
      <textarea aria-label="Long"></textarea>
      <div contenteditable="true" aria-label="Rich"></div>
      <details><summary>More</summary>hidden text</details>
      <div role="tab" aria-label="Explicit tab">x</div>
      <div role="  switch  extra" aria-label="First token"></div>`);
    const roles = Object.fromEntries(s.elements.map((e) => [e.name, e.role]));
    expect(roles).toEqual({
      Plain: 'button',
      Linked: 'link',
      Tick: 'checkbox',
      Pick: 'radio',
      Level: 'slider',
      Count: 'spinbutton',
      Find: 'searchbox',
      Text: 'textbox',
      Suggest: 'combobox',
      One: 'combobox',
      Many: 'listbox',
      // The options of a list box are on the page (those of a dropdown and a datalist are not, until opened).
      'In a list box': 'option',
      Long: 'textbox',
      Rich: 'textbox',
      More: 'button',
      'Explicit tab': 'tab',
      'First token': 'switch',
    });
  });

  it('an element clickable only by onclick or tabindex is a button (a link when it is an <a>)', async () => {
    const s = await snapshot(`<div onclick="void 0">Clickable div</div><span tabindex="0">Focusable</span><a tabindex="0">Anchor</a>`);
    expect(s.elements.map((e) => [e.name, e.role])).toEqual([
      ['Clickable div', 'button'],
      ['Focusable', 'button'],
      ['Anchor', 'link'],
    ]);
  });
});

describe('accessible names', () => {
  it('follow aria-labelledby, aria-label, labels, content, alt, svg titles, placeholder and title, in that order', async () => {
    const s = await snapshot(`
      <span id="a">First</span><span id="b">Second</span>
      <button aria-labelledby="a b" aria-label="ignored">content</button>
      <button aria-label="  Labelled   by  aria ">content</button>
      <label for="f1">For label</label><input id="f1">
      <label>Wrapping label <input id="f2"></label>
      <input placeholder="Only a placeholder">
      <input title="Only a title">
      <button>Text <span aria-hidden="true">HIDDEN</span><img alt="and an image"></button>
      <button><svg><title>Icon title</title></svg></button>
      <input type="submit">
      <input type="image" alt="Go there">
      <button><span title="From a tooltip"></span></button>`);
    expect(s.elements.map((e) => e.name)).toEqual([
      'First Second',
      'Labelled by aria',
      'For label',
      'Wrapping label',
      'Only a placeholder',
      'Only a title',
      'Text and an image',
      'Icon title',
      'Submit',
      'Go there',
      'From a tooltip',
    ]);
  });

  it('resolve IDREFs inside the shadow root the element is in', async () => {
    const page = await rig.set(`<div id="host"></div>`);
    await page.evaluate(() => {
      const root = document.getElementById('host')!.attachShadow({ mode: 'open' });
      root.innerHTML = `<span id="lbl">Shadow label</span><button aria-labelledby="lbl">x</button>`;
    });
    const s = await dom(page, 'snapshot', {});
    expect(named(s.elements, 'Shadow label').role).toBe('button');
  });
});

describe('what is shown', () => {
  it('leaves out what a person cannot see or reach: display:none, visibility:hidden, aria-hidden, inert, hidden inputs', async () => {
    const s = await snapshot(`
      <button>Shown</button>
      <button style="display:none">Display none</button>
      <div style="display:none"><button>Inside display none</button></div>
      <button style="visibility:hidden">Invisible</button>
      <div aria-hidden="true"><button>Aria hidden</button></div>
      <div inert><button>Inert</button></div>
      <input type="hidden" value="secret" aria-label="Hidden input">
      <p>Visible text</p><p style="display:none">Hidden text</p>`);
    expect(s.elements.map((e) => e.name)).toEqual(['Shown']);
    const text = s.lines.filter((l) => l.k === 't').map((l) => (l as { s: string }).s);
    expect(text).toEqual(['Visible text']);
  });

  it('a closed <details> shows only its summary; an open one its content too', async () => {
    const closed = await snapshot(`<details><summary>Summary</summary><button>Inside</button></details>`);
    expect(closed.elements.map((e) => [e.name, e.states.expanded])).toEqual([['Summary', false]]);
    const open = await snapshot(`<details open><summary>Summary</summary><button>Inside</button></details>`);
    expect(open.elements.map((e) => e.name)).toEqual(['Summary', 'Inside']);
  });

  it('reads open shadow roots and slotted content in place, once', async () => {
    const page = await rig.set(`<p>Before</p><x-card><span slot="title">Slotted</span></x-card><p>After</p>`);
    await page.evaluate(() => {
      const root = document.querySelector('x-card')!.attachShadow({ mode: 'open' });
      root.innerHTML = `<h2><slot name="title"></slot></h2><button>In shadow</button>`;
    });
    const s = await dom(page, 'snapshot', {});
    expect(s.elements.map((e) => e.name)).toEqual(['In shadow']);
    expect(s.lines.filter((l) => l.k === 't').map((l) => (l as { s: string }).s)).toEqual(['Before', 'Slotted', 'After']);
    // The element in the shadow root is referenced; nothing is marked on the host (or anywhere).
    expect(await referenced(page, 'el')).toEqual([[1, 'In shadow']]);
    expect(await page.evaluate(() => document.querySelector('x-card')!.getAttributeNames())).toEqual([]);
  });
});

describe('states, values and records', () => {
  it('says what a control holds and how it stands', async () => {
    const s = await snapshot(`
      <input type="checkbox" aria-label="Ticked" checked>
      <input type="checkbox" aria-label="Mixed" id="mixed">
      <button aria-label="Off" disabled>x</button>
      <button aria-label="Menu" aria-expanded="false" aria-haspopup="true">x</button>
      <button aria-label="Pressed" aria-pressed="true">x</button>
      <input aria-label="Needed" required aria-invalid="true" aria-errormessage="err"><span id="err">Enter a name</span>
      <input aria-label="Read only" value="fixed" readonly>
      <input type="password" aria-label="Password" value="hunter2">
      <select aria-label="Pick"><option>One</option><option selected>Two</option></select>
      <input type="date" aria-label="When" value="2025-07-18">
      <input aria-label="Empty" placeholder="e.g. Ada">
      <div role="slider" aria-label="Volume" aria-valuenow="7" tabindex="0"></div>
      <a href="/now" aria-current="page">Here</a>`);
    expect(named(s.elements, 'Ticked').states).toEqual({ checked: true });
    expect(named(s.elements, 'Off').states).toEqual({ disabled: true });
    expect(named(s.elements, 'Menu').states).toEqual({ expanded: false, haspopup: 'menu' });
    expect(named(s.elements, 'Pressed').states).toEqual({ pressed: true });
    expect(named(s.elements, 'Needed')).toMatchObject({ states: { required: true, invalid: true }, error: 'Enter a name', value: '' });
    expect(named(s.elements, 'Read only')).toMatchObject({ states: { readonly: true }, value: 'fixed' });
    expect(named(s.elements, 'Password').value).toBe('[hidden]');
    expect(named(s.elements, 'Pick')).toMatchObject({ value: 'Two', options: ['One', 'Two'] });
    expect(named(s.elements, 'When')).toMatchObject({ value: '2025-07-18', format: 'yyyy-mm-dd' });
    expect(named(s.elements, 'Empty').placeholder).toBe('e.g. Ada');
    expect(named(s.elements, 'Volume')).toMatchObject({ role: 'slider', value: '7' });
    expect(named(s.elements, 'Here').states).toEqual({ current: true });
    const page = rig.page();
    await page.evaluate(() => ((document.getElementById('mixed') as HTMLInputElement).indeterminate = true));
    await page.focus('[aria-label="Empty"]');
    const again = await dom(page, 'snapshot', {});
    expect(named(again.elements, 'Mixed').states.checked).toBe('mixed');
    expect(named(again.elements, 'Empty').states.focused).toBe(true);
  });

  it('keeps each listed element by its index, counting from startIndex, and drops the last references first', async () => {
    const page = await rig.set(`<button>One</button><button>Two</button>`);
    const first = await dom(page, 'snapshot', { startIndex: 5 });
    expect(first.elements.map((e) => e.index)).toEqual([5, 6]);
    expect(first.next).toBe(7);
    await page.evaluate(() => document.querySelector('button')!.remove());
    await dom(page, 'snapshot', {});
    expect(await referenced(page, 'el')).toEqual([[1, 'Two']]);
    expect(await page.$$eval('*', (els) => els.flatMap((e) => e.getAttributeNames()).filter((n) => n.startsWith('data-')))).toEqual([]);
  });

  it('caps the elements it lists and says how many it left out', async () => {
    const s = await snapshot(Array.from({ length: 8 }, (_, i) => `<button>B${i}</button>`).join(''), '');
    const capped = await dom(rig.page(), 'snapshot', { maxElements: 3 });
    expect(s.elements).toHaveLength(8);
    expect(capped.elements.map((e) => e.name)).toEqual(['B0', 'B1', 'B2']);
    expect(capped.truncated.elements).toBe(5);
  });
});

describe('scopes, sections and modal dialogs', () => {
  it('names the labelled container an element stands in, and starts a section for it', async () => {
    const s = await snapshot(`
      <nav aria-label="Main"><a href="/a">Home</a></nav>
      <section aria-label="Billing"><button>Pay</button></section>
      <section><button>Unscoped</button></section>
      <fieldset><legend>Shipping</legend><input aria-label="Street"></fieldset>`);
    expect(named(s.elements, 'Home').scope).toBe("navigation 'Main'");
    expect(named(s.elements, 'Pay').scope).toBe("region 'Billing'");
    expect(named(s.elements, 'Unscoped').scope).toBeNull();
    expect(named(s.elements, 'Street').scope).toBe("group 'Shipping'");
    expect(s.sections.map((x) => [x.role, x.name])).toEqual([
      ['navigation', 'Main'],
      ['region', 'Billing'],
      ['group', 'Shipping'],
    ]);
    expect(s.lines).toContainEqual({ k: 's', s: "navigation 'Main'" });
  });

  it('reads only the open modal dialog when there is one', async () => {
    const page = await rig.set(`<button>Behind</button><dialog id="d" aria-label="Confirm"><button>Yes</button></dialog>`);
    await page.evaluate(() => (document.getElementById('d') as HTMLDialogElement).showModal());
    const s = await dom(page, 'snapshot', {});
    expect(s.modal).toBe(true);
    expect(s.elements.map((e) => [e.role, e.name])).toEqual([
      ['dialog', 'Confirm'],
      ['button', 'Yes'],
    ]);
    expect(named(s.elements, 'Yes').scope).toBe("dialog 'Confirm'");
  });

  it('lists iframes as frame lines and keeps them by number for the node side to read', async () => {
    const s = await snapshot(
      `<p>Top</p><iframe title="Payment" srcdoc="<button>Inside</button>" style="width:200px;height:100px"></iframe>`,
    );
    expect(s.elements).toEqual([]);
    expect(s.lines).toContainEqual({ k: 'f', f: 1, t: 'Payment', sc: null, v: 1, u: 'about:srcdoc' });
    expect(s.frames).toBe(1);
    expect(await refersTo(rig.page(), 'frame', 1, 'iframe')).toBe(true);
    expect(await rig.page().$eval('iframe', (f) => f.getAttributeNames().sort())).toEqual(['srcdoc', 'style', 'title']);
  });
});

describe('checkboxes and radios a click cannot reach', () => {
  it('are listed once, on their visible label, with hiddenInput', async () => {
    const s = await snapshot(`
      <style>.sr { position:absolute; opacity:0; width:1px; height:1px; }</style>
      <label for="c"><span>Accept the terms</span></label><input id="c" type="checkbox" class="sr">
      <label><input type="radio" name="r" style="display:none"> Express</label>`);
    expect(s.elements.map((e) => [e.name, e.role, e.tag, e.hiddenInput])).toEqual([
      ['Accept the terms', 'checkbox', 'label', true],
      ['Express', 'radio', 'label', true],
    ]);
  });
});
