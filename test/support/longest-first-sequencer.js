const fs = require('node:fs');
const path = require('node:path');

const Sequencer = require('@jest/test-sequencer').default;

const { kindOf } = require('./test-kind');

/**
 * Runs the longest test files first, so the two workers end together instead of one running the slowest file alone at
 * the end. Jest does this only from its cache of an earlier run on this machine; a fresh clone (CI) has none, and jest's
 * fallback, file size, put the slowest file of all (the agent corpus: a small file of many runs) near the very end.
 * So the expected time of a file is, in order: jest's cache, then the times of the last CI run kept in test-times.json
 * (`node test/support/write-test-times.js <AGENTLINK_TIMING_JSON file>` refreshes them), then a guess by kind.
 */
const TIMES = JSON.parse(fs.readFileSync(path.join(__dirname, 'test-times.json'), 'utf8'));
/** Median seconds per file of each kind in the CI runs measured (README, Tests). */
const GUESS_SECONDS = { browser: 12, process: 20, postgres: 5, api: 4 };

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const expected = new Map();
    for (const test of tests) {
      const cachedMs = this.time(test);
      const file = path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
      expected.set(test, cachedMs != null ? cachedMs / 1000 : (TIMES[file] ?? GUESS_SECONDS[kindOf(test.path)]));
    }
    // A file that failed last time still comes first (jest's rule: the quickest feedback on what is being fixed).
    const failed = (test) => (this.hasFailed(test) ? 1 : 0);
    return [...tests].sort((a, b) => failed(b) - failed(a) || expected.get(b) - expected.get(a));
  }
}

module.exports = LongestFirstSequencer;
