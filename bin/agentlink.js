#!/usr/bin/env node
/**
 * The `agentlink` command (`npx agentlink …`, the package's bin). In a checkout with its dev dependencies it runs
 * the TypeScript sources through tsx, so it is never behind them; in a production install (no tsx, `npm run build`
 * done, as in the Docker image) it runs the compiled dist/server/main.js with plain Node.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const sources = path.join(root, 'server', 'main.ts');
const compiled = path.join(root, 'dist', 'server', 'main.js');

function tsxAvailable() {
  try {
    require.resolve('tsx/cjs', { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

if (fs.existsSync(sources) && tsxAvailable()) {
  require(require.resolve('tsx/cjs', { paths: [root] }));
  require(sources).runCli(process.argv.slice(2));
} else if (fs.existsSync(compiled)) {
  require(compiled).runCli(process.argv.slice(2));
} else {
  process.stderr.write('agentlink: dist/server/main.js is missing: run `npm run build` first (or install the dev dependencies).\n');
  process.exit(1);
}
