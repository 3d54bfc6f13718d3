import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { APG_SITE_ROOT } from '../fixtures/apg/server';
import { APG_TASKS } from './apg-tasks';

/**
 * The public corpus's pages are the W3C APG examples as published, not pages we wrote or touched: every file under
 * test/fixtures/apg/site/ is listed in SHA256SUMS (taken from the upstream commit the README names) with its hash,
 * nothing else is there, and the licence files the W3C licence requires sit next to them.
 */
const FIXTURES = path.dirname(APG_SITE_ROOT);

/** Every file under `dir`, as `./relative/path` (the form SHA256SUMS lists). */
function filesUnder(dir: string, rel = '.'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const here = `${rel}/${d.name}`;
    if (d.isDirectory()) return filesUnder(path.join(dir, d.name), here);
    return d.isFile() ? [here] : [];
  });
}

describe('public corpus fixtures (W3C APG examples)', () => {
  const sums = new Map(
    fs
      .readFileSync(path.join(FIXTURES, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [hash, file] = line.split(/\s+/);
        return [file!, hash!] as const;
      }),
  );

  it('holds exactly the copied files, each byte for byte as upstream', () => {
    const files = filesUnder(APG_SITE_ROOT).sort();
    expect(files).toEqual([...sums.keys()].sort());
    const changed = files.filter(
      (f) =>
        createHash('sha256')
          .update(fs.readFileSync(path.join(APG_SITE_ROOT, f)))
          .digest('hex') !== sums.get(f),
    );
    expect(changed).toEqual([]);
  });

  it('carries the licence and a README naming the source, commit and licence', () => {
    const readme = fs.readFileSync(path.join(FIXTURES, 'README.md'), 'utf8');
    expect(readme).toContain('https://github.com/w3c/aria-practices');
    expect(readme).toMatch(/Commit: `[0-9a-f]{40}`/);
    expect(readme).toContain('W3C Software and Document License');
    expect(fs.readFileSync(path.join(FIXTURES, 'LICENSE.md'), 'utf8')).toContain('W3C Software and Document License');
    expect(fs.readFileSync(path.join(FIXTURES, 'LICENSE-W3C-SOFTWARE-AND-DOCUMENT.txt'), 'utf8')).toContain(
      'Permission to copy, modify, and distribute this work',
    );
  });

  it('has every task on a copied page', () => {
    expect(APG_TASKS.length).toBeGreaterThanOrEqual(30);
    const missing = APG_TASKS.filter((t) => !sums.has(`./patterns/${t.page}`)).map((t) => t.id);
    expect(missing).toEqual([]);
  });
});
