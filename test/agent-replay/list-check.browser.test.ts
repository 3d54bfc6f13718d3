import type { Browser, Page } from 'playwright-core';

import { planResult, readResult } from '../../server/agent/replay/extraction';
import type { ResultPlan } from '../../server/agent/replay/trajectory';
import { startBrowser } from '../support/live-server';
import { flowEditor, type FlowEditorOptions, flowRows } from './flow-editor-page';

/**
 * A replay answers right or not at all (issue 34): a recorded list read keeps what made it right (its container's
 * ancestry and heading, its items' shape) and the replay's read checks it on the live page before answering. In real
 * Chromium, through the recorder's own planResult and the replay's readResult, on a stand-in of the Node-RED page
 * where a replay answered {"flows":[{"name":"info"}]} as COMPLETED after the user added a flow.
 */
jest.setTimeout(60_000);

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await startBrowser();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
});

const FLOWS = ['Invoice ingest', 'Slack alerts', 'Nightly backup'];
const answer = (flows: string[]) => ({ flows: flows.map((name) => ({ name })) });
const show = (flows: string[], o?: FlowEditorOptions) => page.setContent(flowEditor(flows, o));

async function recorded(): Promise<ResultPlan> {
  await show(FLOWS);
  const res = await planResult(page, answer(FLOWS), answer(FLOWS), [], { constantsAllowed: false });
  if (!res.ok) throw new Error(res.reason);
  return res.value;
}

describe('a recorded list read on a page that changed', () => {
  it('the Node-RED case: a flow added above moves the list down the page; the replay reads the recorded list, all four flows', async () => {
    const plan = await recorded();
    await show([...FLOWS, 'Weather station']);
    expect(await readResult(page, plan, [])).toEqual({ ok: true, value: answer([...FLOWS, 'Weather station']) });
  });

  it('reads the list as it is when it shrank, was reordered or renamed, with controls added between its items', async () => {
    const plan = await recorded();
    await show(['Nightly backup', 'Invoice ingest (v2)']);
    expect(await readResult(page, plan, [])).toEqual({ ok: true, value: answer(['Nightly backup', 'Invoice ingest (v2)']) });
    await show(FLOWS);
    await page.evaluate(() =>
      document.querySelectorAll('.tree .row').forEach((r) => r.insertAdjacentHTML('afterend', '<button class="icon">settings</button>')),
    );
    expect(await readResult(page, plan, [])).toEqual({ ok: true, value: answer(FLOWS) });
  });

  it('a sibling list under its own heading does not confuse it, before or after the recorded one', async () => {
    const plan = await recorded();
    const sibling = `<h3>Subflows</h3><div class="tree">${flowRows(['Retry helper', 'Format date'])}</div>`;
    await show([...FLOWS, 'Weather station'], { after: sibling });
    expect(await readResult(page, plan, [])).toEqual({ ok: true, value: answer([...FLOWS, 'Weather station']) });
  });

  it('a renamed heading over a list that kept its shape and did not shrink is still the list', async () => {
    const plan = await recorded();
    await show([...FLOWS, 'Weather station'], { heading: 'My flows' });
    expect(await readResult(page, plan, [])).toEqual({ ok: true, value: answer([...FLOWS, 'Weather station']) });
  });

  it('does not answer when nothing says the recorded list is there: renamed heading and fewer items, a look-alike list, the list gone', async () => {
    const plan = await recorded();
    await show(['Invoice ingest'], { heading: 'Archived flows' });
    expect(await readResult(page, plan, [])).toEqual({
      ok: false,
      mismatch: true,
      reason: "the list has 1 items where 3 were recorded, and it is no longer under 'Flows'",
    });

    // A look-alike list right under the heading, where the recorded one stood: shorter, and none of its items were recorded.
    await show(FLOWS, { before: `<div class="tree">${flowRows(['Retry helper'])}</div>` });
    expect(await readResult(page, plan, [])).toEqual({
      ok: false,
      mismatch: true,
      reason: 'the list has 1 items where 3 were recorded, none of them one of those',
    });
    // Emptied: nothing says the list is the recorded one.
    await show([]);
    expect(await readResult(page, plan, [])).toMatchObject({ ok: false, mismatch: true });

    await show([]);
    await page.evaluate(() => document.querySelector('.tree')!.remove());
    expect(await readResult(page, plan, [])).toMatchObject({
      ok: false,
      mismatch: true,
      reason: expect.stringContaining('not on the page'),
    });
  });

  it('does not answer with a control label or an icon name where the recording read content', async () => {
    const plan = await recorded();
    await show(FLOWS);
    // The flows' names become icon buttons whose ligature text is the glyph's name.
    await page.evaluate(() =>
      document.querySelectorAll('.tree .label').forEach((l) => {
        l.innerHTML = '<i class="material-icons">info</i>';
      }),
    );
    expect(await readResult(page, plan, [])).toEqual({
      ok: false,
      mismatch: true,
      // Rows that hold nothing but controls and icons are not items: none of the recorded flows is left.
      reason: 'the list has 0 items where 3 were recorded, none of them one of those',
    });
  });
});

describe('a recorded single value on a page that changed', () => {
  const account = (above: string, plan = 'Pro') =>
    page.setContent(
      `<!doctype html><html><body><header>${above}</header><main><section id="account"><h3>Plan</h3><span>${plan}</span></section></main></body></html>`,
    );

  it('is read from the element it was recorded from, not from whatever now stands at its place', async () => {
    await account('<span>Welcome</span>');
    const res = await planResult(page, { plan: 'Pro' }, { plan: 'Pro' }, [], { constantsAllowed: false });
    if (!res.ok) throw new Error(res.reason);
    // A banner above adds a span: the recorded place (the 2nd span) now holds the banner's text.
    await account('<span>Welcome</span><span>Free trial ends soon</span>', 'Business');
    expect(await readResult(page, res.value, [])).toEqual({ ok: true, value: { plan: 'Business' } });
    await page.evaluate(() => document.querySelector('#account')!.remove());
    expect(await readResult(page, res.value, [])).toMatchObject({
      ok: false,
      mismatch: true,
      reason: expect.stringContaining('is not on the page'),
    });
  });
});
