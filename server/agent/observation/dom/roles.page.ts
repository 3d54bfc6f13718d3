import { pseudoText } from './pseudo.page';
import { untiedLabel } from './structure.page';
import { asHtml, byId, clip, isElement, isInput, isSvg, isText, kidsOf, norm, quote, shown, SKIP, styleOf } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): roles, explicit or implicit from the tag, and accessible names, by the
 * accname rules that matter in practice (aria-labelledby, aria-label, <label>, content, SVG <title>, placeholder,
 * title); the scopes (labelled containers) elements stand in; modal dialogs.
 */

type Flags = Record<string, 1 | undefined>;

export const INTERACTIVE: Flags = {
  button: 1,
  link: 1,
  checkbox: 1,
  radio: 1,
  switch: 1,
  tab: 1,
  menuitem: 1,
  menuitemcheckbox: 1,
  menuitemradio: 1,
  option: 1,
  combobox: 1,
  listbox: 1,
  textbox: 1,
  searchbox: 1,
  slider: 1,
  spinbutton: 1,
  treeitem: 1,
  dialog: 1,
  alertdialog: 1,
  menu: 1,
};
/** Interactive roles that hold other controls (listed, and their content walked). */
export const CONTAINER: Flags = { dialog: 1, alertdialog: 1, listbox: 1, menu: 1, tablist: 1, radiogroup: 1 };
const FROM_CONTENT: Flags = {
  button: 1,
  link: 1,
  option: 1,
  tab: 1,
  menuitem: 1,
  menuitemcheckbox: 1,
  menuitemradio: 1,
  heading: 1,
  checkbox: 1,
  radio: 1,
  switch: 1,
  treeitem: 1,
  // accname: a row is named by its cells' text (a treegrid's thread, a grid's record)
  row: 1,
  cell: 1,
  columnheader: 1,
  rowheader: 1,
  tooltip: 1,
};
/** Scope roles: 1 = only when the element has a name. */
export const SCOPES: Record<string, 0 | 1> = {
  dialog: 0,
  alertdialog: 0,
  article: 0,
  navigation: 0,
  main: 0,
  complementary: 0,
  banner: 0,
  contentinfo: 0,
  search: 0,
  feed: 0,
  listbox: 0,
  menu: 0,
  region: 1,
  form: 1,
  list: 1,
  table: 1,
  grid: 1,
  group: 1,
  toolbar: 1,
  tablist: 1,
  radiogroup: 1,
};
/** Scopes whose label is a line of the page view. */
export const HEADER_SCOPES: Flags = {
  dialog: 1,
  alertdialog: 1,
  article: 1,
  navigation: 1,
  main: 1,
  complementary: 1,
  banner: 1,
  contentinfo: 1,
  search: 1,
  region: 1,
  form: 1,
  feed: 1,
};

function landmarkHeader(el: Element): boolean {
  const p = el.parentElement;
  return !(p && p.closest('article,aside,main,nav,section'));
}

export function roleOf(el: Element): string | null {
  const r = el.getAttribute('role');
  if (r && norm(r)) return norm(r).split(' ')[0]!.toLowerCase();
  switch (el.tagName) {
    case 'A':
    case 'AREA':
      return el.hasAttribute('href') ? 'link' : null;
    case 'BUTTON':
    case 'SUMMARY':
      return 'button';
    case 'SELECT': {
      const s = el as HTMLSelectElement;
      return s.multiple || s.size > 1 ? 'listbox' : 'combobox';
    }
    case 'TEXTAREA':
      return 'textbox';
    case 'INPUT': {
      const ty = (el.getAttribute('type') || 'text').toLowerCase();
      if (ty === 'hidden') return null;
      if (ty === 'checkbox') return 'checkbox';
      if (ty === 'radio') return 'radio';
      if (ty === 'range') return 'slider';
      if (ty === 'number') return 'spinbutton';
      if (ty === 'button' || ty === 'submit' || ty === 'reset' || ty === 'image' || ty === 'file') return 'button';
      if (el.hasAttribute('list')) return 'combobox';
      if (ty === 'search') return 'searchbox';
      return 'textbox';
    }
    case 'H1':
    case 'H2':
    case 'H3':
    case 'H4':
    case 'H5':
    case 'H6':
      return 'heading';
    case 'DIALOG':
      return 'dialog';
    case 'OPTION':
      return 'option';
    case 'ARTICLE':
      return 'article';
    case 'NAV':
      return 'navigation';
    case 'MAIN':
      return 'main';
    case 'ASIDE':
      return 'complementary';
    case 'HEADER':
      return landmarkHeader(el) ? 'banner' : null;
    case 'FOOTER':
      return landmarkHeader(el) ? 'contentinfo' : null;
    case 'FORM':
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'form' : null;
    case 'SECTION':
      return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
    case 'UL':
    case 'OL':
      return 'list';
    case 'LI':
      return 'listitem';
    case 'TABLE':
      return 'table';
    case 'TR':
      return 'row';
    case 'TD':
      return 'cell';
    case 'TH':
      return 'columnheader';
    case 'FIELDSET':
      return 'group';
    case 'IMG':
      return 'img';
  }
  const ce = el.getAttribute('contenteditable');
  if (ce !== null && ce !== 'false' && asHtml(el).isContentEditable) return 'textbox';
  return null;
}

export function headingLevel(el: Element, role: string | null): number {
  if (role !== 'heading') return 0;
  const m = /^H([1-6])$/.exec(el.tagName);
  if (m) return Number(m[1]);
  const l = parseInt(el.getAttribute('aria-level') || '2', 10);
  return l >= 1 && l <= 6 ? l : 2;
}

export function idrefText(el: Element, ids: string | null): string {
  const parts: string[] = [];
  norm(ids)
    .split(' ')
    .forEach((id) => {
      const r = id && byId(el, id);
      if (r) parts.push(r === el ? el.getAttribute('aria-label') || '' : r.getAttribute('aria-label') || textOf(r, 0));
    });
  return norm(parts.join(' '));
}

/** An icon's name: aria-label, labelledby, its own <title>, or the <title> of the symbol it uses. */
export function svgName(svg: Element): string {
  const al = norm(svg.getAttribute('aria-label'));
  if (al) return al;
  const lb = svg.getAttribute('aria-labelledby');
  if (lb) {
    const l = idrefText(svg, lb);
    if (l) return l;
  }
  for (let c = svg.firstElementChild; c; c = c.nextElementSibling) {
    if (c.localName === 'title') return norm(c.textContent);
    if (c.localName === 'use') {
      const href = c.getAttribute('href') || c.getAttribute('xlink:href') || '';
      if (href.charAt(0) === '#') {
        const sym = byId(svg, href.slice(1));
        const tt = sym && sym.querySelector('title');
        if (tt) return norm(tt.textContent);
      }
    }
  }
  return '';
}

/** A nested list of a tree item: its own items, not part of its name. */
const isSubList = (n: Element) => n.tagName === 'UL' || n.tagName === 'OL' || n.getAttribute('role') === 'group';

/**
 * The text an element's content gives its name (the flat tree, hidden parts left out, icons by their names, CSS
 * ::before/::after text in place); `ownOnly`: without nested lists (a tree item's sub-items).
 */
export function textOf(node: Element, depth: number, ownOnly?: boolean): string {
  let out = '';
  const kids = kidsOf(node);
  for (let i = 0; i < kids.length; i++) {
    const n = kids[i]!;
    if (isText(n)) {
      out += n.data;
      continue;
    }
    if (!isElement(n)) continue;
    if (n.getAttribute('aria-hidden') === 'true' || (ownOnly && isSubList(n))) continue;
    if (isSvg(n)) {
      if (n.localName === 'svg') out += ' ' + svgName(n) + ' ';
      continue;
    }
    if (SKIP[n.tagName]) continue;
    const st = styleOf(n);
    if (!st || st.display === 'none') continue;
    const sep = st.display.indexOf('inline') === 0 || st.display === 'contents' ? '' : ' ';
    if (n.tagName === 'IMG') {
      out += ' ' + (n.getAttribute('alt') || n.getAttribute('title') || '') + ' ';
      continue;
    }
    if (n.tagName === 'INPUT' || n.tagName === 'SELECT' || n.tagName === 'TEXTAREA') continue;
    const al = n.getAttribute('aria-label');
    if (al && norm(al)) {
      out += ' ' + al + ' ';
      continue;
    }
    let sub = depth < 25 ? pseudoText(n, '::before') + textOf(n, depth + 1) + pseudoText(n, '::after') : '';
    // accname: a descendant without text content is named by its tooltip (title)
    if (!norm(sub) && n.getAttribute('title')) sub = n.getAttribute('title')!;
    out += sep + sub + sep;
  }
  return out;
}

/** An element's text with its own ::before/::after text. */
export function contentText(el: Element, ownOnly?: boolean): string {
  return pseudoText(el, '::before') + textOf(el, 0, ownOnly) + pseudoText(el, '::after');
}

export function accName(el: Element, role: string | null): string {
  const ids = el.getAttribute('aria-labelledby');
  if (ids) {
    const s = idrefText(el, ids);
    if (s) return s;
  }
  const al = norm(el.getAttribute('aria-label'));
  if (al) return al;
  const t = el.tagName;
  if (t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA') {
    const ty = (el.getAttribute('type') || '').toLowerCase();
    if (isInput(el) && (ty === 'button' || ty === 'submit' || ty === 'reset'))
      return norm(el.value) || (ty === 'submit' ? 'Submit' : ty === 'reset' ? 'Reset' : '');
    if (t === 'INPUT' && ty === 'image') return norm(el.getAttribute('alt')) || 'Submit';
    const labels = (el as HTMLInputElement).labels;
    if (labels && labels.length) {
      const ls = norm(Array.from(labels, (l) => contentText(l)).join(' '));
      if (ls) return ls;
    }
    // a <label> written right before the field but not tied to it is what a person reads as its name
    return untiedLabel(el) || norm(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || el.getAttribute('title'));
  }
  if (t === 'IMG') return norm(el.getAttribute('alt') || el.getAttribute('title'));
  if (isSvg(el)) return svgName(el) || norm(el.getAttribute('title'));
  if (t === 'FIELDSET') {
    const lg = el.querySelector(':scope > legend');
    if (lg) return norm(textOf(lg, 0));
  }
  if (t === 'TABLE') {
    const cp = el.querySelector(':scope > caption');
    if (cp) return norm(textOf(cp, 0));
  }
  if (role && FROM_CONTENT[role]) {
    const c = norm(contentText(el, role === 'treeitem'));
    if (c) return c;
  }
  if (role === 'textbox' || role === 'searchbox' || role === 'combobox') {
    const p = norm(el.getAttribute('aria-placeholder') || el.getAttribute('data-placeholder') || el.getAttribute('placeholder'));
    if (p) return p;
  }
  return norm(el.getAttribute('title'));
}

export function isInteractive(el: Element, role: string | null): boolean {
  if (role && INTERACTIVE[role]) return true;
  const t = el.tagName;
  if (t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA' || t === 'BUTTON') return true;
  if (el.hasAttribute('onclick')) return true;
  // a grid's cell that takes focus or a selection is a control (a calendar's day); a data table's cell is not
  if (role === 'gridcell') return el.hasAttribute('tabindex') || el.hasAttribute('aria-selected');
  const ti = el.getAttribute('tabindex');
  if (ti === null || (role && (role in SCOPES || role === 'listitem' || role === 'heading'))) return false;
  // roving tabindex: a composite widget's items wait at -1 for the arrow keys; one that opens and closes (a
  // treegrid's row) is a control all the same
  return parseInt(ti, 10) >= 0 || el.hasAttribute('aria-expanded');
}

/** "dialog 'Create a post'": the label of a scope an element is, or null. */
export function scopeLabel(el: Element, role: string | null): string | null {
  if (!role || !(role in SCOPES)) return null;
  const nm = clip(accName(el, role), 80);
  if (SCOPES[role] && !nm) return null;
  return nm ? role + ' ' + quote(nm) : role;
}
/** The nearest labelled container of an element. */
export function scopeOf(el: Element): string | null {
  for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const s = scopeLabel(a, roleOf(a));
    if (s) return s;
  }
  return null;
}

export function isModal(d: Element): boolean {
  try {
    if (d.matches(':modal')) return true;
  } catch {
    // older engines
  }
  return d.getAttribute('aria-modal') === 'true';
}
/** The last open modal dialog that is shown (the snapshot then reads only it). */
export function topModal(): Element | null {
  let found: Element | null = null;
  document.querySelectorAll('dialog[open],[role=dialog],[role=alertdialog]').forEach((d) => {
    if (isModal(d) && shown(d)) found = d;
  });
  return found;
}
