import { accName, textOf } from './roles.page';
import { byId, clip, isInput, norm, shown, styleOf, upOf, viewOf } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): what the snapshot asks of one element while it walks — whether a listener
 * makes it clickable, how a checkbox or radio can be clicked, what a custom select shows, whether a box scrolls.
 */

/** React (props on the node) and Vue (invokers on the node): handlers a listener query on the node itself misses. */
export function frameworkHandler(el: Element): boolean {
  const keys = Object.keys(el);
  for (const k of keys) {
    // data properties only: a getter would run page code in the middle of the walk
    const d = Object.getOwnPropertyDescriptor(el, k);
    const p = (d && d.value) as Record<string, unknown> | null | undefined;
    if (k.indexOf('__reactProps$') === 0 || k.indexOf('__reactEventHandlers$') === 0) {
      if (p && (p.onClick || p.onMouseDown || p.onMouseUp || p.onPointerDown || p.onPointerUp)) return true;
    } else if (k === '_vei' && p && (p.onClick || p.onMousedown || p.onMouseup || p.onPointerdown || p.onPointerup)) return true;
  }
  return false;
}

export function isToggle(c: Element | null | undefined): c is HTMLInputElement {
  return !!c && isInput(c) && (c.type === 'checkbox' || c.type === 'radio');
}

/** Whether a click on the input itself lands on it (Playwright clicks the centre and checks what it hits). */
export function operable(inp: Element): boolean {
  const st = styleOf(inp);
  if (!st || st.display === 'none' || st.visibility !== 'visible' || st.pointerEvents === 'none') return false;
  if ((st.clip && st.clip !== 'auto' && st.position === 'absolute') || (st.clipPath && st.clipPath !== 'none')) return false;
  const r = inp.getBoundingClientRect();
  if (r.width < 4 || r.height < 4) return false;
  const w = viewOf(inp);
  const cx = r.left + r.width / 2;
  const cy = r.top + r.height / 2;
  if (cx < 0 || cy < 0 || cx >= w.innerWidth || cy >= w.innerHeight) return parseFloat(st.opacity) > 0.1;
  const root = inp.getRootNode() as Document | ShadowRoot;
  const hit = (typeof root.elementFromPoint === 'function' ? root : inp.ownerDocument).elementFromPoint(cx, cy);
  return hit === inp;
}

export function visibleLabel(inp: HTMLInputElement): HTMLLabelElement | null {
  const ls = inp.labels || [];
  for (let i = 0; i < ls.length; i++) {
    const r = ls[i]!.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && shown(ls[i]!)) return ls[i]!;
  }
  return null;
}

/** No label: the nearest visible wrapper a person would click (a custom switch), else null. */
export function clickableWrapper(inp: Element): Element | null {
  for (let a = upOf(inp), d = 0; a && d < 3 && a.tagName !== 'BODY'; a = upOf(a), d++) {
    const st = styleOf(a);
    const r = a.getBoundingClientRect();
    if (st && st.cursor === 'pointer' && r.width >= 8 && r.height >= 8 && shown(a)) return a;
  }
  return null;
}

/** What a custom select shows as chosen: its text without the label it holds (a floating label inside the box). */
export function shownValue(el: Element): string {
  let showing = norm(textOf(el, 0));
  const ids = norm(el.getAttribute('aria-labelledby'));
  if (ids)
    ids.split(' ').forEach((id) => {
      const l = byId(el, id);
      if (!l || l === el || !el.contains(l)) return;
      const lt = norm(textOf(l, 0));
      if (lt) showing = norm(showing.indexOf(lt) === 0 ? showing.slice(lt.length) : showing.replace(lt, ' '));
    });
  return showing;
}

/** What the snapshot lists as a control (tabindex=-1 only makes an element focusable by script: a menu item's wrapper). */
const HAS_CONTROL =
  'a[href],button,input,select,textarea,[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],[onclick],[tabindex]:not([tabindex="-1"])';

export function hasControl(el: Element): boolean {
  if (el.querySelector(HAS_CONTROL)) return true;
  return !!(el.shadowRoot && el.shadowRoot.querySelector(HAS_CONTROL));
}

/** What a keyboard host holds: the items it moves focus among. */
const HOSTED = 'ol,ul,table,[role=list],[role=tree],[role=treegrid],[role=grid],[role=listbox]';
const NATIVE_CONTROL: Record<string, 1> = { A: 1, BUTTON: 1, INPUT: 1, SELECT: 1, TEXTAREA: 1, SUMMARY: 1 };

/**
 * A box focusable by its tabindex alone (no role, no onclick, not a native control) that holds a list, a table or
 * controls: a widget's keyboard host (a tree that moves among its items with the arrow keys, as an outline sidebar
 * does), not one button. Its content is walked like any other, so its items are listed one by one rather than run
 * together into one button's name.
 */
export function isFocusHost(el: Element, role: string | null): boolean {
  if (role || NATIVE_CONTROL[el.tagName] || el.hasAttribute('onclick') || !el.hasAttribute('tabindex')) return false;
  return !!el.querySelector(HOSTED) || hasControl(el);
}

/**
 * Whether a control holds controls of its own, listed after it: one by its markup (a row's links, a button in a
 * card-link), or — in a control that opens and closes something — the expander icon a listener alone makes
 * clickable (a navigation tree item's arrow). Other content of a control is only its name; its listeners are not
 * asked for (a button's spans would use up the listener queries the rest of the page needs).
 */
export function holdsControls(el: Element): boolean {
  if (!el.childElementCount && !el.shadowRoot) return false;
  return el.hasAttribute('aria-expanded') || hasControl(el);
}

export type ScrollState = 'more-above-and-below' | 'more-below' | 'more-above';

export function scrollState(el: Element, st: CSSStyleDeclaration): ScrollState | null {
  const oy = st.overflowY;
  if ((oy !== 'auto' && oy !== 'scroll') || el.clientHeight < 40 || el.scrollHeight <= el.clientHeight + 4) return null;
  const above = el.scrollTop > 2;
  const below = el.scrollTop + el.clientHeight < el.scrollHeight - 2;
  return above && below ? 'more-above-and-below' : below ? 'more-below' : above ? 'more-above' : null;
}

/** The name of a scrollable box: its own, its first heading's, or the start of its text. */
export function boxName(el: Element, role: string | null): string {
  const nm = accName(el, role);
  if (nm) return nm;
  const h = el.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]');
  if (h) return norm(textOf(h, 0));
  return clip(norm(String(el.textContent || '').slice(0, 200)), 40);
}
