import { randomUUID } from 'node:crypto';

import type { Page } from 'playwright-core';

import { takeSnapshot } from '../../server/agent/observation';
import { parameterSlots } from '../../server/agent/planner/placeholders';
import { planResult } from '../../server/agent/replay/extraction';
import { replayTrajectory } from '../../server/agent/replay/replayer';
import { describeStep, type Trajectory, TRAJECTORY_VERSION } from '../../server/agent/replay/trajectory';
import { ToolError } from '../../server/agent/result/errors';
import type { RunState } from '../../server/agent/run/state';
import { renderTabs } from '../../server/agent/tabs/render-tabs';
import { MAX_TABS, watchTabs } from '../../server/agent/tabs/run-tabs';
import { closeRunBrowser } from '../../server/agent/worker/run-session';
import { html, indexOf, type Run, useRig } from './tools-rig';

/**
 * New tabs and popups: noticed at the context level and listed in the observation, switched to and closed by
 * the model, closed and reported when they land outside the provider, recorded by URL and title so a replay
 * finds them again; a tab that vanished is a tool error, never a crash.
 */
jest.setTimeout(90_000);

const rig = useRig();

let start: string;
beforeAll(() => {
  const outside = rig.outside.page('/grab', html('Outside', '<h1>Not the provider</h1>'));
  start = new URL(
    rig.site.page(
      '/reports',
      html(
        'Reports',
        `<main><h1>Reports</h1>
        <p><a id="q3" href="/report/q3?run=${randomUUID()}" target="_blank">Open Q3 report</a></p>
        <p><button type="button" id="q4" onclick="window.open('/report/q4')">Open Q4 report</button></p>
        <p><a href="${outside}" target="_blank">Partner site</a></p>
        <p><button type="button" onclick="window.open('${outside}?popup=1')">Partner popup</button></p>
        <p><button type="button" onclick="window.open('/flash')">Flash</button></p>
        <p><button type="button" onclick="for (var i = 0; i < 12; i++) window.open('/report/q4?n=' + i)">Open everything</button></p>
        </main>`,
        // Each load links Q3 with a new query: the number and the query of a tab differ between runs.
        `document.getElementById('q3').href = '/report/q3?run=' + Math.random().toString(36).slice(2);`,
      ),
    ),
  ).pathname;
  rig.site.page('/report/q3', html('Report Q3', '<main><h1>Q3 report</h1><p>Revenue: 1,234,567 USD</p></main>'));
  rig.site.page('/report/q4', html('Report Q4', '<main><h1>Q4 report</h1><p>Revenue: 2,000,001 USD</p></main>'));
  // A tab that closes itself (window.close): when it does is the test's cue (closeItself), not a timer racing the run.
  rig.site.page('/flash', html('Flash', '<p>Closing soon</p>'));
});

/** The page's own script closes its tab (played by page.evaluate, as the page would run it). */
const closeItself = (page: Page) => page.evaluate(() => window.close()).catch(() => undefined);

async function click(run: Run, role: string, name: string) {
  const s = await takeSnapshot(run.ctx.page);
  return rig.tool(run, 'click', { index: indexOf(s, role, name) }, s);
}

const until = async (cond: () => boolean | Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('tabs', () => {
  it('lists a tab a link opened; switch_tab moves the run to it; close_tab comes back; the closed tab is an error', async () => {
    const run = await rig.open(start);
    const tabs = watchTabs(run.page, rig.policy);
    await click(run, 'link', 'Open Q3 report');
    await until(() => run.context.pages().length === 2);
    // Its title is read with a short budget ('' while the tab has not parsed it): the list is read once it loaded.
    await run.context.pages()[1]!.waitForLoadState('load');
    const view = await tabs.view();
    expect(view.tabs).toEqual([
      { id: 1, url: `${rig.site.origin}/reports`, title: 'Reports', current: true, fresh: false },
      { id: 2, url: expect.stringMatching(/\/report\/q3\?run=/), title: 'Report Q3', current: false, fresh: true },
    ]);
    const block = renderTabs(view, {
      redactor: rig.toolContext(run, await takeSnapshot(run.page)).redactor,
      boundary: 'UNTRUSTED-Q7',
      markers: [],
    });
    expect(block).toMatch(
      /^Tabs: \[1\] current 'Reports' http:\/\/127\.0\.0\.1:\d+\/reports, \[2\] 'Report Q3' http:\/\/127\.0\.0\.1:\d+\/report\/q3\?run=\w+ \(new\)$/,
    );

    const switched = await rig.tool(run, 'switch_tab', { tab: 2 });
    expect(switched.message).toBe('switched to tab [2]; the next observation shows its page');
    expect(switched.record).toEqual({ url: expect.stringMatching(/^\/report\/q3\?run=/), title: 'Report Q3' });
    expect(tabs.currentId).toBe(2);
    run.ctx.page = await tabs.currentPage();
    expect((await takeSnapshot(run.ctx.page)).lines.map((l) => ('s' in l ? l.s : '')).join(' ')).toContain('Revenue: 1,234,567 USD');

    const closed = await rig.tool(run, 'close_tab', {});
    expect(closed.message).toBe('closed tab [2]; the current tab is [1]');
    expect(tabs.currentId).toBe(1);
    expect(run.context.pages()).toHaveLength(1);
    run.ctx.page = await tabs.currentPage();
    await expect(rig.tool(run, 'switch_tab', { tab: 2 })).rejects.toThrow(
      new ToolError('there is no open tab [2] (it closed, or never existed); the open tabs are [1]'),
    );
    await expect(rig.tool(run, 'close_tab', { tab: 1 })).rejects.toThrow('tab [1] is the only tab of this run; it stays open');
  });

  it('closes and reports a new tab or popup that goes outside the provider, and never switches to it', async () => {
    const run = await rig.open(start);
    const tabs = watchTabs(run.page, rig.policy);
    // The fence can refuse both requests before their tabs reach Playwright (a loaded machine): the test waits for the
    // two tabs themselves to open and be closed, which the tab list does once it has noted them.
    const opened: Page[] = [];
    run.context.on('page', (page) => opened.push(page));
    await click(run, 'link', 'Partner site');
    await click(run, 'button', 'Partner popup');
    await until(() => run.blocked.filter((u) => u.startsWith(rig.outside.origin)).length >= 2);
    await until(() => opened.length >= 2 && opened.every((page) => page.isClosed()));
    await until(async () => (await tabs.list()).length === 1 && run.context.pages().length === 1);
    const host = new URL(rig.outside.origin).host;
    // Both requests were refused by the fence; both tabs are gone; the run is still on tab [1].
    expect(run.blocked.filter((u) => u.startsWith(rig.outside.origin)).length).toBeGreaterThanOrEqual(2);
    expect(tabs.currentId).toBe(1);
    expect(tabs.page).toBe(run.page);
    const notes = tabs.takeNotes();
    expect(notes).toEqual([{ kind: 'refused', host }]); // two popups, said once
    const redactor = rig.toolContext(run, await takeSnapshot(run.page)).redactor;
    expect(renderTabs({ tabs: await tabs.list(), notes }, { redactor, boundary: 'b0', markers: [] })).toBe(
      `Tabs: a new tab to ${host} was closed: it did not open a page of the provider's site.`,
    );
  });

  it('keeps at most MAX_TABS tabs; the current tab closing itself moves the run back to its opener', async () => {
    const run = await rig.open(start);
    const tabs = watchTabs(run.page, rig.policy);
    await click(run, 'button', 'Open everything');
    await until(async () => tabs.takeNotes().some((n) => n.kind === 'limit'));
    await until(() => run.context.pages().length === MAX_TABS);
    for (const t of (await tabs.list()).slice(1)) await tabs.close(t.id);
    await click(run, 'button', 'Flash');
    await until(() => run.context.pages().length === 2);
    await run.context.pages()[1]!.waitForLoadState('load');
    const flash = (await tabs.list()).find((t) => t.title === 'Flash')!;
    await closeItself(await tabs.switchTo(flash.id));
    await until(() => tabs.currentId === 1, 5_000);
    expect(await tabs.currentPage()).toBe(run.page);
    expect(tabs.takeNotes()).toContainEqual({ kind: 'closed', id: flash.id, now: 1 });
  });

  it('the run end closes every tab of the run', async () => {
    const run = await rig.open(start);
    await click(run, 'button', 'Open Q4 report');
    await until(() => run.context.pages().length === 2);
    const pages = run.context.pages();
    await closeRunBrowser({ context: run.context } as RunState);
    expect(pages.map((p) => p.isClosed())).toEqual([true, true]);
  });
});

describe('tabs through the planner, and their replay', () => {
  const responseFormat = { revenue: 'integer - Q3 revenue in USD' };

  it('the model opens a report in a new tab, switches to it by the Tabs line, reads it; the replay finds the tab by URL and title', async () => {
    const run = await rig.open(start, { action: 'Read the Q3 revenue', responseFormat });
    const seen: string[] = [];
    rig.model.setScript((t) => {
      const o = t.observation!;
      seen.push(o.text);
      const m = /Revenue: ([\d,]+) USD/.exec(o.text);
      if (m) return { tool: 'done', args: { success: true, data: { revenue: Number(m[1]!.replace(/,/g, '')) } } };
      const tab = /^Tabs: .*\[(\d+)\] 'Report Q3'/m.exec(o.text);
      if (tab) return { tool: 'switch_tab', args: { tab: Number(tab[1]) } };
      return { tool: 'click', args: { index: o.find('link', 'Open Q3 report') } };
    });
    const planned = await rig.plan(run);
    expect(planned.outcome).toMatchObject({ status: 'completed', result: { revenue: 1234567 } });
    expect(seen[0]).not.toContain('Tabs:'); // one tab: no block
    expect(seen[1]).toMatch(/^Tabs: \[1\] current 'Reports' \S+, \[2\] 'Report Q3' \S+ \(new\)\nURL: /m);
    expect(seen[2]).toMatch(/^Tabs: \[1\] 'Reports' \S+, \[2\] current 'Report Q3' \S+\nURL: .*\/report\/q3/m);
    const steps = planned.completion!.steps;
    expect(steps.map(describeStep)).toEqual([
      "click link 'Open Q3 report' in main",
      'switch to the tab showing /report/q3?run=' + /run=(\w+)/.exec(String(steps[1]!.args.url))![1] + " 'Report Q3'",
    ]);
    expect(run.ctx.page.url()).toMatch(/\/report\/q3/);

    const slots = parameterSlots({});
    const plan = await planResult(run.ctx.page, planned.completion!.rawData, planned.completion!.data, slots, { constantsAllowed: false });
    expect(plan.ok).toBe(true);
    const trajectory: Trajectory = {
      version: TRAJECTORY_VERSION,
      mode: 'read_write',
      startPath: start,
      parameterNames: [],
      steps,
      result: plan.ok ? plan.value : { kind: 'const', value: null },
    };

    const calls = rig.model.calls;
    const again = await rig.open(start, { action: 'Read the Q3 revenue', responseFormat });
    const replayed = await replayTrajectory(again.ctx, trajectory, { slots });
    expect(replayed).toEqual({ ok: true, result: { revenue: 1234567 } });
    expect(rig.model.calls).toBe(calls);
    expect(again.ctx.page).not.toBe(again.page);
    expect(again.trace.map((s) => [s.tool, s.outcome])).toEqual([
      ['click', 'ok'],
      ['switch_tab', 'ok'],
      ['extract', 'ok'],
    ]);
  });

  it('a replay whose tab never opens diverges with the reason, before reading anything', async () => {
    const run = await rig.open(start, { action: 'Read the Q3 revenue', responseFormat });
    const trajectory: Trajectory = {
      version: TRAJECTORY_VERSION,
      mode: 'read_write',
      startPath: start,
      parameterNames: [],
      steps: [{ tool: 'switch_tab', args: { url: '/report/q9', title: 'Report Q9' } }],
      result: { kind: 'const', value: null },
    };
    const replayed = await replayTrajectory(run.ctx, trajectory, { slots: [], resolveWaitMs: 300 });
    expect(replayed).toEqual({
      ok: false,
      reason: "step 1 (switch to the tab showing /report/q9 'Report Q9'): no open tab shows /report/q9 'Report Q9'",
      done: [],
    });
  });

  it('a tab that closed between the observation and switch_tab is an error the model sees; the run goes on', async () => {
    const run = await rig.open(start, { action: 'Look at the flash page', responseFormat: { seen: 'boolean' } });
    let flash: Page | undefined;
    run.context.on('page', (page) => (flash = page));
    const closedItself = async () => {
      if (flash) await closeItself(flash);
      return flash?.isClosed() ?? false;
    };
    rig.model.setScript((t) => {
      if (t.history.length === 0) return { tool: 'click', args: { index: t.observation!.find('button', 'Flash') } };
      // The flash tab closes itself while the model thinks; the model answers once it did.
      if (t.history.length === 1) return { until: closedItself, then: { tool: 'switch_tab', args: { tab: 2 } } };
      return {
        tool: 'done',
        args: {
          success: true,
          data: { seen: /no open tab \[2\]/.test(t.lastUser) && /tab \[2\] was closed by its page/.test(t.lastUser) },
        },
      };
    });
    const planned = await rig.plan(run);
    expect(planned.outcome).toMatchObject({ status: 'completed', result: { seen: true } });
    expect(run.trace.map((s) => [s.tool, s.outcome])).toEqual([
      ['click', 'ok'],
      ['switch_tab', 'error'],
      ['done', 'ok'],
    ]);
    expect(run.ctx.page).toBe(run.page);
  });
});
