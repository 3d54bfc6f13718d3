/**
 * In the page: the click tool's helpers for tree items and treegrid rows that open and close (see expandable.ts),
 * each on the element the model named.
 */
import { folderState } from '../observation/dom/structure.page';

export interface ItemState {
  /** Open (true), closed (false), or null when the element no longer says. */
  expanded: boolean | null;
  /** What else a click on the item may change (selected, current, checked, the URL): a click that did any of it did something. */
  mark: string;
}

/** Where the open/closed state is: the element, or the first cell of a treegrid row that moved it there. */
function carrier(el: Element): Element {
  if (el.hasAttribute('aria-expanded')) return el;
  const cell = el.querySelector(':scope > [aria-expanded]');
  return cell ?? el;
}

function expandedOf(el: Element): boolean | null {
  const c = carrier(el);
  const ae = c.getAttribute('aria-expanded');
  if (ae === 'true' || ae === 'false') return ae === 'true';
  const folder = folderState(el, el.getAttribute('role'));
  return folder === undefined ? null : folder;
}

function state(el: Element): ItemState {
  const a = (n: string) => el.getAttribute(n) || '';
  return { expanded: expandedOf(el), mark: [a('aria-selected'), a('aria-current'), a('aria-checked'), location.href].join('|') };
}

/** The item's own part: a row's first cell; for a tree item, everything but the sub-tree it holds. */
function ownOf(el: Element): { root: Element; nested: (n: Node) => boolean } {
  const root = el.matches('tr, [role=row]') ? (el.querySelector(':scope > td, :scope > th, :scope > [role=gridcell]') ?? el) : el;
  const nested = (n: Node) => {
    for (let p: Node | null = n; p && p !== root; p = p.parentNode)
      if (p !== el && p instanceof Element && p.matches('[role=group], ul, ol, [role=treeitem]')) return true;
    return false;
  };
  return { root, nested };
}

/** The box of the item's first visible text (its label), or null. */
function firstText(root: Element, nested: (n: Node) => boolean): DOMRect | null {
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    // a label has letters or digits; a twisty's glyph (▸, an icon font's character) or hidden text is not one
    if (!n.nodeValue || !/[\p{L}\p{N}]/u.test(n.nodeValue) || nested(n)) continue;
    if (n.parentElement && n.parentElement.closest('[aria-hidden=true]')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const rects = range.getClientRects();
    for (let i = 0; i < rects.length; i++) if (rects[i]!.width > 0 && rects[i]!.height > 0) return rects[i]!;
  }
  return null;
}

const EXPANDER_WORDS = /toggle|expand|collapse|caret|twist|arrow|chevron|disclos|triangle/i;
const NOT_EXPANDER = 'input, select, textarea, a[href], [role=checkbox], [role=radio], [role=switch], [role=link]';

/** Whether a click at (x, y) lands on the item's own part (not its sub-tree, not a checkbox or link inside it). */
function lands(el: Element, own: ReturnType<typeof ownOf>, x: number, y: number): boolean {
  const hit = document.elementFromPoint(x, y);
  if (!hit || !own.root.contains(hit) || own.nested(hit)) return false;
  const inner = hit.closest(NOT_EXPANDER);
  return !inner || !el.contains(inner) || inner === el;
}

/**
 * Where a person clicks to open or close the item, in viewport coordinates: a small element left of its label
 * (a twisty icon or button), else just left of the label's first letter, where a CSS ::before triangle is drawn
 * (no element to find: the page tells such a click by its position). Null when neither lands on the item itself.
 */
function expander(el: Element): { x: number; y: number } | null {
  el.scrollIntoView({ block: 'center', inline: 'nearest' });
  const own = ownOf(el);
  const text = firstText(own.root, own.nested);
  if (!text) return null;
  const midY = text.top + text.height / 2;
  const icons = Array.from(own.root.querySelectorAll('*')).filter((e) => {
    if (own.nested(e) || e.matches(NOT_EXPANDER)) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.width <= 40 && r.height > 0 && r.right <= text.left + 1 && r.top <= midY && r.bottom >= midY;
  });
  const named = (e: Element) => EXPANDER_WORDS.test(`${e.getAttribute('class') || ''} ${e.getAttribute('aria-label') || ''}`);
  icons.sort((a, b) => Number(named(b)) - Number(named(a)) || a.getBoundingClientRect().left - b.getBoundingClientRect().left);
  for (const icon of icons) {
    const r = icon.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (lands(el, own, x, y)) return { x, y };
  }
  const x = text.left - 8;
  return x > 0 && lands(el, own, x, midY) ? { x, y: midY } : null;
}

/** Focuses the element that carries the state (a row, a tree item, a first cell); whether focus landed on it. */
function focus(el: Element): boolean {
  const c = carrier(el) as HTMLElement;
  try {
    c.focus({ preventScroll: false });
  } catch {
    return false;
  }
  return document.activeElement === c;
}

export default { state, expander, focus };
