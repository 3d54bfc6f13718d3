import { z } from 'zod';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageFunction } from '../../page-code/page-function';
import { describeElement, evaluateOnElement } from '../observation';
import { remaining } from '../result/errors';
import { act, elementIndex, on, pageTool, REPLAY_ON_ELEMENT, settle, target, timeout } from './page-tool';
import type scrollInPage from './scroll.page';
import type { Scrolled } from './scroll.page';

type Direction = 'up' | 'down' | 'left' | 'right';

/** In the page (scroll.page.ts): scrolls the element's own scroll area or its nearest scrollable ancestor. */
const SCROLL = pageFunction<typeof scrollInPage>(PAGE_ENTRIES.scroll);

const STEP = 0.8;

function where(s: Scrolled, d: Direction): string {
  if (!s.moved)
    return `it did not move: already at the ${d === 'up' ? 'top' : d === 'down' ? 'bottom' : d === 'left' ? 'left end' : 'right end'}`;
  const end = d === 'up' || d === 'left' ? s.at! <= 0 : s.at! >= s.max! - 1;
  return `now ${s.at} of ${s.max} px${end ? `, at the ${d === 'up' ? 'top' : d === 'down' ? 'bottom' : 'end'}` : `, more ${d === 'up' ? 'above' : d === 'down' ? 'below' : `to the ${d}`}`}`;
}

export const scrollTool = pageTool({
  name: 'scroll',
  description:
    'Scroll by about one screen. Without index: the page. With the index of a scrollable area (a list, panel, table or chat with its own scroll bar) or of an element inside one: that area. With the index of an element out of view: bring it into view.',
  params: z.object({ direction: z.enum(['up', 'down', 'left', 'right']).default('down'), index: elementIndex.optional() }).strict(),
  writes: false,
  describe: (step) => (step.target ? `scroll to${on(step)}` : `scroll ${String(step.args.direction ?? 'down')}`),
  replay: REPLAY_ON_ELEMENT,
  async execute(args, tc) {
    const direction = (['up', 'down', 'left', 'right'].includes(String(args.direction)) ? args.direction : 'down') as Direction;
    const sign = direction === 'up' || direction === 'left' ? -1 : 1;
    const horizontal = direction === 'left' || direction === 'right';
    const delta = { dx: horizontal ? sign * STEP : 0, dy: horizontal ? 0 : sign * STEP };
    if (args.index !== undefined) {
      const { el, loc } = await target(tc, Number(args.index));
      const what = describeElement(el);
      const probe = await act(`scrolling ${what}`, () => evaluateOnElement(loc, SCROLL, { ...delta, dry: true }, { timeout: timeout(tc) }));
      if (!probe.inView) {
        await act(`scrolling to ${what}`, () => loc.scrollIntoViewIfNeeded({ timeout: timeout(tc) }));
        await settle(tc, 300);
        return { message: `scrolled ${what} into view`, target: el, record: { direction } };
      }
      if (probe.which !== 'none') {
        const s = await act(`scrolling ${what}`, () => evaluateOnElement(loc, SCROLL, { ...delta, dry: false }, { timeout: timeout(tc) }));
        await settle(tc, 300);
        const area = s.which === 'self' ? what : `the scroll area around ${what}`;
        return { message: `scrolled ${area} ${direction}: ${where(s, direction)}`, target: el, record: { direction } };
      }
      // In view and in no scroll area of its own: the page is what scrolls.
      await pageScroll(tc, delta);
      return { message: `${what} has no scroll area of its own; scrolled the page ${direction}`, target: el, record: { direction } };
    }
    await pageScroll(tc, delta);
    return { message: `scrolled ${direction}`, record: { direction } };
  },
});

/** The page's scroll position and how far it can go: [x, y, max x, max y]. */
const POSITION =
  '[scrollX, scrollY, Math.max(0, document.documentElement.scrollWidth - innerWidth), Math.max(0, document.documentElement.scrollHeight - innerHeight)]';
/** The most a page's scroll is waited for to start and come to rest. */
const SCROLL_WAIT_MS = 1_500;

type Position = [number, number, number, number];

async function pageScroll(tc: Parameters<typeof settle>[0], delta: { dx: number; dy: number }) {
  const view = tc.page.viewportSize() ?? { width: 1280, height: 800 };
  const position = () => tc.page.evaluate<Position>(POSITION).catch(() => null);
  const before = await position();
  await act('scrolling', () => tc.page.mouse.wheel(Math.round(delta.dx * view.width), Math.round(delta.dy * view.height)));
  // A wheel moves the page asynchronously (in the compositor, smoothly): the next look must see the page where the
  // scroll ends, not where it started (a loaded machine's test read the page before it had moved).
  if (before && canMove(before, delta)) await untilScrolled(tc, before, position);
  await settle(tc, 300);
}

function canMove([x, y, maxX, maxY]: Position, { dx, dy }: { dx: number; dy: number }): boolean {
  return (dy > 0 && y < maxY - 1) || (dy < 0 && y > 0) || (dx > 0 && x < maxX - 1) || (dx < 0 && x > 0);
}

/** Until the page has moved from `before` and then held still between two reads, bounded (the wheel may have scrolled an area under the mouse instead). */
async function untilScrolled(tc: Parameters<typeof settle>[0], before: Position, position: () => Promise<Position | null>) {
  const end = Date.now() + remaining(tc.run, SCROLL_WAIT_MS);
  let last = before;
  let moved = false;
  while (Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    const now = await position();
    if (!now) return; // the page navigated or closed
    const still = now[0] === last[0] && now[1] === last[1];
    if (now[0] !== before[0] || now[1] !== before[1]) {
      if (moved && still) return;
      moved = true;
    }
    last = now;
  }
}
