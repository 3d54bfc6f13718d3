import fs from 'node:fs';
import path from 'node:path';

import type * as Esbuild from 'esbuild';

import { readCachedBundle, writeCachedBundle } from './bundle-cache';

/**
 * Code that runs in a browser page (the agent's DOM scripts and in-page tool bodies, the page-quiet tracker, the
 * connect widget, the dashboard's script) is written as TypeScript modules with DOM types, checked by tsc and ESLint
 * like the rest, and bundled by esbuild into one string per entry:
 *   - at build time: `npm run build` (scripts/build.mjs) writes every entry to dist/server/page-code/bundles.json,
 *     which the compiled server reads (production installs have no esbuild: it is a dev dependency);
 *   - on the fly in development and tests (tsx, jest): the first use bundles the entry, once per process, and keeps
 *     the bundle on disk for the next process while none of its input files changes (bundle-cache.ts).
 * Bundles are built without keepNames, so nothing tsx would add (`__name`) reaches a page, for a target the pages
 * run (es2019), in ASCII and without whitespace (see bundleNow).
 *
 * Two kinds of entry:
 *   - `script`: a module run for its effects (the widget): an IIFE, served as a file;
 *   - `function`: a module whose default export is a function (or an object of functions): the bundle is an
 *     *expression* (source text) that evaluates to it, for CDP's Runtime.evaluate (`(${source})(args)`) and, through
 *     page-function.ts, for Playwright's page.evaluate / locator.evaluate.
 * The list of entries is page-code/entries.ts.
 */
export type PageEntryKind = 'script' | 'function';

export interface PageEntry {
  /** The module, relative to the repository root (server/…/x.page.ts). */
  file: string;
  kind: PageEntryKind;
}

/** Where the built bundles are, beside the compiled server (dist/server/page-code/bundles.json). */
export const BUNDLES_FILE = path.join(__dirname, 'bundles.json');

const ROOT = path.resolve(__dirname, '..', '..');
const built: Record<string, string> | null = readBuilt();
const cache = new Map<string, string>();

function readBuilt(): Record<string, string> | null {
  try {
    return JSON.parse(fs.readFileSync(BUNDLES_FILE, 'utf8')) as Record<string, string>;
  } catch {
    return null;
  }
}

/** The entry's bundle: from the build when there is one, else from this process's or the disk's cache, else bundled now. */
export function pageBundle(entry: PageEntry): string {
  const fromBuild = built?.[entry.file];
  if (fromBuild !== undefined) return fromBuild;
  let code = cache.get(entry.file);
  if (code === undefined) {
    code = readCachedBundle(ROOT, entry);
    if (code === undefined) {
      const made = bundleWithInputs(entry, ROOT);
      writeCachedBundle(ROOT, entry, made);
      code = made.code;
    }
    cache.set(entry.file, code);
  }
  return code;
}

// The bundle's own name for the module (a local of the expression below): nothing in it may name the product, since a
// page can read some bundles (the device prelude is the text of every worker script it starts).
const GLOBAL = '__pageEntry';

/**
 * Bundles one entry with esbuild (a dev dependency: present wherever the sources run, absent in production).
 * `root`: the repository the entry's file is in (the build script passes it: from dist/ this module's own guess
 * would be dist/, where there are no sources).
 */
export function bundleNow(entry: PageEntry, root: string = ROOT): string {
  return bundleWithInputs(entry, root).code;
}

/** The bundle, and the files it was made of (relative to root, with their sizes): what the disk cache keeps it by. */
export function bundleWithInputs(entry: PageEntry, root: string): { code: string; inputs: Record<string, number> } {
  // Loaded here only: the compiled server never gets this far (it reads bundles.json), and has no esbuild.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof Esbuild;
  const result = esbuild.buildSync({
    entryPoints: [path.join(root, entry.file)],
    absWorkingDir: root,
    metafile: true,
    bundle: true,
    write: false,
    platform: 'browser',
    target: 'es2019',
    format: 'iife',
    keepNames: false,
    legalComments: 'none',
    // ASCII only (other characters as \u escapes): a source with one non-ASCII character is a two-byte string, which
    // the page parses markedly slower (the observation's script took 1.5 ms more per call with a single "…").
    charset: 'ascii',
    // Less to send and to parse on every call; names stay, so an error in the page still says what failed.
    minifyWhitespace: true,
    ...(entry.kind === 'function' ? { globalName: GLOBAL } : {}),
  });
  const code = result.outputFiles[0]!.text.trim();
  const inputs = Object.fromEntries(Object.entries(result.metafile.inputs).map(([file, input]) => [file, input.bytes]));
  if (entry.kind === 'script') return { code, inputs };
  // `var __pageEntry = (() => { … })();` → an expression whose value is the module's default export.
  // On one line (esbuild's output has no line break of its own outside template literals): the device's prelude goes
  // on a worker script's first line, and the script's own lines keep their numbers (worker-prelude.ts).
  return { code: `(function () { ${code};return ${GLOBAL}.default; })()`, inputs };
}
