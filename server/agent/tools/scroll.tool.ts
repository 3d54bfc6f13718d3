import { z } from 'zod';

import { describeElement } from '../observation';
import { act, elementIndex, pageTool, settle, target, timeout } from './page-tool';

export const scrollTool = pageTool({
  name: 'scroll',
  description: 'Scroll the page up or down by about one screen, or bring an element into view (to load more content).',
  params: z.object({ direction: z.enum(['up', 'down']).default('down'), index: elementIndex.optional() }).strict(),
  async execute(args, tc) {
    const direction = args.direction === 'up' ? 'up' : 'down';
    if (args.index !== undefined) {
      const { el, loc } = await target(tc, Number(args.index));
      await act(`scrolling to ${describeElement(el)}`, () => loc.scrollIntoViewIfNeeded({ timeout: timeout(tc) }));
      await settle(tc, 300);
      return { message: `scrolled ${describeElement(el)} into view`, target: el, record: { direction } };
    }
    const height = tc.page.viewportSize()?.height ?? 800;
    await act('scrolling', () => tc.page.mouse.wheel(0, (direction === 'down' ? 1 : -1) * Math.round(height * 0.8)));
    await settle(tc, 300);
    return { message: `scrolled ${direction}`, record: { direction } };
  },
});
