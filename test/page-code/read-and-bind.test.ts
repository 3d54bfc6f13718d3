import type readBindingsInPage from '../../server/agent/replay/read-bindings.page';
import { PAGE_ENTRIES } from '../../server/page-code/entries';
import { pageFunction } from '../../server/page-code/page-function';
import { dom, named, referenced, usePage } from './page-rig';

/**
 * The observation's reading operations in the page (observation/dom/read.page.ts, binding.page.ts): the text of an
 * element, a section or the page, page by page; the option to choose in an open list; and where a value of a final
 * answer stands on the page, read back through the binding (what a replay's result is read with).
 */
jest.setTimeout(60_000);

const rig = usePage();

describe('extractText', () => {
  it('reads the visible text of a marked element, one line per block, without what is hidden', async () => {
    const page = await rig.set(`
      <section aria-label="Order"><h2>Order 42</h2><p>Two <b>items</b></p><p style="display:none">secret</p>
      <button>Pay</button><img alt="a receipt"><br>Total: 12.50</section>`);
    const s = await dom(page, 'snapshot', {});
    const section = s.sections.find((x) => x.name === 'Order')!;
    const read = await dom(page, 'extractText', { section: section.id, maxChars: 1000 });
    // Inline content (a button, an image by its alt) stays on its line.
    expect(read).toEqual({ ok: true, text: 'Order 42\nTwo items\nPay a receipt\nTotal: 12.50', page: 1, pages: 1, chars: 45 });
    const button = await dom(page, 'extractText', { index: named(s.elements, 'Pay').index, maxChars: 1000 });
    expect(button).toMatchObject({ ok: true, text: 'Pay' });
  });

  it('cuts the page into pages at line ends, and says when there is no such page', async () => {
    const page = await rig.set(Array.from({ length: 6 }, (_, i) => `<p>Line number ${i + 1}</p>`).join(''));
    const first = await dom(page, 'extractText', { maxChars: 30, page: 1 });
    expect(first).toEqual({ ok: true, text: 'Line number 1\nLine number 2', page: 1, pages: 3, chars: 83 });
    expect(await dom(page, 'extractText', { maxChars: 30, page: 3 })).toMatchObject({ ok: true, text: 'Line number 5\nLine number 6' });
    expect(await dom(page, 'extractText', { maxChars: 30, page: 4 })).toEqual({
      ok: false,
      error: 'the text has 3 page(s); there is no page 4',
    });
    expect(await dom(page, 'extractText', { index: 99, maxChars: 30 })).toEqual({
      ok: false,
      error: 'element [99] is no longer on the page',
    });
  });
});

describe('markOption', () => {
  const list = `
    <button aria-haspopup="listbox" aria-controls="opts" aria-expanded="true">Country</button>
    <div role="listbox" id="opts">
      <div role="option" data-value="fr">France</div>
      <div role="option" data-value="de">Germany</div>
      <div role="option">Greece</div>
      <div role="option" style="display:none">Hidden land</div>
    </div>`;

  it('finds the one option that matches by name, value or start of name, and keeps it off the page', async () => {
    const page = await rig.set(list);
    const s = await dom(page, 'snapshot', {});
    const index = named(s.elements, 'Country').index;
    expect(await dom(page, 'markOption', { index, option: 'germany' })).toEqual({ ok: true, name: 'Germany' });
    expect(await referenced(page, 'opt')).toEqual([[0, 'Germany']]);
    expect(await dom(page, 'markOption', { index, option: 'fr' })).toEqual({ ok: true, name: 'France' });
    // One option is kept at a time.
    expect(await referenced(page, 'opt')).toEqual([[0, 'France']]);
  });

  it('refuses an ambiguous or unknown option, naming the options there are', async () => {
    const page = await rig.set(list);
    expect(await dom(page, 'markOption', { option: 'G' })).toEqual({ ok: false, error: "several options match 'G': 'Germany', 'Greece'" });
    expect(await dom(page, 'markOption', { option: 'Spain' })).toEqual({
      ok: false,
      error: "no option matches 'Spain'; the options are 'France', 'Germany', 'Greece'",
    });
    await rig.set('<p>No list</p>');
    expect(await dom(rig.page(), 'markOption', { option: 'x' })).toEqual({ ok: false, error: 'no open list of options on the page' });
  });
});

describe('answer bindings', () => {
  it('bindLeaf finds a value with the text around it; readLeaf reads the current value back', async () => {
    const page = await rig.set(`<main><h1>Ada Lovelace</h1><p>Followers: <span>1,234</span> people</p></main>`);
    const bound = await dom(page, 'bindLeaf', { forms: ['1,234', '1234'], kind: 'number' });
    expect(bound).toMatchObject({ ok: true, text: '1,234' });
    if (!bound.ok) throw new Error(bound.error);
    expect(await dom(page, 'readLeaf', bound.binding)).toEqual({ ok: true, text: '1,234' });
    await page.evaluate(() => (document.querySelector('span')!.textContent = '1,300'));
    expect(await dom(page, 'readLeaf', bound.binding)).toEqual({ ok: true, text: '1,300' });
    const name = await dom(page, 'bindLeaf', { forms: ['Ada Lovelace'], kind: 'string' });
    expect(name).toMatchObject({ ok: true, binding: { anchor: { tag: 'h1', scope: 'main', nth: 0 }, prefix: '', suffix: '' } });
    await page.evaluate(() => document.querySelector('h1')!.remove());
    if (!name.ok) throw new Error(name.error);
    expect(await dom(page, 'readLeaf', name.binding)).toEqual({ ok: false, error: 'no h1 #1 in main on the page' });
  });

  it('bindLeaf does not take a number inside a longer one', async () => {
    const page = await rig.set(`<p>Order 12345</p><p>Items: 123</p>`);
    const bound = await dom(page, 'bindLeaf', { forms: ['123'], kind: 'number' });
    expect(bound).toMatchObject({ ok: true, binding: { prefix: 'Items: ' } });
    expect(await dom(page, 'bindLeaf', { forms: ['999'], kind: 'number' })).toEqual({ ok: false, error: 'not found on the page' });
  });

  it('bindList binds the items of a list and their fields; readList reads every item back, new ones too', async () => {
    const page = await rig.set(`
      <ul id="repos">
        <li><h3>alpha</h3><span>12 stars</span></li>
        <li><h3>beta</h3><span>7 stars</span></li>
      </ul>`);
    const bound = await dom(page, 'bindList', {
      items: [
        [
          { forms: ['alpha'], kind: 'string' },
          { forms: ['12'], kind: 'number' },
        ],
        [
          { forms: ['beta'], kind: 'string' },
          { forms: ['7'], kind: 'number' },
        ],
      ],
    });
    expect(bound).toMatchObject({ ok: true, plan: { container: { tag: 'ul' }, signature: ['li'], limit: null } });
    if (!bound.ok) throw new Error(bound.error);
    await page.evaluate(() =>
      document.getElementById('repos')!.insertAdjacentHTML('beforeend', '<li><h3>gamma</h3><span>3 stars</span></li>'),
    );
    expect(await dom(page, 'readList', bound.plan)).toEqual({
      ok: true,
      rows: [
        ['alpha', '12'],
        ['beta', '7'],
        ['gamma', '3'],
      ],
    });
  });

  it('the replay reads many bindings in one call; a read that fails or throws answers with its error', async () => {
    const page = await rig.set(`<p>Balance: 40 EUR</p>`);
    const bound = await dom(page, 'bindLeaf', { forms: ['40'], kind: 'number' });
    if (!bound.ok) throw new Error(bound.error);
    const read = pageFunction<typeof readBindingsInPage>(PAGE_ENTRIES.readBindings);
    const answers = await page.evaluate(read, [
      { leaf: bound.binding },
      { leaf: { ...bound.binding, anchor: { tag: 'table', scope: null, nth: 0 } } },
      { leaf: { ...bound.binding, anchor: { tag: '!!', scope: null, nth: 0 } } },
    ]);
    expect(answers[0]).toEqual({ ok: true, text: '40' });
    expect(answers[1]).toEqual({ ok: false, error: 'no table #1 on the page' });
    expect(answers[2]).toMatchObject({ ok: false, error: expect.stringContaining('is not a valid selector') });
  });
});
