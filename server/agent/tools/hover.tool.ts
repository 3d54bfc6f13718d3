import { z } from 'zod';

import { describeElement, takeSnapshot } from '../observation';
import { act, elementIndex, on, pageTool, REPLAY_ON_ELEMENT, settle, target, timeout } from './page-tool';

/** How many newly shown elements the result names (the next observation lists them all). */
const MAX_NAMED = 12;
/** The longest hover-intent delay waited for (jQuery hoverIntent's default interval is 100 ms; menus use up to 300). */
const HOVER_INTENT_MS = 350;

export const hoverTool = pageTool({
  name: 'hover',
  description:
    'Move the mouse over an element and leave it there: opens menus, submenus and tooltips that appear on hover. The result names what appeared.',
  params: z.object({ index: elementIndex }).strict(),
  writes: false,
  describe: (step) => `hover over${on(step)}`,
  replay: REPLAY_ON_ELEMENT,
  async execute(args, tc) {
    const { el, loc } = await target(tc, Number(args.index));
    await act(`hovering over ${describeElement(el)}`, () => loc.hover({ timeout: timeout(tc) }));
    // Menus open after a hover-intent delay (typically 100–300 ms) during which the DOM does not change at all:
    // an unchanged DOM counts as settled only after that lead; a menu that opened is then waited for as usual.
    await settle(tc, 1_000, HOVER_INTENT_MS);
    // One snapshot (tens of ms) tells the model at once whether the hover opened anything.
    const before = new Set(tc.snapshot.elements.map((e) => `${e.role} ${e.name}`));
    const after = await takeSnapshot(tc.page, { redactor: tc.redactor }).catch(() => null);
    const message = `hovered over ${describeElement(el)}`;
    if (!after) return { message, target: el, record: {} };
    const appeared = after.elements.filter((e) => !before.has(`${e.role} ${e.name}`)).map((e) => describeElement(e));
    if (!appeared.length) return { message: `${message}; nothing new appeared`, target: el, record: {} };
    const more = appeared.length > MAX_NAMED ? `\n… and ${appeared.length - MAX_NAMED} more` : '';
    return {
      message: `${message}; ${appeared.length} element(s) appeared (their indices are in the next observation):`,
      quoted: appeared.slice(0, MAX_NAMED).join('\n') + more,
      target: el,
      record: {},
    };
  },
});
