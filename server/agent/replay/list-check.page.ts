import { elementsFor, itemsOf, type ListBinding, readFrom, type ReadRows } from '../observation/dom/binding.page';
import { follow } from '../observation/dom/item-paths.page';
import { selectByRule } from '../observation/dom/list-rule.page';
import { idrefText } from '../observation/dom/roles.page';
import { innerTextOf, norm, quote, shown } from '../observation/dom/tree.page';

/**
 * In the page: what made a recorded list read right, kept with the binding when it is recorded (describeList), and
 * checked on the live page before a replay answers from it (readCheckedList).
 *
 * A list binding finds its container by tag, scope and place (the n-th such element): on a page that grew elsewhere
 * the n-th element is another one, and reading "the same" items there answers from the wrong list (issue 34: a
 * flow editor's sidebar tab "info" returned as the user's flows). So the container must also show the identity it
 * had: the same ancestry (tag, role, id up to the body) and the same name (its label or the heading before it); when
 * its place now holds another element, the one element with that identity is read instead, and when none or
 * several have it the replay does not answer. Each item must keep its shape (every field where it was, a value that
 * is content, not a button's label or an icon's name, where the recording's was content). An answer poorer than the
 * recording's (fewer items) is taken only from a container whose identity matched in full.
 */
export interface ListCheck {
  /** From the container up to the body: tag, explicit role and id of each element (bounded). */
  path: string[];
  /** The container's name: its label, or the heading just before it (null: none). */
  heading: string | null;
  /** Elements with this identity on the recording page (more than one: the place among them told them apart). */
  twins: number;
  /** How many items the answer took when recorded. */
  answered: number;
  /** Per field (null: not read from the page): whether the recorded value stood in a control or an icon. */
  controls: (boolean | null)[];
  /**
   * A 32-bit hash of each recorded item's values (not the values: the store keeps no more of the page than it needs). A
   * shorter list that shares none of them is not the recorded list shrunk, but another one where it stood.
   */
  seen: number[];
}

/** A read that is refused because the page no longer shows what the recording read (the server marks the trajectory stale). */
export type CheckedRows = ReadRows | { ok: false; error: string; mismatch: true };

const MAX_PATH = 12;
const MAX_SEEN = 100;
const MAX_HEADING = 80;
const HEADING = /^H[1-6]$/;
/** Roles and tags whose text is a control's label, not content. */
const CONTROL_ROLES: Record<string, 1> = {
  button: 1,
  menuitem: 1,
  tab: 1,
  switch: 1,
  checkbox: 1,
  radio: 1,
  slider: 1,
  spinbutton: 1,
  img: 1,
};
const CONTROL_TAGS: Record<string, 1> = { BUTTON: 1, SELECT: 1, INPUT: 1, TEXTAREA: 1, svg: 1, SVG: 1 };
/** Icon fonts name their glyphs in class names (fa fa-eye, material-icons, codicon …); a ligature's text is the glyph's name. */
const ICON_CLASS = /(^|[\s_-])(icons?|fa[srlbd]?|glyph(icon)?|material-(icons|symbols)[\w-]*|codicon|bi|octicon)([\s_-]|$)/i;

function stepOf(el: Element): string {
  const role = el.getAttribute('role');
  // An id a framework makes up per render (`:r1:`, `ember123`, `x-4f9a2c`) would differ on the next visit.
  const id = el.id && /^[A-Za-z][\w-]*$/.test(el.id) && !/\d{3,}|[-_][a-z0-9]{6,}$/i.test(el.id) ? el.id : '';
  return el.tagName.toLowerCase() + (role ? '[' + role + ']' : '') + (id ? '#' + id : '');
}
export function pathOf(el: Element): string[] {
  const out: string[] = [];
  for (let e: Element | null = el; e && e !== document.body && out.length < MAX_PATH; e = e.parentElement) out.push(stepOf(e));
  return out;
}
function headingIn(el: Element): string | null {
  if (HEADING.test(el.tagName) || el.getAttribute('role') === 'heading') return norm(innerTextOf(el));
  const hs = el.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]');
  return hs.length ? norm(innerTextOf(hs[hs.length - 1]!)) : null;
}
function ownLabel(el: Element): string | null {
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const t = norm(idrefText(el, by));
    if (t) return t;
  }
  const label = norm(el.getAttribute('aria-label'));
  if (label) return label;
  const cap =
    el.tagName === 'TABLE' ? el.querySelector(':scope > caption') : el.tagName === 'FIELDSET' ? el.querySelector(':scope > legend') : null;
  return cap ? norm(innerTextOf(cap)) || null : null;
}
/**
 * The container's name: a label of its own or of an ancestor (up to 4 levels), else the nearest heading before it
 * among the previous siblings of it and its ancestors, not past another element of the container's kind (a list
 * beside it has its own heading).
 */
function headingOf(container: Element): string | null {
  let e: Element | null = container;
  for (let d = 0; e && e !== document.body && d < 4; d++, e = e.parentElement) {
    const own = ownLabel(e);
    if (own) return own.slice(0, MAX_HEADING);
    let sib = e.previousElementSibling;
    for (let k = 0; sib && k < 4; k++, sib = sib.previousElementSibling) {
      const h = headingIn(sib);
      if (h) return h.slice(0, MAX_HEADING);
      if (sib.tagName === container.tagName) return null;
    }
  }
  return null;
}
function isControl(e: Element): boolean {
  const role = e.getAttribute('role');
  if (CONTROL_TAGS[e.tagName] || (role && CONTROL_ROLES[role]) || e.getAttribute('aria-hidden') === 'true') return true;
  return ICON_CLASS.test(typeof e.className === 'string' ? e.className : '');
}
/**
 * Whether the field's value is a control's or an icon's: its element, or what holds it inside the item, is one, or
 * every piece of text it holds stands in one (a label wrapping an icon whose ligature names the glyph).
 */
function controlish(el: Element, item: Element): boolean {
  for (let e: Element | null = el; e; e = e.parentElement) {
    if (isControl(e)) return true;
    if (e === item) break;
  }
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let texts = 0;
  for (let n = walker.nextNode(); n && texts < 50; n = walker.nextNode()) {
    if (!norm(n.nodeValue)) continue;
    texts++;
    let inControl = false;
    for (let e = n.parentElement; e && e !== el && !inControl; e = e.parentElement) inControl = isControl(e);
    if (!inControl) return false;
  }
  return texts > 0;
}
function fieldElement(item: Element, path: [string, number][]): Element | null {
  return path.length ? follow(item, path) : item;
}
/** FNV-1a of an item's values, case and spacing aside. */
function hashRow(row: (string | null)[]): number {
  const text = row.map((v) => norm(v).toLowerCase()).join('\u0001');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
/** Each item's values as the binding reads them (the recorder's read-back already checked they read). */
function rowsOf(items: Element[], plan: ListBinding): (string | null)[][] {
  return items.map((item) =>
    plan.fields.map((fd) => {
      const el = fd ? fieldElement(item, fd.path) : null;
      const got = el && fd ? readFrom(el, fd) : null;
      return got && got.ok ? got.text : null;
    }),
  );
}

/** What the recording page shows of a list binding's container and items, kept with the binding. */
export function describeList(plan: ListBinding): ListCheck | null {
  const cs = elementsFor(plan.container);
  const container = cs[plan.container.nth];
  if (!container) return null;
  const path = pathOf(container);
  const heading = headingOf(container);
  const twins = cs.filter((c) => pathOf(c).join('>') === path.join('>') && headingOf(c) === heading).length;
  const all = selected(container, plan, false);
  if (!all.ok || !all.items.length) return null;
  const first = all.items[0]!;
  const controls = plan.fields.map((f) => {
    if (!f) return null;
    const el = fieldElement(first, f.path);
    return el ? controlish(el, first) : null;
  });
  const items = selected(container, plan, contentOnly(controls));
  if (!items.ok || !items.items.length) return null;
  const seen = rowsOf(items.items.slice(0, MAX_SEEN), plan).map(hashRow);
  return { path, heading, twins, answered: items.items.length, controls, seen };
}

/**
 * An element of the items' shape that holds nothing but controls (a row of buttons put between the items, icons
 * without text): not an item of the list.
 */
function onlyControls(item: Element): boolean {
  if (norm(innerTextOf(item))) return controlish(item, item);
  return !!item.querySelector('button,[role=button],svg,i,input,select');
}

/** `skipControls`: the recorded items' values were all content, so an element that holds only controls is no item. */
function selected(
  container: Element,
  plan: ListBinding,
  skipControls: boolean,
): { ok: true; items: Element[] } | { ok: false; error: string } {
  let items = itemsOf(container, plan.signature);
  if (skipControls) items = items.filter((item) => !onlyControls(item));
  if (plan.rule) {
    const sel = selectByRule(items, plan.rule);
    if (!sel.ok) return sel;
    items = sel.items;
  }
  if (plan.limit != null) {
    if (items.length < plan.limit)
      return { ok: false, error: 'the list has ' + items.length + ' items, fewer than the ' + plan.limit + ' recorded' };
    items = items.slice(0, plan.limit);
  }
  return { ok: true, items };
}

const contentOnly = (controls: (boolean | null)[]) => controls.every((c) => c !== true);
const mismatch = (error: string): CheckedRows => ({ ok: false, error, mismatch: true });
const named = (c: ListCheck) =>
  (c.heading ? 'the list under ' + quote(c.heading) : 'the recorded list') + ' (' + c.path.slice(0, 3).join(' < ') + ')';

/** Reads a list through its binding after checking that the live page still shows the list that was recorded. */
export function readCheckedList(plan: ListBinding, check: ListCheck): CheckedRows {
  const cs = elementsFor(plan.container);
  const key = check.path.join('>');
  const samePath = cs.filter((c) => pathOf(c).join('>') === key);
  const full = samePath.filter((c) => headingOf(c) === check.heading);
  if (full.length === 1 && check.twins === 1) return checkedRows(full[0]!, plan, check, true);
  if (full.length > 1 && full.length === check.twins && full.indexOf(cs[plan.container.nth]!) >= 0)
    return checkedRows(cs[plan.container.nth]!, plan, check, true);
  if (full.length > check.twins || full.length > 1)
    return mismatch(full.length + ' lists on the page look like ' + named(check) + '; which one was recorded is not clear');
  // Its heading changed, or another list now stands between it and its heading: the one element of the same ancestry
  // that still holds items that were recorded, and no fewer of them (nothing else says it is the same list).
  // (A labelled scope is named by the label that changed: the same ancestry is looked for in any scope.)
  const anyScope = Array.from(document.querySelectorAll(plan.container.tag)).filter((c) => shown(c) && pathOf(c).join('>') === key);
  const holding: { rows: CheckedRows }[] = [];
  if (check.twins === 1)
    for (const c of anyScope) {
      const rows = checkedRows(c, plan, check, false);
      if (rows.ok && rows.rows.some((r) => check.seen.indexOf(hashRow(r)) >= 0)) holding.push({ rows });
    }
  if (holding.length !== 1) return mismatch(named(check) + ' is not on the page');
  const rows = holding[0]!.rows as Extract<CheckedRows, { ok: true }>;
  if (rows.rows.length < check.answered)
    return mismatch(
      'the list has ' +
        rows.rows.length +
        ' items where ' +
        check.answered +
        ' were recorded, and it is no longer under ' +
        quote(check.heading ?? ''),
    );
  return rows;
}

/** The items' values, each field checked: where it was recorded, content where the recording's was content. */
function checkedRows(container: Element, plan: ListBinding, check: ListCheck, strong: boolean): CheckedRows {
  const sel = selected(container, plan, contentOnly(check.controls));
  if (!sel.ok) return mismatch(sel.error);
  const rows: (string | null)[][] = [];
  for (let i = 0; i < sel.items.length; i++) {
    const item = sel.items[i]!;
    const row: (string | null)[] = [];
    for (let f = 0; f < plan.fields.length; f++) {
      const fd = plan.fields[f];
      if (!fd) {
        row.push(null);
        continue;
      }
      const el = fieldElement(item, fd.path);
      if (!el) return mismatch('item ' + (i + 1) + ' has no element where field ' + (f + 1) + ' was recorded');
      if (check.controls[f] === false && controlish(el, item))
        return mismatch('item ' + (i + 1) + ': field ' + (f + 1) + ' reads a control or an icon, not content as recorded');
      const got = readFrom(el, fd);
      if (!got.ok) return mismatch('item ' + (i + 1) + ': ' + got.error);
      row.push(got.text);
    }
    rows.push(row);
  }
  if (strong && rows.length < check.answered && !rows.some((r) => check.seen.indexOf(hashRow(r)) >= 0))
    return mismatch('the list has ' + rows.length + ' items where ' + check.answered + ' were recorded, none of them one of those');
  return { ok: true, rows };
}
