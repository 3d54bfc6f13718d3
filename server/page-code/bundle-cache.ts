import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Bundles made on the fly (development and tests: see page-bundle.ts), kept on disk between processes, as
 * babel-loader's and ESLint's caches are: jest gives every test file a module registry of its own, so without it each
 * of some 250 files bundled its entries again (an esbuild run per entry: about 0.1 s per file of the main process's
 * CPU, and the esbuild child's besides). A bundle is served again only while every file it was made of, the bundler's
 * own options (page-bundle.ts) and esbuild's version are byte for byte what they were; anything unreadable is a miss.
 * The production server never gets here: it reads the bundles `npm run build` wrote.
 */
/** An entry of entries.ts, as far as the cache names it (page-bundle.ts's PageEntry; not imported, page-bundle imports this). */
interface Entry {
  file: string;
  kind: string;
}

const CACHE_FOLDER = path.join('node_modules', '.cache', 'agentlink-page-code');

/** What a bundle also depends on besides its inputs: how it is bundled, and with which esbuild. */
const TOOLING = ['server/page-code/page-bundle.ts', 'tsconfig.json', 'node_modules/esbuild/package.json'];

interface CachedBundle {
  /** Each file the bundle was made of (relative to the repository) and the SHA-256 of its bytes. */
  inputs: Record<string, string>;
  code: string;
}

function fileBytes(root: string, file: string): Buffer | undefined {
  try {
    return fs.readFileSync(path.join(root, file));
  } catch {
    return undefined;
  }
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function cacheFile(root: string, entry: Entry): string {
  const name = createHash('sha256').update(`${entry.kind}\0${entry.file}`).digest('hex').slice(0, 32);
  return path.join(root, CACHE_FOLDER, `${name}.json`);
}

/** The entry's bundle as an earlier process made it, when none of what it was made of has changed since. */
export function readCachedBundle(root: string, entry: Entry): string | undefined {
  let cached: CachedBundle;
  try {
    cached = JSON.parse(fs.readFileSync(cacheFile(root, entry), 'utf8')) as CachedBundle;
  } catch {
    return undefined;
  }
  if (typeof cached?.code !== 'string' || typeof cached.inputs !== 'object' || cached.inputs === null) return undefined;
  const files = Object.keys(cached.inputs);
  if (!TOOLING.every((file) => files.includes(file))) return undefined;
  for (const file of files) {
    const bytes = fileBytes(root, file);
    if (!bytes || sha256(bytes) !== cached.inputs[file]) return undefined;
  }
  return cached.code;
}

/**
 * Keeps a bundle for the next process. Written whole under a temporary name and renamed, so a process reading at the
 * same time (two jest workers) sees the old file or the new one, never half of one. A cache that cannot be written
 * (a read-only checkout) only costs the next process a bundling. `inputs` gives each input's size as esbuild read it:
 * a file whose size changed since (an edit while it bundled) is not kept, rather than kept under its new hash.
 */
export function writeCachedBundle(root: string, entry: Entry, made: { code: string; inputs: Record<string, number> }): void {
  const inputs: Record<string, string> = {};
  for (const file of [...Object.keys(made.inputs), ...TOOLING]) {
    const bytes = fileBytes(root, file);
    if (!bytes || (file in made.inputs && bytes.length !== made.inputs[file])) return;
    inputs[file] = sha256(bytes);
  }
  const target = cacheFile(root, entry);
  const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(temporary, JSON.stringify({ inputs, code: made.code } satisfies CachedBundle));
    fs.renameSync(temporary, target);
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}
