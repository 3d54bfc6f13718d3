import { z } from 'zod';

import { describeElement } from '../observation';
import { ToolError } from '../result/errors';
import { clickCheckable, mayBeCheckable, probeCheckable } from './checkable';
import { coveredBeforeClick, explainCover, interceptorIn } from './covered';
import { clickDirectly } from './direct-click';
import { afterItemClick, itemState, mayExpand } from './expandable';
import { followRecordedLink, linkBeforeClick, linkRecord } from './link-shortcut';
import { act, elementIndex, observed, on, pageTool, settle, target, timeout } from './page-tool';

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
