import { follow, tagPath } from './item-paths.page';
import { type ListRule, ruleOf, selectByRule } from './list-rule.page';
import { PRINTED_NUMBER } from './printed.page';
import { roleOf, scopeOf } from './roles.page';
import { innerTextOf, isSvg, norm, quote, shown, SKIP } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): where a value of a final answer stands on the page (bindLeaf, bindList)
 * and reading it back (readLeaf, readList), for replays (server/agent/replay/extraction.ts; the shapes are its
 * LeafBinding and ListBinding).
 */

/** 'day': a date the page may print as a relative day ("3 days ago"); read as text, turned into the date by the server. */
export type ValueKind = 'string' | 'number' | 'day';
/** An element found again by its tag, the scope it stands in and its place among those (nth, from 0). */
export interface Anchor {
  tag: string;
  scope: string | null;
  nth: number;
}
/** The text around a value: what stands before it and after it. */
interface Around {
  prefix: string;
  suffix: string;
  kind: ValueKind;
}
export interface LeafBinding extends Around {
  anchor: Anchor;
}
export interface FieldBinding extends Around {
  /** From the item down to the field's element: tag names and their place among same-tag siblings. */
  path: [string, number][];
}
export interface ListBinding {
  container: Anchor;
  /** Tag names from the container down to an item. */
  signature: string[];
  /** The first N items (null = all of them), after the rule. */
  limit: number | null;
  fields: (FieldBinding | null)[];
  /** Which items of the list the answer holds, and in what order, when they are not simply its first N (list-rule.page.ts). */
  rule?: ListRule;
}
/** A value of the answer: the ways it may be written on the page (1,234 and 1234), and its kind. */
export interface ValueForms {
  forms: string[];
  kind: ValueKind;
}

export type Read = { ok: true; text: string } | { ok: false; error: string };
export type ReadRows = { ok: true; rows: (string | null)[][] } | { ok: false; error: string };
export type Bound = { ok: true; binding: LeafBinding; text: string } | { ok: false; error: string };
export type BoundList = { ok: true; plan: ListBinding } | { ok: false; error: string };

/** The shown elements an anchor counts among (its tag, in its scope), in document order (a replay's list check reads them too). */
export function elementsFor(anchor: Anchor): Element[] {
  const out: Element[] = [];
  document.querySelectorAll(anchor.tag).forEach((el) => {
    if ((scopeOf(el) || null) === (anchor.scope || null) && shown(el)) out.push(el);
  });
  return out;
}
function anchorOf(el: Element): Anchor {
  const anchor: Anchor = { tag: el.tagName.toLowerCase(), scope: scopeOf(el), nth: 0 };
  anchor.nth = Math.max(0, elementsFor(anchor).indexOf(el));
  return anchor;
}

const NUM = PRINTED_NUMBER;
/** Letters a page prints right before a version or number (`v0.9.0`, `V2`): not part of the value, not a word before it. */
const LEAD = /^[vV]$/;

function isWordChar(ch: string): boolean {
  return !!ch && /[\p{L}\p{N}_]/u.test(ch);
}
/** Where c stands in text as a whole word or number (not inside a longer one), or -1. */
function findIn(text: string, c: string): number {
  let from = 0;
  for (;;) {
    const i = text.indexOf(c, from);
    if (i < 0) return -1;
    const before = text.charAt(i - 1);
    const after = text.charAt(i + c.length);
    let okBefore =
      i === 0 ||
      !isWordChar(c.charAt(0)) ||
      !isWordChar(before) ||
      (LEAD.test(before) && /\d/.test(c.charAt(0)) && !isWordChar(text.charAt(i - 2)));
    let okAfter = !isWordChar(c.charAt(c.length - 1)) || !isWordChar(after);
    if (/\d/.test(c.charAt(0)) && (/\d/.test(before) || (/[.,]/.test(before) && /\d/.test(text.charAt(i - 2))))) okBefore = false;
    if (/\d/.test(c.charAt(c.length - 1)) && (/\d/.test(after) || (/[.,]/.test(after) && /\d/.test(text.charAt(i + c.length + 1)))))
      okAfter = false;
    if (okBefore && okAfter) return i;
    from = i + 1;
  }
}
function around(text: string, i: number, len: number, kind: ValueKind): { prefix: string; suffix: string } {
  const before = text.slice(0, i);
  const after = text.slice(i + len);
  let pw = before.split(' ').filter(Boolean).slice(-3).join(' ');
  if (pw.length > 30) pw = pw.slice(pw.length - 30).replace(/^\S*\s/, '');
  const prefix = i === 0 ? '' : pw + (/\s$/.test(before) ? ' ' : '');
  const aw = after.split(' ').filter(Boolean);
  let suffix = '';
  if (after.length) suffix = (/^\s/.test(after) ? ' ' : '') + (kind === 'number' ? aw.slice(0, 1) : aw.slice(0, 3)).join(' ').slice(0, 30);
  return { prefix, suffix: kind === 'number' ? norm(suffix) : suffix };
}
export function readFrom(el: Element, b: Around): Read {
  const text = norm(innerTextOf(el));
  let start = 0;
  if (b.prefix) {
    const i = text.indexOf(b.prefix);
    if (i < 0) return { ok: false, error: 'the text before the value (' + quote(b.prefix) + ') is not there' };
    start = i + b.prefix.length;
  }
  const rest = text.slice(start).replace(/^\s+/, '');
  if (b.kind === 'number') {
    const m = NUM.exec(rest);
    if (!m) return { ok: false, error: 'no number where one was recorded' };
    if (b.suffix) {
      const tail = rest.slice(m[0].length).replace(/^\s+/, '').toLowerCase();
      const stem = b.suffix.toLowerCase().replace(/s$/, '');
      if (tail.indexOf(stem) !== 0) return { ok: false, error: 'the number is no longer followed by ' + quote(b.suffix) };
    }
    return { ok: true, text: m[0] };
  }
  let v: string;
  if (b.suffix) {
    const j = rest.indexOf(b.suffix.replace(/^\s+/, ''));
    if (j < 0) return { ok: false, error: 'the text after the value (' + quote(b.suffix) + ') is not there' };
    v = rest.slice(0, j);
  } else v = rest;
  v = norm(v);
  return v ? { ok: true, text: v } : { ok: false, error: 'empty value' };
}

/** Reads a leaf of an answer back through its binding. */
export function readLeaf(b: LeafBinding): Read {
  const els = elementsFor(b.anchor);
  if (els.length <= b.anchor.nth)
    return {
      ok: false,
      error: 'no ' + b.anchor.tag + ' #' + (b.anchor.nth + 1) + (b.anchor.scope ? ' in ' + b.anchor.scope : '') + ' on the page',
    };
  return readFrom(els[b.anchor.nth]!, b);
}

interface Candidate {
  el: Element;
  text: string;
  i: number;
  c: string;
}
/** The shown elements whose text holds c (innermost first, up to five levels up from each text node). */
function candidates(c: string): Candidate[] {
  const seen = new Set<Element>();
  const out: Candidate[] = [];
  const first = c.split(' ')[0]!;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode() as Text | null; n && out.length < 400; n = walker.nextNode() as Text | null) {
    if (n.data.indexOf(first) < 0) continue;
    let el = n.parentElement;
    for (let d = 0; el && el !== document.body && d < 5; d++, el = el.parentElement) {
      if (seen.has(el)) continue;
      seen.add(el);
      if (SKIP[el.tagName] || isSvg(el) || !shown(el)) continue;
      const text = norm(innerTextOf(el));
      if (text.length > Math.max(300, c.length + 200)) break;
      const i = findIn(text, c);
      if (i >= 0) out.push({ el, text, i, c });
    }
  }
  return out;
}
function rank(list: Candidate[], c: string, kind: ValueKind): Candidate[] {
  function score(x: Candidate) {
    const exact = x.text === c;
    const h = /^H[1-6]$/.test(x.el.tagName) ? 5 : 0;
    const s = kind === 'number' ? (exact ? 60 : x.text.length <= 80 ? 100 : 10) : exact ? 100 + h : x.text.length <= 80 ? 50 : 10;
    return s - x.text.length / 1000;
  }
  return list
    .map((x, k) => ({ x, s: score(x), k }))
    .sort((p, q) => q.s - p.s || p.k - q.k)
    .map((p) => p.x);
}

/** Finds where a value of the answer stands and binds it: an anchor and the text around it, checked by reading it back. */
export function bindLeaf(a: ValueForms): Bound {
  for (const c of a.forms) {
    const ranked = rank(candidates(c), c, a.kind);
    for (let k = 0; k < ranked.length && k < 25; k++) {
      const x = ranked[k]!;
      const b = around(x.text, x.i, c.length, a.kind);
      const binding: LeafBinding = { anchor: anchorOf(x.el), prefix: b.prefix, suffix: b.suffix, kind: a.kind };
      const back = readLeaf(binding);
      if (back.ok && back.text === c) return { ok: true, binding, text: c };
    }
  }
  return { ok: false, error: 'not found on the page' };
}

/** The lowest common ancestor of the nodes. */
function lca(nodes: Element[]): Element | null {
  let a: Element | null = nodes[0]!;
  while (a && !nodes.every((n) => a!.contains(n))) a = a.parentElement;
  return a;
}
export function itemsOf(container: Element, signature: string[]): Element[] {
  const out: Element[] = [];
  container.querySelectorAll(signature[signature.length - 1]!).forEach((el) => {
    const tags = tagPath(container, el).map((p) => p[0]);
    if (tags.join('>') === signature.join('>') && shown(el)) out.push(el);
  });
  return out;
}
function isListish(el: Element): boolean {
  const r = roleOf(el);
  return r === 'list' || r === 'table' || r === 'feed' || r === 'grid' || r === 'listbox' || el.tagName === 'TBODY';
}

/**
 * Binds a list of the answer: its container, the tag path of an item, and per field the place and the text around
 * it that read every item's value back. `a.items`: one entry per item, one per field (null = not from the page);
 * `a.values`: the request's string parameter values, `a.request` its words (a rule filtering on one of them is the one
 * the request asked for).
 */
export function bindList(a: { items: (ValueForms | null)[][]; values?: string[]; request?: string }): BoundList {
  let roots: Element[] = [];
  for (let i = 0; i < a.items.length; i++) {
    const fields = a.items[i]!;
    const cands = fields.map((f) => {
      if (!f) return null;
      for (const form of f.forms) {
        const r = rank(candidates(form), form, f.kind);
        if (r.length) return { list: r, form };
      }
      return { list: [] as Candidate[], form: f.forms[0]! };
    });
    const firstField = cands.findIndex((c) => c);
    if (firstField < 0) return { ok: false, error: 'no field of the items is read from the page' };
    if (cands.some((c) => c && !c.list.length)) return { ok: false, error: 'item ' + i + ' is not on the page' };
    let found: Element | null = null;
    const firstList = cands[firstField]!.list;
    for (let q = 0; q < firstList.length && q < 10 && !found; q++) {
      const start = firstList[q]!.el;
      for (let r: Element | null = start, d = 0; r && r !== document.body && d < 10 && !found; r = r.parentElement, d++) {
        const root: Element = r;
        const all = cands.every((c) => !c || c.list.some((x) => root.contains(x.el)));
        if (all) found = root;
      }
    }
    if (!found) return { ok: false, error: 'the fields of item ' + i + ' do not stand together on the page' };
    roots.push(found);
  }
  let container: Element | null;
  if (roots.length > 1) container = lca(roots);
  else {
    container = roots[0]!.parentElement;
    for (let up = roots[0]!.parentElement; up && up !== document.body; up = up.parentElement)
      if (isListish(up)) {
        container = up;
        break;
      }
  }
  if (!container || roots.indexOf(container) >= 0) return { ok: false, error: 'the items have no common list on the page' };
  let signature = tagPath(container, roots[0]!).map((p) => p[0]);
  let all = itemsOf(container, signature);
  // The first N items of the list, or a rule that selects them (a value they share, an order), checked on this page.
  let rule: ListRule | undefined;
  let limit: number | null = all.length === roots.length ? null : roots.length;
  if (roots.some((r, j) => all[j] !== r)) {
    // A rule may read a field beside the answer's (a status next to a title): the items are the list's own children.
    const rows = roots.map((r) => {
      let e = r;
      while (e.parentElement && e.parentElement !== container) e = e.parentElement;
      return e;
    });
    if (rows.some((r, j) => rows.indexOf(r) !== j)) return { ok: false, error: 'two items of the answer stand in one item of their list' };
    roots = rows;
    signature = tagPath(container, roots[0]!).map((p) => p[0]);
    all = itemsOf(container, signature);
    limit = all.length === roots.length ? null : roots.length;
  }
  if (roots.some((r, j) => all[j] !== r)) {
    const found = ruleOf(all, roots, a.values || [], a.request || '');
    if (!found.ok) return { ok: false, error: found.error };
    rule = found.rule;
    limit = found.limit;
  }
  // Per field: the first place (path from the item, text around the value) that reads every item's value back.
  const fieldsOut: (FieldBinding | null)[] = [];
  for (let fi = 0; fi < a.items[0]!.length; fi++) {
    const f0 = a.items[0]![fi];
    if (!f0) {
      fieldsOut.push(null);
      continue;
    }
    let inFirst: Candidate[] = [];
    f0.forms.forEach((form) => {
      inFirst = inFirst.concat(rank(candidates(form), form, f0.kind).filter((x) => roots[0]!.contains(x.el)));
    });
    let chosenField: FieldBinding | null = null;
    for (let ci = 0; ci < inFirst.length && ci < 20 && !chosenField; ci++) {
      const x = inFirst[ci]!;
      const b = around(x.text, x.i, x.c.length, f0.kind);
      const fd: FieldBinding = { path: tagPath(roots[0]!, x.el), prefix: b.prefix, suffix: b.suffix, kind: f0.kind };
      const good = roots.every((r, i) => {
        const e = fd.path.length ? follow(r, fd.path) : r;
        if (!e) return false;
        const got = readFrom(e, fd);
        return got.ok && a.items[i]![fi]!.forms.indexOf(got.text) >= 0;
      });
      if (good) chosenField = fd;
    }
    if (!chosenField) return { ok: false, error: 'field ' + (fi + 1) + ' of the items is not at the same place in every item' };
    fieldsOut.push(chosenField);
  }
  const plan: ListBinding = {
    container: anchorOf(container),
    signature,
    limit,
    fields: fieldsOut,
    ...(rule ? { rule } : {}),
  };
  return { ok: true, plan };
}

/** Reads a list of the answer back through its binding: one row per item, one value per field (null: not from the page). */
export function readList(plan: ListBinding): ReadRows {
  const cs = elementsFor(plan.container);
  if (cs.length <= plan.container.nth)
    return {
      ok: false,
      error: 'the list (' + plan.container.tag + (plan.container.scope ? ' in ' + plan.container.scope : '') + ') is not on the page',
    };
  let items = itemsOf(cs[plan.container.nth]!, plan.signature);
  if (plan.rule) {
    const sel = selectByRule(items, plan.rule);
    if (!sel.ok) return { ok: false, error: sel.error };
    items = sel.items;
  }
  if (plan.limit != null) {
    if (items.length < plan.limit)
      return { ok: false, error: 'the list has ' + items.length + ' items, fewer than the ' + plan.limit + ' recorded' };
    items = items.slice(0, plan.limit);
  }
  const rows: (string | null)[][] = [];
  for (let i = 0; i < items.length; i++) {
    const row: (string | null)[] = [];
    for (const fd of plan.fields) {
      if (!fd) {
        row.push(null);
        continue;
      }
      const el = fd.path.length ? follow(items[i]!, fd.path) : items[i]!;
      if (!el) return { ok: false, error: 'item ' + i + ' has no element at the recorded place' };
      const got = readFrom(el, fd);
      if (!got.ok) return { ok: false, error: 'item ' + i + ': ' + got.error };
      row.push(got.text);
    }
    rows.push(row);
  }
  return { ok: true, rows };
}
