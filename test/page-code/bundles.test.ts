import fs from 'node:fs';
import path from 'node:path';

import type { Browser, Page } from 'playwright-core';

import { PAGE_ENTRIES } from '../../server/page-code/entries';
import { bundleNow, pageBundle } from '../../server/page-code/page-bundle';
import { callExpression, pageFunction } from '../../server/page-code/page-function';
import { startBrowser } from '../support/live-server';

/**
 * Every entry of server/page-code/entries.ts bundles, as `npm run build` bundles it, into code a page can run:
 * nothing tsx would add (`__name`), nothing of Node, ASCII only; a function entry evaluates to its default export.
 */
jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const entries = Object.entries(PAGE_ENTRIES);

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await startBrowser();
  page = await browser.newPage();
  await page.setContent('<!doctype html><title>Bundles</title><p>Bundles</p>');
});
afterAll(async () => {
  await browser?.close();
});

it('lists modules that exist, each named *.page.ts (the widget: the main.ts of its page/ modules), each once', () => {
  const files = entries.map(([, e]) => e.file);
  expect(new Set(files).size).toBe(files.length);
  for (const file of files) {
    // The connect widget is an app of its own (connect/widget/page/*.ts): it imports the contract's message names.
    expect(file).toMatch(/^server\/(.+\.page\.ts|connect\/widget\/page\/main\.ts)$/);
    expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
  }
});

describe.each(entries)('%s', (_, entry) => {
  const code = bundleNow(entry, ROOT);

  it('bundles to page code: no __name, no require or process, ASCII only', () => {
    expect(code.length).toBeGreaterThan(100);
    expect(code).not.toContain('__name');
    expect(code).not.toMatch(/\brequire\(|\bprocess\.|__dirname/);
    expect([...code].every((c) => c.charCodeAt(0) < 128)).toBe(true);
    // What pageBundle serves in development and tests is the same bundle.
    expect(pageBundle(entry)).toBe(code);
  });

  if (entry.kind === 'function') {
    it('evaluates in a page to its default export: a function, or an object of functions', async () => {
      const shape = await page.evaluate(`(function (x) {
        if (typeof x === 'function') return 'function';
        return Object.keys(x).map(function (k) { return k + ':' + typeof x[k]; }).join(',');
      })(${code})`);
      expect(shape === 'function' || /^(\w+:function,?)+$/.test(String(shape))).toBe(true);
    });
  }
});

describe('page functions in Node', () => {
  it('are stand-ins whose text is the bundle: calling one in Node is an error', () => {
    const fn = pageFunction<(a: number) => number>(PAGE_ENTRIES.scroll);
    expect(String(fn)).toBe(pageBundle(PAGE_ENTRIES.scroll));
    expect(() => fn(1)).toThrow(/runs in a browser page/);
    const member = pageFunction<() => void>(PAGE_ENTRIES.checkable, 'probe');
    expect(String(member)).toBe(`(${pageBundle(PAGE_ENTRIES.checkable)})["probe"]`);
  });

  it('an expression calls the default export with its arguments as JSON', async () => {
    expect(callExpression(PAGE_ENTRIES.agentDom, 'extractText', { maxChars: 100 })).toBe(
      `(${pageBundle(PAGE_ENTRIES.agentDom)})("extractText", {"maxChars":100})`,
    );
    expect(await page.evaluate(callExpression(PAGE_ENTRIES.agentDom, 'extractText', { maxChars: 100 }))).toMatchObject({
      ok: true,
      text: 'Bundles',
    });
    await expect(page.evaluate(callExpression(PAGE_ENTRIES.agentDom, 'nothing' as 'snapshot', {}))).rejects.toThrow(
      /unknown operation nothing/,
    );
  });
});
