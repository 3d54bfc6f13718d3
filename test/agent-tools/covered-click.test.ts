import fs from 'node:fs';
import path from 'node:path';

import { takeSnapshot } from '../../server/agent/observation';
import { ToolError } from '../../server/agent/result/errors';
import { html, indexOf, useRig } from './tools-rig';

/**
 * A click that something covers fails saying what covers the target and what to try — not Playwright's bare
 * "Timeout 8000ms exceeded" — and doing what it says works. A click on an option of a script-driven suggestion
 * list (opens on typing, picks on mousedown, closes on blur) picks it, through the real planner loop.
 */
jest.setTimeout(60_000);

const rig = useRig();
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'realistic', 'site', 'patterns', name), 'utf8');

async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return (err as ToolError).message;
}

describe('a covered click', () => {
  it('names the open menu over the button and says to press Escape; after Escape the same click works', async () => {
    rig.site.page('/covered', fixture('covered.html'));
    const run = await rig.open('/covered');
    let s = await takeSnapshot(run.page);
    await rig.tool(run, 'click', { index: indexOf(s, 'button', 'File') }, s);
    s = await takeSnapshot(run.page);
    const menu = s.elements.find((e) => e.role === 'menu')!;
    const message = await failure(rig.tool(run, 'click', { index: indexOf(s, 'button', 'Save draft') }, s));
    expect(message).toBe(
      `click on button 'Save draft' failed: the click was intercepted by [${menu.index}] menu 'File' covering the target; press Escape or close it, then click again`,
    );
    expect(await run.page.locator('#log').textContent()).toBe('');

    await rig.tool(run, 'press', { key: 'Escape' });
    s = await takeSnapshot(run.page);
    expect(s.elements.find((e) => e.role === 'menu')).toBeUndefined();
    await rig.tool(run, 'click', { index: indexOf(s, 'button', 'Save draft') }, s);
    expect(await run.page.locator('#log').textContent()).toBe('saved');
  });

  it('names a banner the observation did not list by its text, and says to dismiss it', async () => {
    rig.site.page(
      '/banner',
      html(
        'Banner',
        `<main><h1>Shop</h1><button type="button" id="buy" onclick="document.getElementById('log').textContent='bought'">Buy now</button><p id="log"></p></main>
        <div style="position:fixed;left:0;right:0;top:0;height:300px;background:#eee" aria-hidden="true"><p>We use cookies to improve your visit.</p></div>`,
      ),
    );
    const run = await rig.open('/banner');
    const s = await takeSnapshot(run.page);
    const message = await failure(rig.tool(run, 'click', { index: indexOf(s, 'button', 'Buy now') }, s));
    expect(message).toBe(
      "click on button 'Buy now' failed: the click was intercepted by div 'We use cookies to improve your visit.' covering the target; close or dismiss it (its close or accept button, or Escape), or scroll it out of the way, then click again",
    );
    expect(await run.page.locator('#log').textContent()).toBe('');
  });
});

describe('a disabled control', () => {
  const form = html(
    'Compose',
    `<main><button type="button" id="send" disabled onclick="document.getElementById('log').textContent='sent'">Send</button><p id="log"></p></main>`,
  );

  it('fails saying it is disabled, and nothing is clicked', async () => {
    rig.site.page('/disabled', form);
    const run = await rig.open('/disabled');
    const s = await takeSnapshot(run.page);
    const message = await failure(rig.tool(run, 'click', { index: indexOf(s, 'button', 'Send') }, s));
    expect(message).toBe(
      "click on button 'Send' failed: it is disabled (the page does not take it yet: something it needs may be missing or invalid)",
    );
    expect(await run.page.locator('#log').textContent()).toBe('');
  });

  it('is clicked when it turned enabled after it was observed disabled (the page is asked, not the observation)', async () => {
    rig.site.page('/enabling', form);
    const run = await rig.open('/enabling');
    const s = await takeSnapshot(run.page);
    expect(s.elements.find((e) => e.index === indexOf(s, 'button', 'Send'))!.states.disabled).toBe(true);
    await run.page.locator('#send').evaluate((b: HTMLButtonElement) => (b.disabled = false));
    await rig.tool(run, 'click', { index: indexOf(s, 'button', 'Send') }, s);
    expect(await run.page.locator('#log').textContent()).toBe('sent');
  });
});

describe('script-driven suggestion lists through the planner', () => {
  it('the model types, sees the suggestions as options, clicks one and reads the field back', async () => {
    rig.site.page('/autocomplete', fixture('autocomplete.html'));
    const run = await rig.open('/autocomplete', {
      action: 'Choose Parma as the city',
      responseFormat: { city: 'string - the city chosen' },
    });
    rig.model.setScript((t) => {
      const o = t.observation!;
      const city = o.maybe('textbox', 'City');
      if (city && /value='Parma'/.test(city.rest)) return { tool: 'done', args: { success: true, data: { city: 'Parma' } } };
      const option = o.maybe('option', 'Parma');
      if (option) return { tool: 'click', args: { index: option.index } };
      return { tool: 'type', args: { index: o.find('textbox', 'City'), text: 'Par' } };
    });
    const planned = await rig.plan(run);
    expect(planned.outcome).toMatchObject({ status: 'completed', result: { city: 'Parma' } });
    expect(await run.page.locator('#log').textContent()).toBe('city Parma');
    expect(run.trace.map((t) => [t.tool, t.outcome])).toEqual([
      ['type', 'ok'],
      ['click', 'ok'],
      ['done', 'ok'],
    ]);
  });
});
