import { z } from 'zod';

import { describeElement } from '../observation';
import { act, elementIndex, on, pageTool, REPLAY_ON_ELEMENT, settle, target, timeout } from './page-tool';

export const pressTool = pageTool({
  name: 'press',
  description: 'Press a key or key combination (Enter, Escape, Tab, ArrowDown, Control+A …), on an element or on the page.',
  params: z
    .object({
      key: z
        .string()
        .regex(
          /^(?:(?:Control|Shift|Alt|Meta)\+)*(?:[A-Za-z0-9]|Enter|Tab|Escape|Backspace|Delete|Space|Home|End|PageUp|PageDown|ArrowUp|ArrowDown|ArrowLeft|ArrowRight|F[1-9]|F1[0-2])$/,
        ),
      index: elementIndex.optional(),
    })
    .strict(),
  // A key on a link follows it; any other key press (Enter in a form …) may change something.
  writes: (step) => step.target?.role !== 'link',
  describe: (step) => `press ${String(step.args.key)}${step.target ? ` on${on(step)}` : ''}`,
  replay: REPLAY_ON_ELEMENT,
  async execute(args, tc) {
    const key = String(args.key);
    if (args.index !== undefined) {
      const { el, loc } = await target(tc, Number(args.index));
      await act(`pressing ${key}`, () => loc.press(key, { timeout: timeout(tc) }));
      await settle(tc);
      return { message: `pressed ${key} on ${describeElement(el)}`, target: el, record: { key } };
    }
    await act(`pressing ${key}`, () => tc.page.keyboard.press(key));
    await settle(tc);
    return { message: `pressed ${key}`, record: { key } };
  },
});
