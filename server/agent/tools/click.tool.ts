import { z } from 'zod';

import { describeElement } from '../observation';
import { act, elementIndex, pageTool, settle, target, timeout } from './page-tool';

export const clickTool = pageTool({
  name: 'click',
  description: 'Click an element (button, link, checkbox, tab, option …).',
  params: z.object({ index: elementIndex }).strict(),
  async execute(args, tc) {
    const { el, loc } = await target(tc, Number(args.index));
    await act(`click on ${describeElement(el)}`, () => loc.click({ timeout: timeout(tc) }));
    await settle(tc);
    return { message: `clicked ${describeElement(el)}`, target: el, record: {} };
  },
});
