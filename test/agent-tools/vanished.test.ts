import type { Page } from 'playwright-core';

import { takeSnapshot } from '../../server/agent/observation';
import type { PageToolName } from '../../server/agent/tools';
import { html, indexOf, useRig } from './tools-rig';

/**
 * The page moves on while the model thinks: an element removed, or the current tab closed, between the
 * observation and the action. Each is a tool error the model reads in its next observation; the run goes on.
 */
jest.setTimeout(60_000);

const rig = useRig();

let start: string;
beforeAll(() => {
  start = new URL(
    rig.site.page(
      '/offers',
      html(
        'Offers',
        `<main><h1>Offers</h1>
        <form aria-label="Offer" onsubmit="return false">
          <p><button type="button" id="deal">Limited offer</button></p>
          <p><label>Coupon <input id="coupon"></label></p>
          <p><label>Size <select id="size"><option>S</option><option>M</option></select></label></p>
          <p><label><input type="checkbox" id="gift"> Gift wrap</label></p>
        </form>
        <p><button type="button" onclick="window.open('/flash')">Open flash sale</button></p>
        <p><button type="button" id="expiring">Expiring deal</button></p></main>`,
      ),
    ),
  ).pathname;
  rig.site.page('/flash', html('Flash sale', '<main><h1>Flash sale</h1><button type="button">Buy now</button></main>'));
});

describe('an element removed after the observation', () => {
  it.each<[PageToolName, string, string, Record<string, unknown>]>([
    ['click', 'button', 'Limited offer', {}],
    ['hover', 'button', 'Limited offer', {}],
    ['scroll', 'button', 'Limited offer', {}],
    ['press', 'button', 'Limited offer', { key: 'Enter' }],
    ['type', 'textbox', 'Coupon', { text: 'SAVE10' }],
    ['select', 'combobox', 'Size', { option: 'M' }],
    ['click', 'checkbox', 'Gift wrap', {}],
  ])('%s on %s %j is a tool error saying it is gone', async (tool, role, name, args) => {
    const run = await rig.open(start);
    const s = await takeSnapshot(run.page);
    const index = indexOf(s, role, name);
    await run.page.locator('form').evaluate((f) => f.remove());
    await expect(rig.tool(run, tool, { ...args, index }, s)).rejects.toMatchObject({
      name: 'ToolError',
      message: expect.stringMatching(/is no longer on the page; the page changed, look at the new observation$/),
    });
  });
});

describe('through the planner', () => {
  it('a button the page removed while the model was thinking: the error is fed back, the run completes', async () => {
    const run = await rig.open(start, { action: 'Take the expiring deal if it is still there', responseFormat: { taken: 'boolean' } });
    // While the model thinks, the page's script removes the deal (played by page.evaluate); the model answers once it did.
    const removed = async () => {
      await run.page.evaluate(() => document.getElementById('expiring')?.remove());
      return (await run.page.locator('#expiring').count()) === 0;
    };
    rig.model.setScript((t) => {
      if (t.history.length === 0)
        return { until: removed, then: { tool: 'click', args: { index: t.observation!.find('button', 'Expiring deal') } } };
      return {
        tool: 'done',
        args: { success: true, data: { taken: !/Your previous turn failed: .*no longer on the page/.test(t.lastUser) } },
      };
    });
    const planned = await rig.plan(run);
    expect(planned.outcome).toMatchObject({ status: 'completed', result: { taken: false } });
    expect(run.trace.map((s) => [s.tool, s.outcome])).toEqual([
      ['click', 'error'],
      ['done', 'ok'],
    ]);
  });

  it('the current tab closed itself before the action: an error, then the run observes the tab it is back on', async () => {
    const run = await rig.open(start, { action: 'Buy in the flash sale', responseFormat: { bought: 'boolean' } });
    const views: string[] = [];
    // While the model thinks on the flash tab, the tab closes itself (its script's window.close, played by page.evaluate);
    // the model answers once it did.
    let flash: Page | undefined;
    run.context.on('page', (page) => (flash = page));
    const closedItself = async () => {
      await flash?.evaluate(() => window.close()).catch(() => undefined);
      return flash?.isClosed() ?? false;
    };
    rig.model.setScript((t) => {
      const o = t.observation!;
      views.push(o.text);
      if (t.history.length === 0) return { tool: 'click', args: { index: o.find('button', 'Open flash sale') } };
      if (t.history.length === 1) return { tool: 'switch_tab', args: { tab: 2 } };
      if (t.history.length === 2) return { until: closedItself, then: { tool: 'click', args: { index: o.find('button', 'Buy now') } } };
      return { tool: 'done', args: { success: true, data: { bought: false } } };
    });
    const planned = await rig.plan(run);
    expect(planned.outcome).toMatchObject({ status: 'completed', result: { bought: false } });
    expect(run.trace.map((s) => [s.tool, s.outcome])).toEqual([
      ['click', 'ok'],
      ['switch_tab', 'ok'],
      ['click', 'error'],
      ['done', 'ok'],
    ]);
    expect(views[2]).toMatch(/^URL: .*\/flash$/m);
    expect(run.trace[2]!.error).toBe('the tab of the latest observation has closed; the next observation shows the tab the run is on now');
    expect(views[3]).toMatch(
      /^Tabs: \[1\] current 'Offers' \S+\nTabs: tab \[2\] was closed by its page; the current tab is now \[1\]\.\nURL: .*\/offers$/m,
    );
    expect(run.ctx.page).toBe(run.page);
  });
});
