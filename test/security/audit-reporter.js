// @ts-check
/**
 * Jest reporter of `npm run audit:security`: one line per attack category (a file under test/security/, named by its
 * top-level describe; files split for size keep that describe and are counted as one category), with the attacks tried
 * (tests run) and blocked (tests passed), then a total. Any attack not
 * blocked is listed by name and makes the run exit non-zero (jest already does on a failed test; a suite that failed
 * to load, with no test run at all, is counted as a failure here too).
 */
const path = require('node:path');

class SecurityAuditReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    /** @type {{ category: string; file: string; tried: number; blocked: number; notBlocked: string[]; loadError?: string }[]} */
    this.rows = [];
  }

  onTestResult(_test, result) {
    const file = path.relative(this.rootDir, result.testFilePath);
    const run = result.testResults.filter((r) => r.status === 'passed' || r.status === 'failed');
    const category =
      run.find((r) => r.ancestorTitles.length > 0)?.ancestorTitles[0] ?? path.basename(file).replace(/\.security\.test\.ts$/, '');
    this.rows.push({
      category,
      file,
      tried: run.length,
      blocked: run.filter((r) => r.status === 'passed').length,
      notBlocked: run.filter((r) => r.status === 'failed').map((r) => r.fullName),
      ...(result.testExecError ? { loadError: String(result.testExecError.message).split('\n')[0] } : {}),
    });
  }

  onRunComplete() {
    /** @type {Map<string, { category: string; tried: number; blocked: number; ok: boolean }>} */
    const categories = new Map();
    for (const r of this.rows) {
      const c = categories.get(r.category) ?? { category: r.category, tried: 0, blocked: 0, ok: true };
      c.tried += r.tried;
      c.blocked += r.blocked;
      c.ok = c.ok && r.tried > 0 && r.blocked === r.tried && !r.loadError;
      categories.set(r.category, c);
    }
    const rows = [...categories.values()].sort((a, b) => a.category.localeCompare(b.category));
    const width = Math.max(8, ...rows.map((r) => r.category.length));
    const line = (c, tried, blocked, mark) => `  ${c.padEnd(width)}  ${String(tried).padStart(5)}  ${String(blocked).padStart(7)}  ${mark}`;
    const out = ['', 'Security audit (test/security): attacks tried and blocked, per category', ''];
    out.push(line('category', 'tried', 'blocked', ''));
    let tried = 0;
    let blocked = 0;
    const problems = [];
    for (const c of rows) {
      tried += c.tried;
      blocked += c.blocked;
      out.push(line(c.category, c.tried, c.blocked, c.ok ? 'ok' : 'NOT ALL BLOCKED'));
    }
    for (const r of this.rows) {
      for (const name of r.notBlocked) problems.push(`  not blocked: ${name} (${r.file})`);
      if (r.loadError) problems.push(`  did not run: ${r.file}: ${r.loadError}`);
      if (r.tried === 0 && !r.loadError) problems.push(`  no attack ran: ${r.file}`);
    }
    out.push(line('total', tried, blocked, problems.length === 0 ? 'ok' : `${problems.length} problem(s)`));
    if (problems.length > 0) out.push('', ...problems);
    out.push('');
    process.stdout.write(`${out.join('\n')}\n`);
    if (problems.length > 0) process.exitCode = 1;
  }

  getLastError() {
    return this.rows.some((r) => r.notBlocked.length > 0 || r.loadError || r.tried === 0)
      ? new Error('security audit: not every attack was blocked')
      : undefined;
  }
}

module.exports = SecurityAuditReporter;
