import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { memoryTmpdir } = require('../support/memory-tmpdir') as { memoryTmpdir: (base?: string) => string | null };

/** The tests' temp folder in memory (jest.config.js): made private, never a name someone else planted. */
describe('the tests’ memory temp folder', () => {
  let base: string;
  const name = `agentlink-tests-${process.getuid?.() ?? 'user'}`;
  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-tmpdir-'));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('makes a folder of its own that others may pass through but not list', () => {
    const dir = memoryTmpdir(base);
    expect(dir).toBe(path.join(base, name));
    const st = fs.lstatSync(dir!);
    expect(st.isDirectory()).toBe(true);
    expect(st.mode & 0o777).toBe(0o711);
    expect(memoryTmpdir(base)).toBe(dir); // found again as it is
  });

  it('refuses the name when it is a link planted to somewhere else', () => {
    const elsewhere = fs.mkdtempSync(path.join(base, 'elsewhere-'));
    fs.symlinkSync(elsewhere, path.join(base, name));
    expect(memoryTmpdir(base)).toBeNull();
  });

  it('sweeps only Playwright’s leftovers older than 12 hours, never unpacked files with old dates', () => {
    const dir = memoryTmpdir(base)!;
    const old = new Date(Date.now() - 13 * 60 * 60 * 1000);
    const entries = ['playwright_chromiumdev_profile-old', 'playwright_chromiumdev_profile-new', 'libGLESv2.so'];
    for (const e of entries) fs.mkdirSync(path.join(dir, e));
    fs.utimesSync(path.join(dir, entries[0]!), old, old);
    fs.utimesSync(path.join(dir, entries[2]!), old, old);
    memoryTmpdir(base);
    expect(fs.readdirSync(dir).sort()).toEqual(['libGLESv2.so', 'playwright_chromiumdev_profile-new']);
  });
});
