/**
 * In the page: the click tool's helpers for checkboxes, radios and switches (see checkable.ts), each on the
 * element the model named. The element is, labels or wraps one checkable control; `control` finds it.
 */
export type Checked = boolean | 'mixed' | null;

export interface Probe {
  kind: string;
  checked: Checked;
  /** A click at the element's centre reaches the element. */
  hits: boolean;
}

const isInput = (e: Element): e is HTMLInputElement => e.tagName === 'INPUT';
const isToggleInput = (e: Element): e is HTMLInputElement => isInput(e) && (e.type === 'checkbox' || e.type === 'radio');

/** The checkable control the element is, labels, or wraps (the only one inside it), or null. */
export function control(e: Element): Element | null {
  const t = e.tagName;
  const role = (e.getAttribute('role') || '').toLowerCase();
  if (isToggleInput(e)) return e;
  if (/^(checkbox|radio|switch|menuitemcheckbox|menuitemradio)$/.test(role)) return e;
  if (t === 'LABEL' && (e as HTMLLabelElement).control) {
    const c = (e as HTMLLabelElement).control!;
    const cr = (c.getAttribute('role') || '').toLowerCase();
    if (isToggleInput(c) || /^(checkbox|radio|switch)$/.test(cr)) return c;
  }
  // A wrapper of one control (a design system's checkbox component), not a card or form that holds other controls.
  if (
    t === 'A' ||
    t === 'BUTTON' ||
    t === 'FORM' ||
    e.querySelector('a[href],button:not([role]),select,textarea,input:not([type=checkbox]):not([type=radio])')
  )
    return null;
  const inner = e.querySelectorAll('input[type=checkbox],input[type=radio],[role=checkbox],[role=radio],[role=switch]');
  return inner.length === 1 ? inner[0]! : null;
}

export function stateOf(c: Element): Checked {
  if (isInput(c)) return c.indeterminate ? 'mixed' : c.checked;
  const a = c.getAttribute('aria-checked');
  return a === 'true' ? true : a === 'false' ? false : a === 'mixed' ? 'mixed' : null;
}

function kindOf(c: Element): string {
  if (isInput(c)) return c.type;
  const r = (c.getAttribute('role') || '').toLowerCase();
  return r === 'menuitemradio' ? 'radio' : r === 'menuitemcheckbox' ? 'checkbox' : r;
}

/** Whether a click at (x, y) reaches e (or something inside it), through its shadow root. */
function reaches(e: Element, x: number, y: number): boolean {
  const own = e.getRootNode ? (e.getRootNode() as Document | ShadowRoot) : null;
  const root = own && typeof own.elementFromPoint === 'function' ? own : e.ownerDocument;
  const h = root.elementFromPoint(x, y);
  return !!h && (h === e || e.contains(h));
}

/** Whether the element stands for one checkable control, its kind and state, and whether a click on it lands. */
function probe(el: Element): Probe | null {
  const c = control(el);
  if (!c) return null;
  let r = el.getBoundingClientRect();
  let hits = false;
  if (r.width >= 1 && r.height >= 1 && getComputedStyle(el).visibility === 'visible') {
    if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) {
      el.scrollIntoView({ block: 'center', inline: 'center' });
      r = el.getBoundingClientRect();
    }
    hits = reaches(el, r.left + r.width / 2, r.top + r.height / 2);
  }
  return { kind: kindOf(c), checked: stateOf(c), hits };
}

function state(el: Element): Checked {
  const c = control(el);
  return c ? stateOf(c) : null;
}

/** The control's first visible <label> and a point on it that reaches the label itself (not a link inside it). */
function label(el: Element): { label: Element; x: number; y: number } | null {
  const c = control(el);
  if (!c) return null;
  const labels: Element[] = [];
  const own = (c as HTMLInputElement).labels;
  if (own) for (let i = 0; i < own.length; i++) labels.push(own[i]!);
  const wrap = c.parentElement && c.parentElement.closest('label');
  if (wrap && labels.indexOf(wrap) < 0) labels.push(wrap);
  for (const lb of labels) {
    if (getComputedStyle(lb).visibility !== 'visible') continue;
    let rect = lb.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) continue;
    if (rect.bottom < 0 || rect.top > innerHeight) {
      lb.scrollIntoView({ block: 'center' });
      rect = lb.getBoundingClientRect();
    }
    const my = rect.top + rect.height / 2;
    const xs = [rect.left + rect.width / 2, rect.left + 3, rect.right - 3];
    for (const x of xs) {
      const root = lb.getRootNode() as Document | ShadowRoot;
      const h = (typeof root.elementFromPoint === 'function' ? root : document).elementFromPoint(x, my);
      if (!h || !(h === lb || lb.contains(h))) continue;
      const inner = h.closest('a,button,select,textarea,input');
      if (inner && inner !== c && lb.contains(inner)) continue;
      return { label: lb, x: x - rect.left, y: my - rect.top };
    }
  }
  return null;
}

/** The label `label` picks, as an element (for a locator of it). */
function labelElement(el: Element): Element | null {
  const found = label(el);
  return found ? found.label : null;
}

/** The point on that label to click, from its top left corner. */
function labelPoint(el: Element): { x: number; y: number } | null {
  const found = label(el);
  return found ? { x: found.x, y: found.y } : null;
}

/** Focuses the control; whether focus landed on it (a display:none input cannot take it). */
function focus(el: Element): boolean {
  const c = control(el);
  if (!c) return false;
  try {
    (c as HTMLElement).focus({ preventScroll: false });
  } catch {
    return false;
  }
  return c.matches(':focus');
}

export default { probe, state, label, labelElement, labelPoint, focus, control };
