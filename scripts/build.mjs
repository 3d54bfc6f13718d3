/**
 * `npm run build`: compiles the server to JavaScript in dist/ (tsc -p tsconfig.build.json), then copies the files
 * the server reads at run time from beside its code (the connect widget's HTML and CSS, any non-TypeScript
 * file under server/) to the same place under dist/server/, and bundles the code that runs in browser pages (every
 * entry of server/page-code/entries.ts, with esbuild) into dist/server/page-code/bundles.json. `npm run start:prod`
 * then runs dist/server/main.js with plain Node: no tsx, no TypeScript, no esbuild, no dev dependency. Building needs
 * the dev dependencies (TypeScript, @types, esbuild); running does not (the Dockerfile builds in one stage and runs
 * in another).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

fs.rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });

const from = path.join(root, 'server');
const to = path.join(dist, 'server');
let copied = 0;
function copyAssets(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const source = path.join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(source);
    else if (entry.isFile() && !/\.tsx?$/.test(entry.name)) {
      const target = path.join(to, path.relative(from, source));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(source, target);
      copied += 1;
    }
  }
}
copyAssets(from);

// The page code: the list of entries and the bundler as just compiled (one list, one way to bundle, as in development).
const requireDist = createRequire(path.join(dist, 'server', 'page-code', 'build.js'));
const { PAGE_ENTRIES } = requireDist('./entries.js');
const { BUNDLES_FILE, bundleNow } = requireDist('./page-bundle.js');
const bundles = {};
for (const entry of Object.values(PAGE_ENTRIES)) bundles[entry.file] = bundleNow(entry, root);
fs.writeFileSync(BUNDLES_FILE, JSON.stringify(bundles));

process.stdout.write(
  `built dist/ (server, contract, OpenAPI document), copied ${copied} runtime assets to dist/server/ and bundled ${Object.keys(bundles).length} page entries\n`,
);
