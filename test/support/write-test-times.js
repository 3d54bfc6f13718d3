#!/usr/bin/env node
/**
 * Writes test-times.json (what longest-first-sequencer.js orders a fresh clone's run by) from the per-file figures the
 * timing reporter wrote to AGENTLINK_TIMING_JSON: `node test/support/write-test-times.js <that file>`.
 */
const fs = require('node:fs');
const path = require('node:path');

const source = process.argv[2];
if (!source) {
  console.error('usage: node test/support/write-test-times.js <AGENTLINK_TIMING_JSON file>');
  process.exit(2);
}
const { files } = JSON.parse(fs.readFileSync(source, 'utf8'));
const times = Object.fromEntries(files.map((f) => [f.file, Math.round(f.seconds * 10) / 10]).sort(([a], [b]) => a.localeCompare(b)));
fs.writeFileSync(path.join(__dirname, 'test-times.json'), JSON.stringify(times, null, 2) + '\n');
console.log(`test-times.json: ${Object.keys(times).length} files`);
