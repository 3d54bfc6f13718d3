/**
 * In the page: the scroll tool's scroll of an element's own scroll area, or of its nearest scrollable ancestor
 * below the page (crossing shadow roots), by a share of its visible size (dx, dy: -0.8 … 0.8), with scrollBy:
 * exact, and the scroll events it fires are what lazy lists listen to (a wheel would also move the mouse and close
 * a hover menu). `dry` only reports what would be scrolled.
 */
export interface ScrollArgs {
  dx: number;
  dy: number;
  dry: boolean;
}

export interface Scrolled {
  /** What was scrolled: the element itself, its nearest scrollable ancestor, or nothing (no inner scroll area). */
  which: 'self' | 'ancestor' | 'none';
  /** The element is (partly) inside the viewport. */
  inView: boolean;
  moved?: number;
  /** Position and range after the scroll, on the axis scrolled. */
  at?: number;
  max?: number;
}

export default function scroll(el: Element, arg: ScrollArgs): Scrolled {
  const vertical = arg.dy !== 0;
  function scrollable(e: Element | null): e is Element {
    if (!e || e.nodeType !== 1 || e === document.scrollingElement || e === document.body || e === document.documentElement) return false;
    const st = getComputedStyle(e);
    const o = vertical ? st.overflowY : st.overflowX;
    if (o !== 'auto' && o !== 'scroll' && o !== 'overlay') return false;
    return vertical ? e.scrollHeight > e.clientHeight + 1 : e.scrollWidth > e.clientWidth + 1;
  }
  function parentOf(e: Element): Element | null {
    return e.parentElement || (e.getRootNode && (e.getRootNode() as ShadowRoot).host) || null;
  }
  const r = el.getBoundingClientRect();
  const inView = r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth && (r.width > 0 || r.height > 0);
  let box: Element | null = null;
  let which: Scrolled['which'] = 'none';
  if (scrollable(el)) {
    box = el;
    which = 'self';
  } else
    for (let a = parentOf(el); a; a = parentOf(a))
      if (scrollable(a)) {
        box = a;
        which = 'ancestor';
        break;
      }
  if (!box || arg.dry) return { which, inView };
  const before = vertical ? box.scrollTop : box.scrollLeft;
  box.scrollBy({ left: Math.round(arg.dx * box.clientWidth), top: Math.round(arg.dy * box.clientHeight), behavior: 'instant' });
  const after = vertical ? box.scrollTop : box.scrollLeft;
  const max = vertical ? box.scrollHeight - box.clientHeight : box.scrollWidth - box.clientWidth;
  return { which, inView, moved: Math.round(after - before), at: Math.round(after), max: Math.round(max) };
}
