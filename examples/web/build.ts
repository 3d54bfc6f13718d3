import fs from 'node:fs';
import path from 'node:path';

import { build } from 'esbuild';

/** Bundles the example web app (src/main.tsx → app.js) and copies index.html into outDir (default examples/web/dist). */
export async function buildWebApp(outDir = path.join(__dirname, 'dist')): Promise<string> {
  fs.mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(__dirname, 'src', 'main.tsx')],
    outfile: path.join(outDir, 'app.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    jsx: 'automatic',
    minify: true,
    sourcemap: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(__dirname, 'index.html'), path.join(outDir, 'index.html'));
  return outDir;
}

if (require.main === module) {
  buildWebApp().then(
    (dir) => process.stdout.write(`example web app built into ${path.relative(process.cwd(), dir)}\n`),
    (err) => {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
