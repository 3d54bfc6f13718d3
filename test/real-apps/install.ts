import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { APPS_PACKAGE_DIR, appsDir } from './app-process';

/**
 * Installs the real apps (./apps/package.json and its lockfile) into the cache folder (AGENTLINK_REAL_APPS_DIR, else
 * ~/.cache/agentlink-real-apps) with `npm ci`, unless that very lockfile is installed there already. Run by
 * `npm run test:real-apps` and `npm run bench:real-apps`: the apps are ~160 MB and ~500 packages, so they are not
 * devDependencies of the project (every `npm ci` would pay for them). Install scripts are off: neither app needs one.
 */
function main(): void {
  const dir = appsDir();
  const lock = fs.readFileSync(path.join(APPS_PACKAGE_DIR, 'package-lock.json'));
  const digest = createHash('sha256')
    .update(fs.readFileSync(path.join(APPS_PACKAGE_DIR, 'package.json')))
    .update(lock)
    .digest('hex');
  const marker = path.join(dir, '.installed-lock-sha256');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === digest && fs.existsSync(path.join(dir, 'node_modules'))) {
    console.log(`real apps: installed in ${dir}`);
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(APPS_PACKAGE_DIR, file), path.join(dir, file));
  const started = Date.now();
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  fs.writeFileSync(marker, digest);
  console.log(`real apps: installed in ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main();
