import { asHtml, isLabel, norm, shown, styleOf } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): what the layout of a page says about a control when its markup does not —
 * the <label> written right before a field but not tied to it, the folder a tree item opens (expanded or
 * collapsed by whether its sub-list shows), and the suggestion list a script opened under a text field.
 */

const FIELD_TEXT = /^(INPUT|TEXTAREA|SELECT)$/;

/** The last element with text before `el` among its siblings, or null. */
function textBefore(el: Element): Element | null {
  for (let p = el.previousElementSibling; p; p = p.previousElementSibling) {
    if (FIELD_TEXT.test(p.tagName) || p.querySelector('input,select,textarea')) return null;
    if (norm(p.textContent)) return p;
  }
  return null;
}

/**
 * The text of a <label> tied to no control that stands right before a field: its previous sibling, or (a field
 * in a wrapper of its own) the previous sibling of a wrapper it starts, up to two levels up.
 */
export function untiedLabel(field: Element): string {
  let at: Element | null = field;
  for (let up = 0; at && up < 3; up++) {
    const before = textBefore(at);
    if (before) {
      const lab = isLabel(before) ? before : before.querySelector('label');
      if (!lab || (isLabel(lab) && lab.control) || lab.hasAttribute('for')) return '';
      // the label must be the last text before the field, not a heading of the form above it
      if (lab !== before && norm(lab.textContent) !== norm(before.textContent)) return '';
      return norm(asHtml(lab).innerText || lab.textContent);
    }
    // only when the field is the first thing in its wrapper does the wrapper's neighbour stand right before it
    if (at.previousElementSibling || !at.parentElement || at.parentElement === document.body) return '';
    at = at.parentElement;
  }
  return '';
}

/** The nested list of the tree item `item` (a direct child list, or a [role=group] in it), or null. */
function subList(item: Element): Element | null {
  for (let c = item.firstElementChild; c; c = c.nextElementSibling) {
    if (c.tagName === 'UL' || c.tagName === 'OL' || c.getAttribute('role') === 'group') return c;
  }
  return null;
}

/** A list item or tree item that holds a nested list of its own items. */
export function hasSubList(el: Element): boolean {
  return (el.tagName === 'LI' || el.getAttribute('role') === 'treeitem') && !!subList(el);
}

/**
 * A tree's folder without aria-expanded: open when its sub-list shows. The control is the list item itself or a
 * part of it (its twisty, its label) that stands before the sub-list; undefined for a leaf or anything else.
 */
export function folderState(el: Element, role: string | null): boolean | undefined {
  if (el.hasAttribute('aria-expanded')) return undefined;
  const item = el.tagName === 'LI' || role === 'treeitem' ? el : el.parentElement;
  if (!item || (item.tagName !== 'LI' && item.getAttribute('role') !== 'treeitem')) return undefined;
  const list = subList(item);
  if (!list || list.contains(el)) return undefined;
  // a menu bar's item whose sub-menu opens on hover is not a folder a click opens
  const parentList = item.parentElement;
  if (parentList && /menu/.test(parentList.getAttribute('role') || '')) return undefined;
  return shown(list) && list.getBoundingClientRect().height > 0;
}

/** Whether `el` sits in a box a script floats right under a text field (an autocomplete's suggestion list). */
export function inSuggestionList(el: Element): boolean {
  let box: Element | null = null;
  for (let a: Element | null = el.parentElement, d = 0; a && d < 4 && a !== document.body; a = a.parentElement, d++) {
    const st = styleOf(a);
    if (st && (st.position === 'absolute' || st.position === 'fixed')) {
      box = a;
      break;
    }
  }
  if (!box) return false;
  const r = box.getBoundingClientRect();
  const fields = [box.previousElementSibling, document.activeElement];
  const owner = box.id ? document.querySelector('[aria-controls="' + box.id + '"],[aria-owns="' + box.id + '"]') : null;
  if (owner) fields.push(owner);
  for (const f of fields) {
    if (!f || (!/^(INPUT|TEXTAREA)$/.test(f.tagName) && f.getAttribute('role') !== 'combobox')) continue;
    const ty = (f.getAttribute('type') || 'text').toLowerCase();
    if (f.tagName === 'INPUT' && !/^(text|search|email|url|tel)$/.test(ty)) continue;
    const fr = f.getBoundingClientRect();
    // just below (or above) the field and overlapping it horizontally
    const near = Math.abs(r.top - fr.bottom) < 12 || Math.abs(fr.top - r.bottom) < 12;
    if (near && r.left < fr.right && r.right > fr.left) return true;
  }
  return false;
}

/**
 * The role of an element a listener, onclick or tabindex alone makes a control: a link (an <a>), a table's cell
 * (a slot of a calendar-like grid), an option of the suggestion list a script floats under a field, else a button.
 */
export function plainRole(el: Element): string {
  if (el.tagName === 'A') return 'link';
  if (el.tagName === 'TD') return 'gridcell';
  return inSuggestionList(el) ? 'option' : 'button';
}
