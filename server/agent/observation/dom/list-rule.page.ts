import { follow, tagPath } from './item-paths.page';
import { printedNumber } from './printed.page';
import { innerTextOf, norm, quote } from './tree.page';

/**
 * In the page: the rule that picks an answer's items out of a longer list ("my open tickets", "the 3 largest
 * invoices"), found when the answer is not simply the first N items of its list, and applied again on replay.
 *
 * A rule is a filter (the items whose field, at the same place in every item, reads a value the chosen items
 * share and some others lack: status "Open"), an order (sorted by a field's number or text, ascending or
 * descending), or both, then the binding's count (the first N). Rules are tried simplest first; a rule is taken
 * only when it selects exactly the answer, in the answer's order, and is the only one of its level that does —
 * when two rules fit the page alike, nothing says which one the request meant, and the read is not recorded.
 */
export type ItemPath = [string, number][];

export interface ListRule {
  /** Only the items whose text at `path` is `equals` (compared without case and extra spaces); a string parameter's placeholder on the server. */
  filter?: { path: ItemPath; equals: string };
  /** The items ordered by the value at `path`: numbers as printed (`1,234`, `$12.50`, `1.2k`) or text. */
  order?: { path: ItemPath; kind: 'number' | 'string'; dir: 'asc' | 'desc' };
}

export type Selected = { ok: true; items: Element[] } | { ok: false; error: string };
export type FoundRule = { ok: true; rule: ListRule; limit: number | null } | { ok: false; error: string };

/** Past this many items the search for a rule is not worth its cost (every field of every item is read). */
const MAX_ITEMS = 300;
/** Fields looked at per item, and the longest text a field may have. */
const MAX_FIELDS = 60;
const MAX_FIELD_TEXT = 80;

function fieldText(item: Element, path: ItemPath): string | null {
  const el = path.length ? follow(item, path) : item;
  return el ? norm(innerTextOf(el)) : null;
}
const sameText = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** A number as the rule orders by: the printed number, after a currency or other mark (`$12.50`, `#42`, `12%`), not after letters (`INV-1004` is a name). */
function orderNumber(text: string): number {
  const m = /^[^\p{L}\p{N}\s+-]{0,3}\s?([-+]?\d[\d,.]*(?:[kKMB])?)\s*%?$/u.exec(text);
  return m ? printedNumber(m[1]!) : NaN;
}

/** The items a rule selects, in its order. An item that lacks the field a filter reads is not selected; one that lacks the field of the order is an error. */
export function selectByRule(items: Element[], rule: ListRule): Selected {
  let out = items;
  if (rule.filter) {
    const f = rule.filter;
    out = items.filter((item) => {
      const t = fieldText(item, f.path);
      return t != null && sameText(t, f.equals);
    });
    if (!out.length) return { ok: false, error: 'no item of the list reads ' + quote(f.equals) + ' where the rule reads it' };
  }
  if (rule.order) {
    const o = rule.order;
    const keyed: { el: Element; v: number | string; i: number }[] = [];
    for (let i = 0; i < out.length; i++) {
      const t = fieldText(out[i]!, o.path);
      const v = t == null ? NaN : o.kind === 'number' ? orderNumber(t) : t.toLowerCase();
      if (typeof v === 'number' && Number.isNaN(v)) return { ok: false, error: 'item ' + i + ' has no value where the list is sorted' };
      keyed.push({ el: out[i]!, v, i });
    }
    const sign = o.dir === 'asc' ? 1 : -1;
    keyed.sort((a, b) => (a.v < b.v ? -sign : a.v > b.v ? sign : a.i - b.i));
    out = keyed.map((k) => k.el);
  }
  return { ok: true, items: out };
}

/** Where a value may be a field of an item: elements with text of their own (not a wrapper around one child with the same text). */
function fieldPaths(item: Element): ItemPath[] {
  const out: ItemPath[] = [];
  const seen: Record<string, boolean> = {};
  const els = item.querySelectorAll('*');
  for (let i = 0; i < els.length && out.length < MAX_FIELDS; i++) {
    const el = els[i]!;
    const text = norm(innerTextOf(el));
    if (!text || text.length > MAX_FIELD_TEXT) continue;
    const only = el.children.length === 1 ? el.children[0]! : null;
    if (only && norm(innerTextOf(only)) === text) continue;
    const path = tagPath(item, el);
    const key = JSON.stringify(path);
    if (seen[key]) continue;
    seen[key] = true;
    out.push(path);
  }
  return out;
}

/** Whether `value` stands in `text` as whole words (case aside). */
function inWords(text: string, value: string): boolean {
  const t = ' ' + text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ') + ' ';
  const v = value
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return !!v && t.indexOf(' ' + v + ' ') >= 0;
}

function describeRule(r: ListRule): string {
  const at = (p: ItemPath) => p.map((s) => s[0] + (s[1] ? '[' + (s[1] + 1) + ']' : '')).join('>') || 'the item';
  const parts: string[] = [];
  if (r.filter) parts.push(at(r.filter.path) + ' = ' + quote(r.filter.equals));
  if (r.order) parts.push('sorted by ' + at(r.order.path) + ' ' + r.order.dir);
  return parts.join(', ');
}

/**
 * The rule that selects `chosen` (the answer's items, in its order) out of `all` (the list's items in page order).
 * `values`: the request's string parameter values — a filter on one of them is what the request asked for, and wins
 * over others that fit the page alike; else a filter whose value the request names in its words ("the overdue
 * invoices") wins the same way.
 */
export function ruleOf(all: Element[], chosen: Element[], values: string[], request: string): FoundRule {
  if (all.length > MAX_ITEMS) return { ok: false, error: 'the list has more than ' + MAX_ITEMS + ' items; no rule is looked for' };
  for (let j = 0; j < chosen.length; j++)
    if (all.indexOf(chosen[j]!) < 0) return { ok: false, error: 'item ' + j + ' does not have the shape of the other items of its list' };
  const paths = fieldPaths(chosen[0]!);
  const filters: NonNullable<ListRule['filter']>[] = [];
  const orders: NonNullable<ListRule['order']>[] = [];
  for (const path of paths) {
    const texts = all.map((e) => fieldText(e, path));
    const v = fieldText(chosen[0]!, path);
    // A filter reads a kind of value that items share (a status), not one that names each item (its number): the
    // field repeats a value somewhere in the list.
    const shared: Record<string, number> = {};
    texts.forEach((t) => t && (shared[t.toLowerCase()] = (shared[t.toLowerCase()] || 0) + 1));
    const categorical = Object.keys(shared).some((k) => shared[k]! > 1);
    if (v && categorical && chosen.every((c) => sameText(fieldText(c, path) || '', v)) && texts.some((t) => t == null || !sameText(t, v)))
      filters.push({ path, equals: v });
    if (texts.some((t) => !t)) continue;
    const distinct: Record<string, boolean> = {};
    texts.forEach((t) => (distinct[t!.toLowerCase()] = true));
    if (Object.keys(distinct).length < 2) continue;
    const numeric = texts.every((t) => !Number.isNaN(orderNumber(t!)));
    orders.push({ path, kind: numeric ? 'number' : 'string', dir: 'asc' }, { path, kind: numeric ? 'number' : 'string', dir: 'desc' });
  }
  // Simplest first: a filter alone; a filter and a count, or an order (and a count); a filter and an order.
  type Candidate = { rule: ListRule; counted: boolean | null };
  const levels: Candidate[][] = [
    filters.map((f): Candidate => ({ rule: { filter: f }, counted: false })),
    [
      ...filters.map((f): Candidate => ({ rule: { filter: f }, counted: true })),
      ...orders.map((o): Candidate => ({ rule: { order: o }, counted: null })),
    ],
    filters.flatMap((f) => orders.map((o): Candidate => ({ rule: { filter: f, order: o }, counted: null }))),
  ];
  for (const level of levels) {
    const fits: { rule: ListRule; limit: number | null }[] = [];
    for (const { rule, counted } of level) {
      const sel = selectByRule(all, rule);
      if (!sel.ok || sel.items.length < chosen.length || !chosen.every((c, j) => sel.items[j] === c)) continue;
      const limit = sel.items.length === chosen.length ? null : chosen.length;
      if (counted !== null && counted !== (limit !== null)) continue;
      fits.push({ rule, limit });
    }
    if (fits.length === 0) continue;
    const asked = fits.filter((f) => f.rule.filter && values.some((v) => sameText(norm(v), f.rule.filter!.equals)));
    const worded = fits.filter((f) => f.rule.filter && inWords(request, f.rule.filter.equals));
    // An order by numbers over one by text: a text order that happens to fit (dates as "Mar 6") is rarely what was meant.
    const numeric = fits.filter((f) => !f.rule.order || f.rule.order.kind === 'number');
    const pick =
      fits.length === 1
        ? fits[0]!
        : asked.length === 1
          ? asked[0]!
          : worded.length === 1 && !asked.length
            ? worded[0]!
            : numeric.length === 1 && !asked.length && !worded.length
              ? numeric[0]!
              : null;
    if (pick) return { ok: true, rule: pick.rule, limit: pick.limit };
    return {
      ok: false,
      error:
        'more than one rule selects the answer on this page (' +
        fits
          .slice(0, 3)
          .map((f) => describeRule(f.rule))
          .join('; ') +
        (fits.length > 3 ? '; …' : '') +
        '): which one the request means is not clear',
    };
  }
  return {
    ok: false,
    error:
      'the items are not the first ' +
      chosen.length +
      ' of their list on the page, and no rule (a value they share, an order, a count) selects exactly them',
  };
}
