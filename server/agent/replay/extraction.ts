import { isDeepStrictEqual } from 'node:util';

import type { Page } from 'playwright-core';

import { evaluateIsolated } from '../../browser/isolated-world';
import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageFunction } from '../../page-code/page-function';
import { runDom } from '../observation';
import type { ValueForms, ValueKind } from '../observation/dom/binding.page';
import { daysBefore, isoDayBefore, numberForms, printedNumber, relativeDayForms, relativeDays } from '../observation/dom/printed.page';
import { fillDeep, hasPlaceholder, type ParameterSlot } from '../planner/placeholders';
import type { LeafCheck } from './leaf-check.page';
import type { CheckedRows, ListCheck } from './list-check.page';
import type readBindingsInPage from './read-bindings.page';
import type { BindingAnswer, BindingRead } from './read-bindings.page';
import type { ListBinding, ResultPlan } from './trajectory';

/**
 * The result of a replay must come from the live page, not from the recording. When a planner run ends,
 * each leaf of its answer is traced back to where it stands on the final page (an anchor element and the
 * text around the value; arrays to a list and per-item fields) or to the parameters it was built from.
 * The plan is accepted only if reading it on that same page gives back exactly the answer.
 */
type Bound<T> = { ok: true; value: T } | { ok: false; reason: string; mismatch?: true };

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/**
 * The ways a page may print a value of the answer: a number with separators, two decimals or a multiplier
 * (printed.page.ts); a date (YYYY-MM-DD) also as a relative day ("3 days ago"), read back as its date.
 */
function formsOf(v: string | number): ValueForms {
  if (typeof v === 'number') return { forms: numberForms(v), kind: 'number' };
  const text = v.replace(/\s+/g, ' ').trim();
  const days = daysBefore(text, new Date());
  return days === null ? { forms: [text], kind: 'string' } : { forms: [text, ...relativeDayForms(days)], kind: 'day' };
}

/** A filter on the value of a string parameter is the request's own: stored as the placeholder, filled in on each read. */
function parameterised(list: ListBinding, slots: ParameterSlot[]): ListBinding {
  const f = list.rule?.filter;
  if (!f) return list;
  const same = (a: string) => a.replace(/\s+/g, ' ').trim().toLowerCase() === f.equals.toLowerCase();
  const slot = slots.find((s) => s.kind === 'string' && same(s.value));
  return slot ? { ...list, rule: { ...list.rule, filter: { ...f, equals: slot.placeholder } } } : list;
}

/** The binding as the page reads it now: a parameter's placeholder in a rule's filter is filled with this run's value. */
function filledList(list: ListBinding, slots: ParameterSlot[]): ListBinding {
  const f = list.rule?.filter;
  if (!f || !hasPlaceholder(f.equals)) return list;
  return { ...list, rule: { ...list.rule, filter: { ...f, equals: String(fillDeep(f.equals, slots)) } } };
}

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const COUNT = String.raw`(\d{1,3}|${NUMBER_WORDS.join('|')})`;
/** "the first two …", "top 5 …", "the 3 largest …": the request asks for a count of items from the start of an order. */
const ASKED_COUNT = new RegExp(
  String.raw`\b(?:first|top)\s+${COUNT}\b|\b${COUNT}\s+(?:first|top|largest|biggest|highest|smallest|lowest|cheapest|newest|oldest|latest|most\s+recent)\b`,
  'i',
);

/**
 * When every item a rule selects is the answer but the request asked for a count of them ("the first two paid
 * invoices" on a page with two paid ones), the count is part of the rule: without it, a third paid invoice added
 * later would be answered too.
 */
function countedAsAsked(list: ListBinding, answered: number, request: string): ListBinding {
  if (list.limit !== null) return list;
  const m = ASKED_COUNT.exec(request);
  const word = (m?.[1] ?? m?.[2])?.toLowerCase();
  const n = word === undefined ? NaN : /^\d/.test(word) ? Number(word) : NUMBER_WORDS.indexOf(word);
  return n === answered ? { ...list, limit: n } : list;
}

export interface PlanOptions {
  /**
   * Whether yes/no answers (and null) may be stored as constants: only when the run changed something
   * (a yes/no read from a page could differ next time, so a read-only run with one is not replayable).
   */
  constantsAllowed: boolean;
  /** The request's words: a list's rule filtering on a value they name is the one the request meant (list-rule.page.ts). */
  request?: string;
}

const pathText = (path: (string | number)[]) => (path.length ? path.join('.') : '(result)');

export async function planResult(
  page: Page,
  raw: unknown,
  filled: unknown,
  slots: ParameterSlot[],
  opts: PlanOptions,
): Promise<Bound<ResultPlan>> {
  const visit = async (r: unknown, f: unknown, path: (string | number)[]): Promise<Bound<ResultPlan>> => {
    if (typeof r === 'string' && hasPlaceholder(r)) return { ok: true, value: { kind: 'template', template: r } };
    if (f === null || typeof f === 'boolean' || f === '') {
      return opts.constantsAllowed
        ? { ok: true, value: { kind: 'const', value: f as boolean | null | string } }
        : fail(`${pathText(path)} is ${JSON.stringify(f)}, a value that cannot be read back from a page`);
    }
    if (typeof f === 'string' || typeof f === 'number') {
      const { forms, kind } = formsOf(f);
      const res = await runDom(page, 'bindLeaf', { forms, kind });
      return res.ok ? { ok: true, value: { kind: 'page', binding: res.binding } } : fail(`${pathText(path)}: ${res.error}`);
    }
    if (Array.isArray(f)) return visitList(Array.isArray(r) ? r : [], f, path);
    if (f && typeof f === 'object') {
      const properties: Record<string, ResultPlan> = {};
      for (const [k, v] of Object.entries(f)) {
        const sub = await visit((r as Record<string, unknown> | undefined)?.[k], v, [...path, k]);
        if (!sub.ok) return sub;
        properties[k] = sub.value;
      }
      return { ok: true, value: { kind: 'object', properties } };
    }
    return fail(`${pathText(path)} has an unsupported value`);
  };

  const visitList = async (r: unknown[], items: unknown[], path: (string | number)[]): Promise<Bound<ResultPlan>> => {
    if (items.length === 0) return fail(`${pathText(path)} is an empty list, which cannot be traced to the page`);
    // Fields of an item: its scalar leaves, in the order of the first item's keys.
    const leavesOf = (item: unknown, prefix: string[]): { key: string[]; value: unknown }[] => {
      if (item && typeof item === 'object' && !Array.isArray(item)) {
        return Object.entries(item).flatMap(([k, v]) => leavesOf(v, [...prefix, k]));
      }
      return [{ key: prefix, value: item }];
    };
    const shape = leavesOf(items[0], []).map((l) => l.key.join('.'));
    const rows: (ValueForms | null)[][] = [];
    for (let i = 0; i < items.length; i++) {
      const leaves = leavesOf(items[i], []);
      if (leaves.map((l) => l.key.join('.')).join('|') !== shape.join('|'))
        return fail(`${pathText([...path, i])} does not have the shape of the first item`);
      const row: (ValueForms | null)[] = [];
      for (const l of leaves) {
        const rawLeaf = l.key.reduce<unknown>((acc, k) => (acc as Record<string, unknown> | undefined)?.[k], r[i]);
        if (Array.isArray(l.value))
          return fail(`${pathText([...path, i, ...l.key])}: lists inside list items cannot be traced to the page`);
        if (typeof rawLeaf === 'string' && hasPlaceholder(rawLeaf))
          return fail(`${pathText([...path, i, ...l.key])}: parameters inside list items are not supported`);
        if (typeof l.value !== 'string' && typeof l.value !== 'number')
          return fail(`${pathText([...path, i, ...l.key])} is ${JSON.stringify(l.value)}, a value that cannot be read back from a list`);
        if (l.value === '') return fail(`${pathText([...path, i, ...l.key])} is empty`);
        row.push(formsOf(l.value));
      }
      rows.push(row);
    }
    const values = slots.filter((s) => s.kind === 'string').map((s) => s.value);
    const res = await runDom(page, 'bindList', { items: rows, values, request: opts.request ?? '' });
    if (!res.ok) return fail(`${pathText(path)}: ${res.error}`);
    const kinds = rows[0]!.map((f) => f!.kind);
    let item: ResultPlan;
    if (shape.length === 1 && shape[0] === '') item = { kind: 'field', field: 0, as: kinds[0]! };
    else {
      item = { kind: 'object', properties: {} };
      shape.forEach((key, field) => {
        const parts = key.split('.');
        let node = item as Extract<ResultPlan, { kind: 'object' }>;
        for (const p of parts.slice(0, -1)) {
          node.properties[p] ??= { kind: 'object', properties: {} };
          node = node.properties[p] as Extract<ResultPlan, { kind: 'object' }>;
        }
        node.properties[parts[parts.length - 1]!] = { kind: 'field', field, as: kinds[field]! };
      });
    }
    return {
      ok: true,
      value: { kind: 'list', list: parameterised(countedAsAsked(res.plan, items.length, opts.request ?? ''), slots), item },
    };
  };

  const planned = await visit(raw, filled, []);
  if (!planned.ok) return planned;
  // Each list keeps what made it right on this page (its container's identity, its items' shape): a replay checks it first.
  const checked = await describeLists(page, planned.value, slots);
  if (!checked.ok) return checked;
  // Accepted only if reading it back on this very page gives the answer the planner returned.
  const back = await readResult(page, planned.value, slots);
  if (!back.ok) return fail(`reading the result back failed: ${back.reason}`);
  if (!isDeepStrictEqual(back.value, filled)) return fail('reading the result back from the page does not give the same answer');
  return planned;
}

/** A value read from the page, normalised as it was bound: a printed number to its value, a relative day to its date. */
function coerce(text: string, as: ValueKind): unknown {
  if (as === 'number') return printedNumber(text);
  if (as === 'day') {
    const days = relativeDays(text);
    return days === null ? text : isoDayBefore(days, new Date());
  }
  return text;
}

/** The DOM script's binding reads, many in one call (read-bindings.page.ts). */
const READ_BINDINGS = pageFunction<typeof readBindingsInPage>(PAGE_ENTRIES.readBindings);

type LeafAnswer = { ok: true; text: string } | { ok: false; error: string; mismatch?: true };
type ListAnswer = { ok: true; rows: string[][] } | Exclude<CheckedRows, { ok: true }>;

/** Adds to every list and page leaf of a plan its check, taken on this page (list-check.page.ts, leaf-check.page.ts); one that cannot be taken is not recorded. */
async function describeLists(page: Page, plan: ResultPlan, slots: ParameterSlot[]): Promise<Bound<null>> {
  const nodes: Extract<ResultPlan, { kind: 'list' | 'page' }>[] = [];
  const collect = (p: ResultPlan): void => {
    if (p.kind === 'list' || p.kind === 'page') nodes.push(p);
    else if (p.kind === 'object') Object.values(p.properties).forEach(collect);
  };
  collect(plan);
  const answers = await readBindings(
    page,
    nodes.map((n) => (n.kind === 'list' ? { describe: filledList(n.list, slots) } : { describeLeaf: n.binding })),
  );
  for (let i = 0; i < nodes.length; i++) {
    const a = answers[i] as { ok: true; check: ListCheck | LeafCheck | null } | { ok: false; error: string };
    if (!a.ok || !a.check) return fail(`the place a value was read from cannot be told apart on the page${a.ok ? '' : `: ${a.error}`}`);
    const node = nodes[i]!;
    if (node.kind === 'list') node.check = a.check as ListCheck;
    else node.check = a.check as LeafCheck;
  }
  return { ok: true, value: null };
}

const NAVIGATED = /Execution context was destroyed|Cannot find context|navigat|Target closed|frame was detached/i;

async function readBindings(page: Page, reads: BindingRead[]): Promise<BindingAnswer[]> {
  if (reads.length === 0) return [];
  // Rides out a navigation that replaces the document mid-call, as runDom does.
  for (let attempt = 0; ; attempt++) {
    try {
      // In an isolated world of ours: the reads call nothing the page's scripts could wrap and record (issue 36).
      return await evaluateIsolated(page, READ_BINDINGS, reads);
    } catch (err) {
      if (attempt >= 3 || !NAVIGATED.test(String((err as Error)?.message ?? err)) || page.isClosed()) throw err;
      await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined);
    }
  }
}

/** Reads a result from the live page through its plan (every page binding in one call). */
export async function readResult(page: Page, plan: ResultPlan, slots: ParameterSlot[]): Promise<Bound<unknown>> {
  const reads: BindingRead[] = [];
  const slotOf = new Map<ResultPlan, number>();
  const collect = (p: ResultPlan): void => {
    if (p.kind === 'page') slotOf.set(p, reads.push({ leaf: p.binding, ...(p.check ? { check: p.check } : {}) }) - 1);
    else if (p.kind === 'list') slotOf.set(p, reads.push({ list: filledList(p.list, slots), ...(p.check ? { check: p.check } : {}) }) - 1);
    else if (p.kind === 'object') Object.values(p.properties).forEach(collect);
  };
  collect(plan);
  const answers = await readBindings(page, reads);

  const read = (p: ResultPlan, row: string[] | null): Bound<unknown> => {
    switch (p.kind) {
      case 'const':
        return { ok: true, value: p.value };
      case 'template':
        return { ok: true, value: fillDeep(p.template, slots) };
      case 'field': {
        const text = row?.[p.field];
        return text == null ? fail('list field outside a list') : { ok: true, value: coerce(text, p.as) };
      }
      case 'page': {
        const res = answers[slotOf.get(p)!] as LeafAnswer;
        if (res.ok) return { ok: true, value: coerce(res.text, p.binding.kind) };
        return 'mismatch' in res ? { ok: false, reason: res.error, mismatch: true } : fail(res.error);
      }
      case 'list': {
        const res = answers[slotOf.get(p)!] as ListAnswer;
        if (!res.ok) return 'mismatch' in res ? { ok: false, reason: res.error, mismatch: true } : fail(res.error);
        const out: unknown[] = [];
        for (const r of res.rows) {
          const item = read(p.item, r);
          if (!item.ok) return item;
          out.push(item.value);
        }
        return { ok: true, value: out };
      }
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const [k, sub] of Object.entries(p.properties)) {
          const v = read(sub, row);
          if (!v.ok) return v;
          out[k] = v.value;
        }
        return { ok: true, value: out };
      }
    }
  };
  return read(plan, null);
}
