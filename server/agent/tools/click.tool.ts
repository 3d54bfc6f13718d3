import type { Locator } from 'playwright-core';
import { z } from 'zod';

import { describeElement } from '../observation';
import { ToolError } from '../result/errors';
import { clickCheckable, mayBeCheckable, probeCheckable } from './checkable';
import { coveredBeforeClick, explainCover, interceptorIn } from './covered';
import { clickDirectly } from './direct-click';
import { afterItemClick, itemState, mayExpand } from './expandable';
import { followRecordedLink, linkBeforeClick, linkRecord } from './link-shortcut';
import { act, elementIndex, observed, on, pageTool, settle, target, timeout } from './page-tool';

/** How long a control observed disabled may take to turn enabled before the click gives up on it. */
const DISABLED_GRACE_MS = 1_000;

async function enabledWithin(loc: Locator, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await loc.isEnabled({ timeout: Math.max(1, until - Date.now()) }).catch(() => false)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const clickTool = pageTool({
  name: 'click',
  description:
    'Click an element (button, link, checkbox, radio, switch, tab, option …). A checkbox, radio or switch is checked afterwards: if its state did not change, you get an error.',
  params: z.object({ index: elementIndex }).strict(),
  // Following a link only moves; a click on anything else may change something.
  writes: (step) => step.target?.role !== 'link',
  describe: (step) => `click${on(step)}`,
  replay: {
    target: 'element',
    // The recorded href is the shortcut's, not an argument of the click.
    args: async ({ href: _href, ...rest }) => rest,
    instead: followRecordedLink,
  },
  async execute(args, tc) {
    const index = Number(args.index);
    const el = observed(tc, index);
    // A link's href, kept when the click turns out to be the plain navigation to it (a replay may then open it directly).
    const link = el.role === 'link' ? await linkBeforeClick(tc, el) : null;
    try {
      // A tree item or treegrid row: its state before the click, to tell whether the click opened or closed it (expandable.ts).
      const item = mayExpand(el) ? await target(tc, index).then(async ({ loc }) => ({ loc, before: await itemState(loc, tc) })) : null;
      const clicked = async () => {
        await settle(tc);
        return item?.before ? afterItemClick(tc, el, item.loc, item.before) : `clicked ${describeElement(el)}`;
      };
      // A still, uncovered element of the top document is clicked at once (direct-click.ts); anything else, and any
      // checkable control (its state is verified), goes through Playwright's waiting click.
      if (!mayBeCheckable(el) && (await act(`click on ${describeElement(el)}`, () => clickDirectly(tc.page, el))) === 'clicked') {
        return { message: await clicked(), target: el, record: linkRecord(tc, link) };
      }
      const { loc } = await target(tc, index);
      const checkable = mayBeCheckable(el) ? await probeCheckable(loc, tc) : null;
      if (checkable) {
        const message = await clickCheckable(tc, el, loc, checkable);
        await settle(tc, 100);
        return { message, target: el, record: {} };
      }
      const what = `click on ${describeElement(el)}`;
      // Shown disabled, the control may turn enabled in a moment (validation on input); past that the model hears why
      // at once, not after the click's whole wait: the page does not take it until something it needs is there.
      if (el.states.disabled && !(await enabledWithin(loc, DISABLED_GRACE_MS)))
        throw new ToolError(`${what} failed: it is disabled (the page does not take it yet: something it needs may be missing or invalid)`);
      const covered = await coveredBeforeClick(tc, el, loc);
      if (covered) throw new ToolError(`${what} failed: ${covered}`);
      await act(
        what,
        () => loc.click({ timeout: timeout(tc) }),
        async (err) => {
          const why = interceptorIn(err) ? await explainCover(tc, el, err) : null;
          return why ? `${what} failed: ${why}` : null;
        },
      );
      return { message: await clicked(), target: el, record: linkRecord(tc, link) };
    } finally {
      link?.stop();
    }
  },
});
