// @ts-check
/**
 * Jest reporter (in every `npm test`, after the default one): where the run's time went, per kind of test file, so
 * the next slow-down is seen in the run that caused it. A file's kind is what it needs, read from its source:
 *   browser   launches Chromium (a live server with a worker, startBrowser, Playwright)
 *   process   starts other processes (the CLI, packages, several AgentLink processes)
 *   postgres  an API or store test that also runs on PostgreSQL (describeEachStore, or a PostgreSQL dialect)
 *   api       the rest: API, store and unit tests on SQLite or in memory
 * Seconds are each file's own wall time (start to end in its worker), summed per kind: with two workers the run takes
 * about half of the total. AGENTLINK_TIMING_JSON=<file> also writes the per-file figures as JSON.
 */
const fs = require('node:fs');
const path = require('node:path');

const { kindOf } = require('./test-kind');

const KINDS = ['browser', 'process', 'postgres', 'api'];

const median = (xs) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

class TimingReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    /** @type {{ file: string; kind: string; seconds: number; tests: number }[]} */
    this.files = [];
    this.started = Date.now();
  }

  onTestResult(_test, result) {
    const seconds = Math.max(0, (result.perfStats.end - result.perfStats.start) / 1000);
    this.files.push({
      file: path.relative(this.rootDir, result.testFilePath),
      kind: kindOf(result.testFilePath),
      seconds,
      tests: result.numPassingTests + result.numFailingTests,
    });
  }

  onRunComplete() {
    if (this.files.length === 0) return;
    const wall = (Date.now() - this.started) / 1000;
    const total = this.files.reduce((a, f) => a + f.seconds, 0);
    const pad = (s, n) => String(s).padEnd(n);
    const num = (x, n) => x.toFixed(0).padStart(n);
    const lines = ['', `Where the time went (${this.files.length} files, ${wall.toFixed(0)} s of wall time):`];
    lines.push(
      `  ${pad('kind', 10)}${'files'.padStart(6)}${'tests'.padStart(7)}${'file-s'.padStart(8)}${'share'.padStart(7)}${'median'.padStart(8)}  slowest`,
    );
    for (const kind of KINDS) {
      const of = this.files.filter((f) => f.kind === kind);
      if (of.length === 0) continue;
      const sum = of.reduce((a, f) => a + f.seconds, 0);
      const slowest = of.reduce((a, f) => (f.seconds > a.seconds ? f : a));
      lines.push(
        `  ${pad(kind, 10)}${num(of.length, 6)}${num(
          of.reduce((a, f) => a + f.tests, 0),
          7,
        )}${num(sum, 8)}${`${((100 * sum) / total).toFixed(0)}%`.padStart(7)}${num(median(of.map((f) => f.seconds)), 8)}  ${slowest.file} (${slowest.seconds.toFixed(0)} s)`,
      );
    }
    const top = [...this.files].sort((a, b) => b.seconds - a.seconds).slice(0, 8);
    lines.push(`  slowest files: ${top.map((f) => `${path.basename(f.file)} ${f.seconds.toFixed(0)} s`).join(', ')}`);
    process.stderr.write(`${lines.join('\n')}\n`);
    const out = process.env.AGENTLINK_TIMING_JSON;
    if (out) fs.writeFileSync(out, JSON.stringify({ wall, files: this.files }, null, 2));
  }
}

module.exports = TimingReporter;
