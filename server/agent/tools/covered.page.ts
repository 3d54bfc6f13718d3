import { accName, roleOf } from '../observation/dom/roles.page';
import { clip, norm, type Refs, styleOf } from '../observation/dom/tree.page';

/**
 * In the page: what covers an element at the point a click aims at (its centre), for the click tool's message when
 * a click is intercepted (covered.ts). It names the covering thing as a person would — the open menu, the dialog,
 * the banner — rather than the bare element the pointer hit inside it.
 */
export interface Cover {
  /** Its role, or its tag when it has none: menu, dialog, div … */
  role: string;
  /** Its name, or the start of its text. */
  name: string;
  /** menu: a popup a key or a click elsewhere closes (menu, listbox, tooltip); dialog: a dialog; other: anything else. */
  kind: 'menu' | 'dialog' | 'other';
  /** The index the latest observation gave it, when it listed it. */
  index: number | null;
}

const POPUP: Record<string, Cover['kind']> = {
  menu: 'menu',
  menubar: 'menu',
  listbox: 'menu',
  tooltip: 'menu',
  tree: 'menu',
  grid: 'menu',
  dialog: 'dialog',
  alertdialog: 'dialog',
};

function deepHit(x: number, y: number): Element | null {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

function contains(outer: Element, inner: Node | null): boolean {
  for (let n: Node | null = inner; n; n = n.parentNode || (n as ShadowRoot).host || null) if (n === outer) return true;
  return false;
}

/** What covers `el` at its centre, or null when a click there reaches it (or it is not on screen to tell). */
export default function coverOf(el: Element, _args: unknown, refs: Refs): Cover | null {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  if (r.width < 1 || r.height < 1 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return null;
  const hit = deepHit(x, y);
  if (!hit || contains(el, hit)) return null;
  // The covering thing: the popup or dialog the hit element is part of, else the nearest floating box around it.
  let box: Element = hit;
  let kind: Cover['kind'] = 'other';
  let floating: Element | null = null;
  for (let a: Element | null = hit; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
    if (contains(a, el)) break;
    const role = roleOf(a);
    const k = (role && POPUP[role]) || (a.getAttribute('aria-modal') === 'true' ? 'dialog' : null);
    if (k) {
      box = a;
      kind = k;
      floating = null;
      break;
    }
    const st = styleOf(a);
    if (!floating && st && (st.position === 'fixed' || st.position === 'absolute' || st.position === 'sticky')) floating = a;
  }
  if (floating) box = floating;
  const role = roleOf(box);
  const name = clip(accName(box, role) || norm(box.textContent), 60);
  const tag = box.tagName.toLowerCase();
  const idx = refs.el.indexOf(box);
  return {
    role: role || tag,
    name,
    kind,
    index: idx > 0 ? idx : null,
  };
}
