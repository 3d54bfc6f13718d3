import { asHtml, norm, styleOf } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): what a control's place says of it when nothing else names it — the row it
 * stands in (a checkbox in an invoice's table row, a text field after "City" in a form table, a switch in a settings
 * row), and its row and column in a grid of like controls (a board's cells, a grid of bare checkboxes). Both are
 * guesses a person makes at a glance; the observation says so (nameFrom 'row', 'position').
 */

const FIELDS = 'input:not([type=hidden]),select,textarea,button';
/** A row is about one line high; past this it is a section of the page, not the control's row. */
const ROW_MAX_H = 80;
const ROW_MAX_CHARS = 80;

/** The text of the row a form field stands in, when the field is the row's only control. */
export function rowText(field: Element): string {
  for (let row = field.parentElement, up = 0; row && up < 4 && row !== document.body; row = row.parentElement, up++) {
    if (row.querySelectorAll(FIELDS).length > 1) return '';
    const t = norm(row.textContent) ? norm(asHtml(row).innerText) : '';
    if (t) return row.getBoundingClientRect().height <= ROW_MAX_H && t.length <= ROW_MAX_CHARS ? t : '';
  }
  return '';
}

/** Elements among `el`'s siblings (itself included) of its kind: same tag, and same type for an input. */
function likeSiblings(el: Element): Element[] {
  const p = el.parentElement;
  if (!p) return [];
  const ty = el.getAttribute('type');
  const out: Element[] = [];
  for (let c = p.firstElementChild; c; c = c.nextElementSibling) if (c.tagName === el.tagName && c.getAttribute('type') === ty) out.push(c);
  return out;
}

/** "row 2, column 3" for a cell of a CSS grid or of textless rows of like controls; '' when it stands in no grid. */
export function gridPlace(el: Element): string {
  const p = el.parentElement;
  if (!p) return '';
  const ps = styleOf(p);
  if (ps && (ps.display === 'grid' || ps.display === 'inline-grid')) {
    const cols = ps.gridTemplateColumns.split(' ').filter(Boolean).length;
    const kids = Array.prototype.slice.call(p.children) as Element[];
    const i = kids.indexOf(el);
    if (cols >= 2 && kids.length > cols) return 'row ' + (Math.floor(i / cols) + 1) + ', column ' + ((i % cols) + 1);
  }
  // rows of like controls with no text of their own (a pixel grid of checkboxes); a row with text names its controls
  if (norm(p.textContent)) return '';
  const cells = likeSiblings(el);
  const rows = likeSiblings(p).filter((r) => r.querySelector(el.tagName) !== null);
  if (cells.length < 2 || rows.length < 2) return '';
  return 'row ' + (rows.indexOf(p) + 1) + ', column ' + (cells.indexOf(el) + 1);
}
