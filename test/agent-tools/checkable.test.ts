import type { PageSnapshot } from '../../server/agent/observation';
import { takeSnapshot, withRefs } from '../../server/agent/observation';
import { ToolError } from '../../server/agent/result/errors';
import { html, indexOf, type Run, useRig } from './tools-rig';

/**
 * Checkboxes, radios and switches built the way form kits build them (Bootstrap's visually-hidden input, a
 * zero-size input with a separate label, a display:none input behind a styled switch, Material's transparent
 * input over the box, a role=switch button), clicked through the real click tool in Chromium; the page's own
 * state says whether it worked, and a click that changed nothing is an error, never "clicked".
 */
jest.setTimeout(60_000);

const rig = useRig();

const KIT = html(
  'Preferences',
  `<style>
  .vh { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); border: 0; }
  .box, .knob { display: inline-block; width: 16px; height: 16px; border: 1px solid #333; vertical-align: middle; }
  .switch { display: inline-block; width: 40px; height: 20px; border-radius: 10px; background: #ccc; cursor: pointer; }
  .mui { position: relative; display: inline-block; width: 24px; height: 24px; }
  .mui .icon { display: block; width: 24px; height: 24px; border: 2px solid #555; box-sizing: border-box; }
  label { cursor: pointer; }
</style>
<main>
<h1>Preferences</h1>
<form aria-label="Preferences" onsubmit="return false">
  <p><label class="kit"><input type="checkbox" id="news" class="vh"><span class="box"></span> Newsletter</label></p>
  <p><input type="checkbox" id="terms" style="width:0;height:0;opacity:0;position:absolute;margin:0"><label for="terms">I accept the <a href="/terms">terms and conditions</a> of use</label></p>
  <p><input type="checkbox" id="dark" style="display:none"><label for="dark" class="switch" title="Dark mode"><span class="knob"></span></label> Dark mode</p>
  <p><span class="mui"><input type="checkbox" id="remember" style="opacity:0;position:absolute;inset:0;margin:0;width:100%;height:100%;z-index:1;cursor:pointer"><span class="icon"></span></span> <label for="remember">Remember me</label></p>
  <fieldset><legend>Plan</legend>
    <input type="radio" name="plan" id="free" class="vh" checked><label for="free">Free</label>
    <input type="radio" name="plan" id="pro" class="vh"><label for="pro">Pro</label>
  </fieldset>
  <p><button type="button" role="switch" aria-checked="false" id="wifi">Wi-Fi</button></p>
  <p><label><input type="checkbox" id="locked" class="vh" onclick="return false"> Locked option</label></p>
  <p><input type="checkbox" id="orphan" style="display:none" aria-label="Orphan option"></p>
  <p><label><input type="checkbox" id="plain"> Plain checkbox</label></p>
</form>
</main>`,
  `document.getElementById('wifi').addEventListener('click', function (e) {
     var b = e.currentTarget; b.setAttribute('aria-checked', String(b.getAttribute('aria-checked') !== 'true'));
   });`,
);

let path: string;
beforeAll(() => {
  path = new URL(rig.site.page('/kit', KIT)).pathname;
  rig.site.page('/terms', html('Terms', '<h1>Terms</h1>'));
});

/**
 * The element as the observation would index it. Until the observation lists hidden-input controls by their
 * label (the observation's own work), a test pins the index on the element in the observation's references, as
 * the snapshot keeps them (off the page).
 */
async function pinned(run: Run, selector: string, role: string, name: string): Promise<{ snapshot: PageSnapshot; index: number }> {
  const snapshot = await takeSnapshot(run.page);
  const index = 900 + snapshot.elements.length;
  await withRefs(run.page, {}, 'function (r, a) { r.el[a.i] = document.querySelector(a.s); }', { i: index, s: selector });
  snapshot.elements.push({ index, role, name, tag: selector.startsWith('label') ? 'label' : 'input', scope: null, states: {} });
  return { snapshot, index };
}

const checked = (run: Run, id: string) => run.page.locator(`#${id}`).evaluate((e) => (e as HTMLInputElement).checked);

describe('click on checkboxes, radios and switches whose input is hidden', () => {
  it.each([
    ['a visually hidden input wrapped in its label', '#news', 'news', 'Newsletter'],
    ['a zero-size transparent input with a label that holds a link', '#terms', 'terms', 'I accept the terms and conditions of use'],
    ['a display:none input behind a styled switch label', '#dark', 'dark', 'Dark mode'],
    ['the styled switch label of a display:none input', 'label[for=dark]', 'dark', 'Dark mode'],
    ["Material's transparent input over the box", '#remember', 'remember', 'Remember me'],
  ])('checks %s, and unchecks it again', async (_what, selector, id, name) => {
    const run = await rig.open(path);
    const first = await pinned(run, selector, 'checkbox', name);
    const on = await rig.tool(run, 'click', { index: first.index }, first.snapshot);
    expect(on.message).toMatch(/\(now checked\)$/);
    expect(await checked(run, id)).toBe(true);
    expect(run.page.url()).toMatch(/\/kit$/); // the link inside the terms label was not followed
    const second = await pinned(run, selector, 'checkbox', name);
    const off = await rig.tool(run, 'click', { index: second.index }, second.snapshot);
    expect(off.message).toMatch(/\(now unchecked\)$/);
    expect(await checked(run, id)).toBe(false);
  });

  it('selects a radio whose input is hidden; clicking the radio already selected says so', async () => {
    const run = await rig.open(path);
    const pro = await pinned(run, '#pro', 'radio', 'Pro');
    expect((await rig.tool(run, 'click', { index: pro.index }, pro.snapshot)).message).toBe(
      "clicked radio 'Pro' by its label (now checked)",
    );
    expect([await checked(run, 'pro'), await checked(run, 'free')]).toEqual([true, false]);
    const again = await pinned(run, '#pro', 'radio', 'Pro');
    expect((await rig.tool(run, 'click', { index: again.index }, again.snapshot)).message).toBe("radio 'Pro' is already checked");
  });

  it('toggles a role=switch button and a plain checkbox, verified by their state', async () => {
    const run = await rig.open(path);
    const s = await takeSnapshot(run.page);
    expect((await rig.tool(run, 'click', { index: indexOf(s, 'switch', 'Wi-Fi') }, s)).message).toBe(
      "clicked switch 'Wi-Fi' (now checked)",
    );
    expect(await run.page.locator('#wifi').getAttribute('aria-checked')).toBe('true');
    const s2 = await takeSnapshot(run.page);
    expect((await rig.tool(run, 'click', { index: indexOf(s2, 'checkbox', 'Plain checkbox') }, s2)).message).toBe(
      "clicked checkbox 'Plain checkbox' (now checked)",
    );
    expect(await checked(run, 'plain')).toBe(true);
  });

  it('reports a checkbox that refuses every click as an error naming its unchanged state', async () => {
    const run = await rig.open(path);
    const locked = await pinned(run, '#locked', 'checkbox', 'Locked option');
    const err = await rig.tool(run, 'click', { index: locked.index }, locked.snapshot).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).message).toMatch(
      /^checkbox 'Locked option' did not change: it is still unchecked \(tried a click on its label, then Space/,
    );
    expect(await checked(run, 'locked')).toBe(false);
  });

  it('says a hidden control with no label and no focus cannot be clicked', async () => {
    const run = await rig.open(path);
    const orphan = await pinned(run, '#orphan', 'checkbox', 'Orphan option');
    await expect(rig.tool(run, 'click', { index: orphan.index }, orphan.snapshot)).rejects.toThrow(
      /cannot be clicked: its control is hidden, has no visible label to click and cannot take focus/,
    );
    expect(await checked(run, 'orphan')).toBe(false);
  });
});

describe('checkbox clicks through the planner', () => {
  it('the model checks a Bootstrap-style box by the label it reads and finishes', async () => {
    const run = await rig.open(path, { action: 'Subscribe to the newsletter', responseFormat: { subscribed: 'boolean' } });
    rig.model.setScript((t) => {
      const o = t.observation!;
      const box = o.maybe('checkbox', 'Newsletter');
      if (box && !/\bchecked\b/.test(box.rest.replace('unchecked', ''))) return { tool: 'click', args: { index: box.index } };
      return { tool: 'done', args: { success: true, data: { subscribed: true } } };
    });
    const result = await rig.plan(run);
    expect(result.outcome).toMatchObject({ status: 'completed', result: { subscribed: true } });
    expect(await checked(run, 'news')).toBe(true);
    expect(run.trace.filter((s) => s.tool === 'click').map((s) => s.outcome)).toEqual(['ok']);
  });
});
