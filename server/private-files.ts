import fs from 'node:fs';

/** Owner read/write only: the database holds sealed sessions and hashes, the key file the keys that open them. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * The data directory, created 0700, and an existing one tightened to 0700. Modes are set with chmod after
 * creation because mkdir's mode passes through the process umask (which may be 0 or 002 in a container).
 * A directory we do not own, or a shared sticky one like /tmp, is left alone: tightening it would break others.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const st = fs.statSync(dir);
  const ours = typeof process.getuid !== 'function' || st.uid === process.getuid();
  const shared = (st.mode & 0o1000) !== 0;
  if (ours && !shared && (st.mode & 0o777) !== PRIVATE_DIR_MODE) fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Creates the file empty if it does not exist, then sets 0600 whatever the umask; fixes an existing file too. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  restrictFile(file);
}

/** Sets 0600 on a file that exists (no-op otherwise). */
export function restrictFile(file: string): void {
  try {
    if ((fs.statSync(file).mode & 0o777) !== PRIVATE_FILE_MODE) fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
