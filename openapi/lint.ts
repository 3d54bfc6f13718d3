import fs from 'node:fs';
import path from 'node:path';

/**
 * Lints openapi.json with Redocly's `recommended` rules and Spectral's `oas` ruleset, the two linters API tooling
 * runs most, through their libraries (no CLI, no network). Both must report nothing: no error and no warning.
 *
 *   npm run openapi:lint            prints every problem; exits 1 when there is one
 *
 * Both libraries ship as ES modules that jest's CommonJS runtime cannot load, so the test runs this file in a child
 * process (with --json) instead of importing it.
 */
export interface LintProblem {
  linter: 'redocly' | 'spectral';
  rule: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  /** JSON pointer-ish location of the problem in the document. */
  at: string;
}

export async function lintWithRedocly(source: string): Promise<LintProblem[]> {
  const { createConfig, lintFromString } = await import('@redocly/openapi-core');
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((p) => ({
    linter: 'redocly' as const,
    rule: p.ruleId,
    severity: p.severity === 'error' ? 'error' : 'warning',
    message: p.message,
    at: p.location.map((l) => l.pointer ?? '').join(' '),
  }));
}

export async function lintWithSpectral(source: string): Promise<LintProblem[]> {
  const [{ Spectral, Document }, { oas }, Parsers] = await Promise.all([
    import('@stoplight/spectral-core'),
    import('@stoplight/spectral-rulesets'),
    import('@stoplight/spectral-parsers'),
  ]);
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
  const results = await spectral.run(new Document(source, Parsers.Json, 'openapi.json'));
  const severities = ['error', 'warning', 'info', 'hint'] as const;
  return results.map((r) => ({
    linter: 'spectral' as const,
    rule: String(r.code),
    severity: severities[r.severity] ?? 'error',
    message: r.message,
    at: `#/${r.path.join('/')}`,
  }));
}

export async function lintOpenApi(source: string): Promise<LintProblem[]> {
  return [...(await lintWithRedocly(source)), ...(await lintWithSpectral(source))];
}

if (require.main === module) {
  const file = process.argv.find((a) => a.endsWith('.json')) ?? path.join(__dirname, 'openapi.json');
  const json = process.argv.includes('--json');
  lintOpenApi(fs.readFileSync(file, 'utf8')).then(
    (problems) => {
      if (json) process.stdout.write(JSON.stringify(problems));
      else for (const p of problems) console.log(`${p.linter} ${p.severity} ${p.rule}: ${p.message} (${p.at})`);
      if (!json) console.log(problems.length === 0 ? 'openapi.json: no problems' : `${problems.length} problem(s)`);
      process.exitCode = problems.length === 0 || json ? 0 : 1;
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 2;
    },
  );
}
