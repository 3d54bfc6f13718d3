import { executeTool } from '../../server/agent/tools';
import { el, observe, openPage, type Rig, startRig, stopRig, toolContext } from './observation-rig';

/**
 * Everything a person can click is listed and named the way they would name it: elements made clickable only by
 * a listener (seen through CDP, not guessed from class names), an onclick attribute or a framework's handler
 * prop; icon buttons by their SVG <title>, title or alt. Checkboxes, radios and switches are listed once, by their
 * label, with their state, whatever hides the native input, and a click on their index toggles them.
 */
const CLICKABLES = `<!doctype html><html><head><title>Clickables</title><style>
.tile { cursor: pointer; padding: 4px; border: 1px solid #ccc; }
.icon { display: inline-block; width: 20px; height: 20px; cursor: pointer; }
#backdrop { height: 120px; background: rgba(0,0,0,.05); cursor: pointer; }
</style></head><body>
<div id="backdrop"></div>
<h1>Inbox</h1>
<div class="tile" id="listener">Open the March report</div>
<div id="inline" onclick="document.getElementById('log').textContent = 'inline'">Archive all</div>
<div id="react-like">Mark as read</div>
<span class="icon" id="svg-icon"><svg viewBox="0 0 20 20" width="20" height="20"><title>Delete message</title><path d="M2 2h16v16H2z"/></svg></span>
<span class="icon" id="title-icon" title="Flag message"><i></i></span>
<a href="/home" id="logo"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Home page" width="20" height="20"></a>
<button id="labelled" aria-labelledby="lbl"><svg width="16" height="16" aria-hidden="true"></svg></button><span id="lbl">Settings</span>
<div class="tile" id="card"><h3>Weekly digest</h3><p>Sent every Monday.</p><button type="button" id="unsubscribe">Unsubscribe</button></div>
<p id="plain">Nothing to click here.</p>
<ul id="menu" style="cursor: pointer; margin-top: 1600px"><li>Rename folder</li><li>Move folder</li></ul>
<p id="log"></p>
<script>
const log = (t) => () => { document.getElementById('log').textContent = t; };
document.getElementById('listener').addEventListener('click', log('report'));
document.getElementById('svg-icon').addEventListener('click', log('deleted'));
document.getElementById('title-icon').addEventListener('mousedown', log('flagged'));
document.getElementById('card').addEventListener('click', log('card'));
document.getElementById('backdrop').addEventListener('click', log('backdrop'));
// Off screen, below a pointer list that has no listener itself: each item has its own.
document.querySelectorAll('#menu li').forEach((li) => li.addEventListener('click', log(li.textContent)));
// What React 17+ does: the handler is a prop on the node, the listener sits on the root.
const rl = document.getElementById('react-like');
rl['__reactProps$x1y2'] = { onClick: log('read'), children: 'Mark as read' };
document.body.addEventListener('click', (e) => { const p = e.target['__reactProps$x1y2']; if (p && p.onClick) p.onClick(e); });
</script></body></html>`;

const TOGGLES = `<!doctype html><html><head><title>Preferences</title><style>
.cover { position: relative; display: inline-flex; gap: 4px; cursor: pointer; }
.cover input { position: absolute; opacity: 0; width: 100%; height: 100%; margin: 0; z-index: -1; }
.box { display: inline-block; width: 16px; height: 16px; border: 1px solid #333; }
.zero { width: 0; height: 0; margin: 0; border: 0; padding: 0; }
.btn-check { position: absolute; clip: rect(0,0,0,0); pointer-events: none; }
.btn { display: inline-block; padding: 4px 8px; border: 1px solid #06c; cursor: pointer; }
.switch { display: inline-block; width: 36px; height: 20px; background: #ccc; cursor: pointer; }
</style></head><body>
<h1>Preferences</h1>
<label class="cover"><input type="checkbox" id="remember" checked><span class="box"></span>Remember me</label>
<label><input type="checkbox" id="zero" class="zero"><span class="box"></span> Send newsletter</label>
<input type="checkbox" id="bold" class="btn-check"><label class="btn" for="bold">Bold</label>
<fieldset><legend>Size</legend>
<input type="radio" name="size" id="s" style="display:none" checked><label class="btn" for="s">Small</label>
<input type="radio" name="size" id="l" style="display:none"><label class="btn" for="l">Large</label>
</fieldset>
<span id="wifi-label">Wi-Fi</span><span class="switch" id="wifi-wrap"><input type="checkbox" id="wifi" aria-labelledby="wifi-label" style="display:none"></span>
<button type="button" role="switch" aria-checked="false" id="dark">Dark mode</button>
<label><input type="checkbox" id="plain"> Plain checkbox</label>
<script>
document.getElementById('wifi-wrap').addEventListener('click', () => { const i = document.getElementById('wifi'); i.checked = !i.checked; });
document.getElementById('dark').addEventListener('click', (e) => e.currentTarget.setAttribute('aria-checked', String(e.currentTarget.getAttribute('aria-checked') !== 'true')));
</script></body></html>`;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  rig.serve('/clickables', CLICKABLES);
  rig.serve('/toggles', TOGGLES);
}, 60_000);
afterAll(() => stopRig(rig));

describe('clickable elements', () => {
  it('lists what listeners, onclick and handler props make clickable, named from text, SVG <title>, title, alt and labelledby', async () => {
    const { context, page } = await openPage(rig, '/clickables');
    try {
      const { s, text } = await observe(rig, page);
      for (const [role, name, tag] of [
        ['button', 'Open the March report', 'div'],
        ['button', 'Archive all', 'div'],
        ['button', 'Mark as read', 'div'],
        ['button', 'Delete message', 'span'],
        ['button', 'Flag message', 'span'],
        ['link', 'Home page', 'a'],
        ['button', 'Settings', 'button'],
        ['button', 'Unsubscribe', 'button'],
        ['button', 'Rename folder', 'li'],
        ['button', 'Move folder', 'li'],
      ] as const) {
        expect(el(s, role, name).tag).toBe(tag);
      }
      // No nameless control; the backdrop (a listener, no name) and a card holding its own button are not controls.
      expect(s.elements.filter((e) => !e.name)).toEqual([]);
      expect(s.elements).toHaveLength(10);
      expect(text).toContain('### Weekly digest\nSent every Monday.\n[');
      expect(text).toContain('Nothing to click here.');

      for (const [name, logged] of [
        ['Open the March report', 'report'],
        ['Archive all', 'inline'],
        ['Mark as read', 'read'],
        ['Delete message', 'deleted'],
        ['Flag message', 'flagged'],
        ['Move folder', 'Move folder'],
      ]) {
        const now = await observe(rig, page);
        await executeTool('click', { index: el(now.s, 'button', name!).index }, toolContext(rig, page, now.s));
        expect(await page.locator('#log').textContent()).toBe(logged);
      }
    } finally {
      await context.close();
    }
  });
});

describe('checkboxes, radios and switches', () => {
  it('lists each once by its label with its state, whatever hides the input, and a click on the index toggles it', async () => {
    const { context, page } = await openPage(rig, '/toggles');
    try {
      const { s, text } = await observe(rig, page);
      expect(text.split('\n\n')[1]).toBe(
        [
          '# Preferences',
          `[${el(s, 'checkbox', 'Remember me').index}] checkbox 'Remember me' checked`,
          `[${el(s, 'checkbox', 'Send newsletter').index}] checkbox 'Send newsletter' unchecked`,
          `[${el(s, 'checkbox', 'Bold').index}] checkbox 'Bold' unchecked`,
          'Size',
          `[${el(s, 'radio', 'Small').index}] radio 'Small' checked`,
          `[${el(s, 'radio', 'Large').index}] radio 'Large' unchecked`,
          'Wi-Fi',
          `[${el(s, 'checkbox', 'Wi-Fi').index}] checkbox 'Wi-Fi' unchecked`,
          `[${el(s, 'switch', 'Dark mode').index}] switch 'Dark mode' unchecked`,
          `[${el(s, 'checkbox', 'Plain checkbox').index}] checkbox 'Plain checkbox' unchecked`,
        ].join('\n'),
      );
      // Where a click on the input cannot land, the index is on what a person clicks (documented in ObservedElement).
      expect(el(s, 'checkbox', 'Remember me')).toMatchObject({ tag: 'label', hiddenInput: true });
      expect(el(s, 'checkbox', 'Send newsletter')).toMatchObject({ tag: 'label', hiddenInput: true });
      expect(el(s, 'checkbox', 'Bold')).toMatchObject({ tag: 'label', hiddenInput: true });
      expect(el(s, 'radio', 'Large')).toMatchObject({ tag: 'label', hiddenInput: true });
      expect(el(s, 'checkbox', 'Wi-Fi')).toMatchObject({ tag: 'span', hiddenInput: true });
      expect(el(s, 'checkbox', 'Plain checkbox')).toMatchObject({ tag: 'input' });
      expect(el(s, 'checkbox', 'Plain checkbox').hiddenInput).toBeUndefined();

      for (const [role, name, id] of [
        ['checkbox', 'Remember me', 'remember'],
        ['checkbox', 'Send newsletter', 'zero'],
        ['checkbox', 'Bold', 'bold'],
        ['radio', 'Large', 'l'],
        ['checkbox', 'Wi-Fi', 'wifi'],
        ['checkbox', 'Plain checkbox', 'plain'],
      ] as const) {
        const before = await page.locator(`#${id}`).isChecked();
        const now = await observe(rig, page);
        await executeTool('click', { index: el(now.s, role, name).index }, toolContext(rig, page, now.s));
        expect([name, await page.locator(`#${id}`).isChecked()]).toEqual([name, !before]);
      }
      const after = await observe(rig, page);
      expect(after.text).toMatch(/radio 'Small' unchecked\n.*radio 'Large' checked/);
      await executeTool('click', { index: el(after.s, 'switch', 'Dark mode').index }, toolContext(rig, page, after.s));
      expect(el((await observe(rig, page)).s, 'switch', 'Dark mode').states.checked).toBe(true);
    } finally {
      await context.close();
    }
  });
});
