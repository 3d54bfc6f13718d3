import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { readCachedBundle, writeCachedBundle } from '../../server/page-code/bundle-cache';
import { bundleWithInputs, type PageEntry } from '../../server/page-code/page-bundle';

/**
 * Bundles made on the fly are kept on disk for the next process (each jest test file is one), and served again only
 * while every file they were made of, and the bundler's own set-up, is unchanged.
 */
const REPO = path.resolve(__dirname, '../..');
const entry: PageEntry = { file: 'code/greet.page.ts', kind: 'function' };
let root: string;

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-test-bundle-cache-'));
  for (const file of ['server/page-code/page-bundle.ts', 'tsconfig.json', 'node_modules/esbuild/package.json']) {
    write(file, fs.readFileSync(path.join(REPO, file), 'utf8'));
  }
  write('code/greet.page.ts', `import { name } from './name.page';\nexport default function greet(): string { return 'hello ' + name; }\n`);
  write('code/name.page.ts', `export const name = 'world';\n`);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function bundleAndKeep(): string {
  const made = bundleWithInputs(entry, root);
  writeCachedBundle(root, entry, made);
  return made.code;
}

it('serves a kept bundle to the next reader while nothing it was made of has changed', () => {
  expect(readCachedBundle(root, entry)).toBeUndefined();
  const code = bundleAndKeep();
  expect(code).toContain('hello ');
  expect(readCachedBundle(root, entry)).toBe(code);
});

it('misses when a file the bundle imported changes, even one the entry only reaches through an import', () => {
  bundleAndKeep();
  write('code/name.page.ts', `export const name = 'there';\n`);
  expect(readCachedBundle(root, entry)).toBeUndefined();
  // Bundled again, it is kept again, with the new text.
  expect(bundleAndKeep()).toContain('there');
  expect(readCachedBundle(root, entry)).toContain('there');
});

it('misses when the bundler changes (its options file, tsconfig.json, the esbuild version) or an input is gone', () => {
  for (const file of ['server/page-code/page-bundle.ts', 'tsconfig.json', 'node_modules/esbuild/package.json']) {
    bundleAndKeep();
    fs.appendFileSync(path.join(root, file), '\n');
    expect(readCachedBundle(root, entry)).toBeUndefined();
  }
  bundleAndKeep();
  fs.rmSync(path.join(root, 'code/name.page.ts'));
  expect(readCachedBundle(root, entry)).toBeUndefined();
});

it('treats a damaged cache file as a miss, and keeps no bundle whose input changed size while it was bundled', () => {
  bundleAndKeep();
  const folder = path.join(root, 'node_modules/.cache/agentlink-page-code');
  const [file] = fs.readdirSync(folder);
  for (const text of ['{', '{"code":"x"}', '{"code":"x","inputs":{}}', 'null']) {
    fs.writeFileSync(path.join(folder, file!), text);
    expect(readCachedBundle(root, entry)).toBeUndefined();
  }
  fs.rmSync(folder, { recursive: true });
  const made = bundleWithInputs(entry, root);
  write('code/name.page.ts', `export const name = 'someone else';\n`);
  writeCachedBundle(root, entry, made);
  expect(readCachedBundle(root, entry)).toBeUndefined();
  expect(fs.existsSync(folder) ? fs.readdirSync(folder) : []).toEqual([]);
});
