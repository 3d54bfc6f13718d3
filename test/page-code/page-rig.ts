import type { Browser, JSHandle, Page } from 'playwright-core';

import type { DomOp, DomOps } from '../../server/agent/observation/dom/agent-dom.page';
import type { Refs } from '../../server/agent/observation/dom/tree.page';
import type { ObservedElement } from '../../server/agent/observation/types';
import { PAGE_ENTRIES } from '../../server/page-code/entries';
import { pageBundle, type PageEntry } from '../../server/page-code/page-bundle';
import { startBrowser } from '../support/live-server';

/**
 * What the page-code tests share: real Chromium, one page per test file, small HTML fixtures set with
 * page.setContent, and the bundled page functions called the way the server calls them.
 */
export function usePage(): { page: () => Page; set: (body: string, head?: string) => Promise<Page> } {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await startBrowser();
    page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    page: () => page,
    set: async (body, head = '') => {
      await page.setContent(
        `<!doctype html><html><head><meta charset="utf-8"><title>Fixture</title>${head}</head><body>${body}</body></html>`,
      );
      return page;
    },
  };
}

/** The page's references object (what the latest operation listed), held by a handle as the server holds it. */
const held = new WeakMap<Page, JSHandle<Refs>>();

async function refsOf(page: Page): Promise<JSHandle<Refs>> {
  let refs = held.get(page);
  // a handle of a document that was replaced since is let go of
  if (!refs || !(await refs.evaluate(() => true).catch(() => false))) {
    refs = await page.evaluateHandle(() => ({ el: [], sec: [], frame: [], opt: [] }) as unknown as Refs);
    held.set(page, refs);
  }
  return refs;
}

/** Calls a function entry with its arguments and the page's references (as documents.ts does: never on the window). */
export async function callWithRefs<T>(page: Page, entry: PageEntry, ...args: unknown[]): Promise<T> {
  const fn = () => undefined;
  Object.defineProperty(fn, 'toString', { value: () => `function (r, a) { return (${pageBundle(entry)}).apply(null, a.concat([r])); }` });
  return (await (await refsOf(page)).evaluate(fn as unknown as (r: Refs, a: unknown[]) => T, args)) as T;
}

/** One operation of the observation's DOM script, with the page's references. */
export async function dom<K extends DomOp>(page: Page, op: K, args: Parameters<DomOps[K]>[0]): Promise<ReturnType<DomOps[K]>> {
  return callWithRefs<ReturnType<DomOps[K]>>(page, PAGE_ENTRIES.agentDom, op, args);
}

/** The text of each referenced element of a kind, by its number. */
export async function referenced(page: Page, kind: keyof Refs): Promise<[number, string][]> {
  return (await refsOf(page)).evaluate((r, k) => {
    const out: [number, string][] = [];
    r[k].forEach((e, i) => out.push([i, (e.textContent || '').trim()]));
    return out;
  }, kind);
}

/** Whether a referenced element of a kind is this one (a selector in the document). */
export async function refersTo(page: Page, kind: keyof Refs, n: number, selector: string): Promise<boolean> {
  return (await refsOf(page)).evaluate((r, a) => r[a.kind][a.n] === document.querySelector(a.selector), { kind, n, selector });
}

/** The element a snapshot listed with this name (exactly one). */
export function named(elements: ObservedElement[], name: string): ObservedElement {
  const hits = elements.filter((e) => e.name === name);
  if (hits.length !== 1)
    throw new Error(`${hits.length} elements named ${JSON.stringify(name)} in ${JSON.stringify(elements.map((e) => e.name))}`);
  return hits[0]!;
}
