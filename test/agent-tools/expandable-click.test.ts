import { takeSnapshot } from '../../server/agent/observation';
import { html, indexOf, type Run, useRig } from './tools-rig';

/**
 * Tree items that a click on their label does not open or close, clicked through the real click tool in Chromium:
 * the ARIA Authoring Practices' way (a CSS ::before triangle the page tells by the click's position, and the arrow
 * keys on the focused item), a mouse-only tree whose twisty is an icon next to a checkbox, and a tree whose label
 * click selects. The page's own aria-expanded says whether it worked, and the result says how.
 */
jest.setTimeout(60_000);

const rig = useRig();

const STYLE = `<style>
  [role=tree] { list-style: none; font: 16px sans-serif; }
  [role=group] { list-style: none; }
  .apg .label::before { content: ''; display: inline-block; width: 12px; height: 12px; margin-right: 6px; background: #555; }
  .twisty { display: inline-block; width: 14px; cursor: pointer; }
</style>`;

const TREES = html(
  'Files',
  `${STYLE}<main><h1>Files</h1>
<ul role="tree" aria-label="Projects" class="apg">
  <li role="treeitem" aria-expanded="false" tabindex="0" id="docs"><span class="label">Documents</span>
    <ul role="group" hidden><li role="treeitem" tabindex="-1">Report.pdf</li></ul></li>
  <li role="treeitem" aria-expanded="true" tabindex="-1" id="music"><span class="label">Music</span>
    <ul role="group"><li role="treeitem" tabindex="-1">Song.mp3</li></ul></li>
</ul>
<ul role="tree" aria-label="Backups" class="mouse">
  <li role="treeitem" aria-expanded="false" id="archive"><span class="twisty" aria-hidden="true">▸</span><input type="checkbox" id="pick" aria-label="Pick Archive"> <span>Archive</span>
    <ul role="group" hidden><li role="treeitem">Old.zip</li></ul></li>
</ul>
<ul role="tree" aria-label="Photos" class="apg">
  <li role="treeitem" aria-expanded="false" aria-selected="false" tabindex="-1" id="trips"><span class="label">Trips</span>
    <ul role="group" hidden><li role="treeitem" tabindex="-1">Rome</li></ul></li>
</ul>
</main>`,
  `function setOpen(item, open) {
     item.setAttribute('aria-expanded', String(open));
     item.querySelector('[role=group]').hidden = !open;
   }
   // As the APG examples: the ::before triangle toggles, by the click's position left of the label's text; a click
   // anywhere else on the item focuses it (and selects it, in a tree that selects).
   document.querySelectorAll('.apg [role=treeitem][aria-expanded]').forEach(function (item) {
     item.addEventListener('click', function (e) {
       if (e.target.closest('[role=treeitem]') !== item) return;
       var label = item.querySelector('.label');
       var range = document.createRange();
       range.selectNodeContents(label.firstChild);
       var left = range.getBoundingClientRect().left;
       if (e.target === label && e.clientX < left && e.clientX > left - 20) setOpen(item, item.getAttribute('aria-expanded') !== 'true');
       else if (item.hasAttribute('aria-selected')) item.setAttribute('aria-selected', 'true');
       item.focus();
     });
   });
   document.querySelectorAll('.apg [role=treeitem][aria-expanded]').forEach(function (item) {
     item.addEventListener('keydown', function (e) {
       if (e.target !== item) return;
       if (e.key === 'ArrowRight') setOpen(item, true);
       else if (e.key === 'ArrowLeft') setOpen(item, false);
       else return;
       e.preventDefault();
     });
   });
   // Mouse only: the twisty icon toggles; the checkbox is the item's own and must stay as it is.
   document.querySelector('.twisty').addEventListener('click', function (e) {
     var item = e.target.closest('[role=treeitem]');
     setOpen(item, item.getAttribute('aria-expanded') !== 'true');
   });`,
);

let path: string;
beforeAll(() => {
  path = new URL(rig.site.page('/trees', TREES)).pathname;
});

const expanded = (run: Run, id: string) => run.page.locator(`#${id}`).getAttribute('aria-expanded');

async function click(run: Run, name: string) {
  const snapshot = await takeSnapshot(run.page);
  return rig.tool(run, 'click', { index: indexOf(snapshot, 'treeitem', name) }, snapshot);
}

describe('click on a tree item that only its expander or the keys open', () => {
  it('lists the folders with their state', async () => {
    const run = await rig.open(path);
    const s = await takeSnapshot(run.page);
    expect(s.elements.find((e) => e.name === 'Documents')?.states.expanded).toBe(false);
    expect(s.elements.find((e) => e.name === 'Music')?.states.expanded).toBe(true);
  });

  it('expands an APG tree item with ArrowRight when the click on its label does nothing, and collapses it with ArrowLeft', async () => {
    const run = await rig.open(path);
    const open = await click(run, 'Documents');
    expect(open.message).toMatch(/did not expand it, so it was expanded with ArrowRight \(now expanded\)$/);
    expect(await expanded(run, 'docs')).toBe('true');
    const shut = await click(run, 'Music');
    expect(shut.message).toMatch(/did not collapse it, so it was collapsed with ArrowLeft \(now collapsed\)$/);
    expect(await expanded(run, 'music')).toBe('false');
  });

  it("clicks a mouse-only tree's twisty, never the checkbox beside it", async () => {
    const run = await rig.open(path);
    const out = await click(run, 'Archive');
    expect(out.message).toMatch(/so its expander \(left of the label\) was clicked \(now expanded\)$/);
    expect(await expanded(run, 'archive')).toBe('true');
    expect(await run.page.locator('#pick').isChecked()).toBe(false);
  });

  it('clicks the ::before triangle when the item ignores the keys', async () => {
    const run = await rig.open(path);
    // The same APG tree with its key handling gone: only the triangle's position is left.
    await run.page.evaluate(() => document.addEventListener('keydown', (e) => e.stopImmediatePropagation(), true));
    const out = await click(run, 'Documents');
    expect(out.message).toMatch(/its expander \(left of the label\) was clicked \(now expanded\)$/);
    expect(await expanded(run, 'docs')).toBe('true');
  });

  it('leaves an item that the click selected as it is, and toggles it on the second click', async () => {
    const run = await rig.open(path);
    const first = await click(run, 'Trips');
    expect(first.message).toMatch(/it changed \(selected or current\) but is still collapsed; click it again to expand it$/);
    expect(await expanded(run, 'trips')).toBe('false');
    const second = await click(run, 'Trips');
    expect(second.message).toMatch(/\(now expanded\)$/);
    expect(await expanded(run, 'trips')).toBe('true');
  });

  it('says so when nothing opens the item', async () => {
    const run = await rig.open(path);
    await run.page.evaluate(() => {
      document.addEventListener('keydown', (e) => e.stopImmediatePropagation(), true);
      document.addEventListener('click', (e) => e.stopImmediatePropagation(), true);
    });
    const out = await click(run, 'Documents');
    expect(out.message).toMatch(/, but it is still collapsed \(then tried ArrowRight on the focused item, then a click on its expander\)$/);
    expect(await expanded(run, 'docs')).toBe('false');
  });
});
