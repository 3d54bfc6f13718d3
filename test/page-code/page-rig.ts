import type { Browser, Page } from 'playwright-core';

import type { DomOp, DomOps } from '../../server/agent/observation/dom/agent-dom.page';
import type { ObservedElement } from '../../server/agent/observation/types';
import { PAGE_ENTRIES } from '../../server/page-code/entries';
import { callExpression } from '../../server/page-code/page-function';
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

/** One operation of the observation's DOM script, as documents.ts runs it (one expression, arguments as JSON). */
export async function dom<K extends DomOp>(page: Page, op: K, args: Parameters<DomOps[K]>[0]): Promise<ReturnType<DomOps[K]>> {
  return (await page.evaluate(callExpression(PAGE_ENTRIES.agentDom, op, args))) as ReturnType<DomOps[K]>;
}

/** The element a snapshot listed with this name (exactly one). */
export function named(elements: ObservedElement[], name: string): ObservedElement {
  const hits = elements.filter((e) => e.name === name);
  if (hits.length !== 1)
    throw new Error(`${hits.length} elements named ${JSON.stringify(name)} in ${JSON.stringify(elements.map((e) => e.name))}`);
  return hits[0]!;
}
