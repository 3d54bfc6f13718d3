import type { Locator, Page } from 'playwright-core';

import { DOM_SCRIPT } from './dom-script';
import { Redactor } from './redact';

/**
 * Page → compact indexed view (the observation). Built in the page by DOM_SCRIPT: interactive elements with
 * role, accessible name, value and states, interleaved with visible text and headings; each element is marked
 * with data-agentlink-idx so a tool can act on its index. Every string is redacted before it is returned.
 * This module knows nothing of models or prompts.
 */
export interface ElementStates {
  checked?: boolean | 'mixed';
  disabled?: boolean;
  expanded?: boolean;
  selected?: boolean;
  pressed?: boolean | 'mixed';
  required?: boolean;
  invalid?: boolean;
  readonly?: boolean;
  focused?: boolean;
  current?: boolean;
  haspopup?: string;
}

export interface ObservedElement {
  index: number;
  role: string;
  name: string;
  tag: string;
  /** The nearest labelled container: "dialog 'Create a post'", "article 'Post by Ada'", "navigation 'Main'". */
  scope: string | null;
  value?: string;
  states: ElementStates;
  /** Options of a native <select>. */
  options?: string[];
}

/** A line of the page view: text (h = inside a heading of that level), an element by index, or a region label. */
export type SnapshotLine = { k: 't'; s: string; h?: number } | { k: 'e'; i: number; h?: number } | { k: 's'; s: string };

export interface PageSnapshot {
  url: string;
  title: string;
  /** A modal dialog is open: only its content is in the snapshot. */
  modal: boolean;
  elements: ObservedElement[];
  lines: SnapshotLine[];
  truncated: { elements: number; text: boolean };
}

export interface SnapshotOptions {
  redactor?: Redactor;
  maxElements?: number;
  maxTextChars?: number;
}

export const INDEX_ATTRIBUTE = 'data-agentlink-idx';
export const OPTION_ATTRIBUTE = 'data-agentlink-opt';

const RETRYABLE = /Execution context was destroyed|Cannot find context|navigat|Target closed|frame was detached/i;

/** Runs one operation of DOM_SCRIPT in the page, riding out a navigation that replaces the document mid-call. */
export async function runDom<T>(page: Page, op: string, args: unknown = {}): Promise<T> {
  const expression = `(${DOM_SCRIPT})(${JSON.stringify(op)}, ${JSON.stringify(args)})`;
  for (let attempt = 0; ; attempt++) {
    try {
      return (await page.evaluate(expression)) as T;
    } catch (err) {
      if (attempt >= 3 || !RETRYABLE.test(String((err as Error)?.message ?? err)) || page.isClosed()) throw err;
      await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined);
    }
  }
}

export async function takeSnapshot(page: Page, opts: SnapshotOptions = {}): Promise<PageSnapshot> {
  const raw = await runDom<PageSnapshot>(page, 'snapshot', {
    maxElements: opts.maxElements ?? 300,
    maxTextChars: opts.maxTextChars ?? 6000,
  });
  return redactSnapshot(raw, opts.redactor ?? new Redactor());
}

function redactSnapshot(s: PageSnapshot, r: Redactor): PageSnapshot {
  const t = (v: string) => r.text(v);
  return {
    url: t(s.url),
    title: t(s.title),
    modal: s.modal,
    truncated: s.truncated,
    elements: s.elements.map((e) => ({
      ...e,
      name: t(e.name),
      scope: e.scope === null ? null : t(e.scope),
      ...(e.value !== undefined ? { value: t(e.value) } : {}),
      ...(e.options ? { options: e.options.map(t) } : {}),
    })),
    lines: s.lines.map((l) => (l.k === 'e' ? l : { ...l, s: t(l.s) })),
  };
}

/** The element a snapshot gave `index` to (valid until the next snapshot). */
export function elementLocator(page: Page, index: number): Locator {
  return page.locator(`[${INDEX_ATTRIBUTE}="${index}"]`);
}

/** Short human description of an element: "button 'Post'" (used in traces and tool results). */
export function describeElement(e: Pick<ObservedElement, 'role' | 'name'>): string {
  return `${e.role} ${quote(e.name)}`;
}

/** Quotes a page string on one line: a name holding a line break must not start a line of its own. */
export function quote(s: string): string {
  return `'${s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/g, '\\n')}'`;
}

/** Visible text of one element (by index) or of the main region, redacted and bounded. */
export async function extractText(
  page: Page,
  index: number | undefined,
  redactor: Redactor,
  maxChars = 4000,
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  const res = await runDom<{ ok: true; text: string } | { ok: false; error: string }>(page, 'extractText', { index, maxChars });
  return res.ok ? { ok: true, text: redactor.text(res.text) } : res;
}
