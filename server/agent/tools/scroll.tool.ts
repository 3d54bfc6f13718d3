import { z } from 'zod';

import { describeElement } from '../observation';
import { inPage } from './in-page';
import { act, elementIndex, on, pageTool, REPLAY_ON_ELEMENT, settle, target, timeout } from './page-tool';

type Direction = 'up' | 'down' | 'left' | 'right';

interface Scrolled {
  /** What was scrolled: the element itself, its nearest scrollable ancestor, or nothing (no inner scroll area). */
  which: 'self' | 'ancestor' | 'none';
  /** The element is (partly) inside the viewport. */
  inView: boolean;
  moved?: number;
  /** Position and range after the scroll, on the axis scrolled. */
  at?: number;
  max?: number;
}

/**
 * Scrolls the element's own scroll area, or its nearest scrollable ancestor below the page (crossing shadow roots),
 * by 80 % of its visible size, with scrollBy: exact, and the scroll events it fires are what lazy lists listen
 * to (a wheel would also move the mouse and close a hover menu). `arg.dry` only reports what would be scrolled.
 */
const SCROLL = inPage<{ dx: number; dy: number; dry: boolean }, Scrolled>(`
var vertical = arg.dy !== 0;
function scrollable(e) {
  if (!e || e.nodeType !== 1 || e === document.scrollingElement || e === document.body || e === document.documentElement) return false;
  var st = getComputedStyle(e), o = vertical ? st.overflowY : st.overflowX;
  if (o !== 'auto' && o !== 'scroll' && o !== 'overlay') return false;
  return vertical ? e.scrollHeight > e.clientHeight + 1 : e.scrollWidth > e.clientWidth + 1;
}
function parentOf(e) { return e.parentElement || (e.getRootNode && e.getRootNode().host) || null; }
var r = el.getBoundingClientRect();
var inView = r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth && (r.width > 0 || r.height > 0);
var box = null, which = 'none';
if (scrollable(el)) { box = el; which = 'self'; }
else for (var a = parentOf(el); a; a = parentOf(a)) if (scrollable(a)) { box = a; which = 'ancestor'; break; }
if (!box || arg.dry) return { which: which, inView: inView };
var before = vertical ? box.scrollTop : box.scrollLeft;
box.scrollBy({ left: Math.round(arg.dx * box.clientWidth), top: Math.round(arg.dy * box.clientHeight), behavior: 'instant' });
var after = vertical ? box.scrollTop : box.scrollLeft;
var max = vertical ? box.scrollHeight - box.clientHeight : box.scrollWidth - box.clientWidth;
return { which: which, inView: inView, moved: Math.round(after - before), at: Math.round(after), max: Math.round(max) };`);

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
      const probe = await act(`scrolling ${what}`, () => loc.evaluate(SCROLL, { ...delta, dry: true }, { timeout: timeout(tc) }));
      if (!probe.inView) {
        await act(`scrolling to ${what}`, () => loc.scrollIntoViewIfNeeded({ timeout: timeout(tc) }));
        await settle(tc, 300);
        return { message: `scrolled ${what} into view`, target: el, record: { direction } };
      }
      if (probe.which !== 'none') {
        const s = await act(`scrolling ${what}`, () => loc.evaluate(SCROLL, { ...delta, dry: false }, { timeout: timeout(tc) }));
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

async function pageScroll(tc: Parameters<typeof settle>[0], delta: { dx: number; dy: number }) {
  const view = tc.page.viewportSize() ?? { width: 1280, height: 800 };
  await act('scrolling', () => tc.page.mouse.wheel(Math.round(delta.dx * view.width), Math.round(delta.dy * view.height)));
  await settle(tc, 300);
}
