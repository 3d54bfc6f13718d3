import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { loadConfig } from '../../server/config';
import { Store } from '../../server/store';
import { KEY_FILE_NAME, loadVault } from '../../server/vault/keyring';

/**
 * Data file permissions (server/private-files.ts, store/data-source.ts, vault/keyring.ts): the SQLite database and its
 * -wal / -shm files and the vault key file are 0600 inside a 0700 data directory, whatever the process umask, and
 * files left world-readable by an older version are tightened at start. Before, they were created 0644 / 0755.
 * Each attack is another local user reading the files: asserted as "no permission bit for group or others".
 */
const mode = (file: string) => fs.statSync(file).mode & 0o777;
let root: string;
let savedUmask: number;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-modes-'));
  // The most permissive umask a container may run with: nothing is masked, so any mode not set explicitly shows.
  savedUmask = process.umask(0);
});

afterAll(() => {
  process.umask(savedUmask);
  fs.rmSync(root, { recursive: true, force: true });
});

/** Starts the storage side of the service (store + vault) on `dataDir`, writes a row so the WAL exists, stops it. */
async function startAndWrite(dataDir: string) {
  const config = loadConfig({ NODE_ENV: 'test', AGENTLINK_DATA_DIR: dataDir });
  const { vault } = loadVault(config);
  const store = await Store.open(config.database);
  await store.dataSource.query('CREATE TABLE IF NOT EXISTS probe (x TEXT)');
  await store.dataSource.query('INSERT INTO probe (x) VALUES (?)', [vault.seal('x', 'probe')]);
  const files = ['agentlink.sqlite', 'agentlink.sqlite-wal', 'agentlink.sqlite-shm', KEY_FILE_NAME].map((f) => path.join(dataDir, f));
  const modes = Object.fromEntries(files.map((f) => [path.basename(f), fs.existsSync(f) ? mode(f) : null]));
  await store.close();
  return { modes, dirMode: mode(dataDir) };
}

describe('data files: permissions', () => {
  it('refuses other users the database, its WAL and SHM, and the key file of a fresh data directory (umask 0)', async () => {
    const dataDir = path.join(root, 'fresh', 'data');
    const { modes, dirMode } = await startAndWrite(dataDir);
    expect(dirMode).toBe(0o700);
    expect(modes).toStrictEqual({
      'agentlink.sqlite': 0o600,
      'agentlink.sqlite-wal': 0o600,
      'agentlink.sqlite-shm': 0o600,
      [KEY_FILE_NAME]: 0o600,
    });
  });

  it('refuses other users files an older version left world-readable (tightened at start)', async () => {
    const dataDir = path.join(root, 'old');
    await startAndWrite(dataDir);
    fs.chmodSync(dataDir, 0o755);
    for (const f of fs.readdirSync(dataDir)) fs.chmodSync(path.join(dataDir, f), 0o644);
    const { modes, dirMode } = await startAndWrite(dataDir);
    expect(dirMode).toBe(0o700);
    for (const [file, m] of Object.entries(modes)) {
      if (m !== null) expect([file, m]).toStrictEqual([file, 0o600]);
    }
    expect(modes['agentlink.sqlite']).toBe(0o600);
    expect(modes[KEY_FILE_NAME]).toBe(0o600);
  });

  it('blocks the group and others from the data directory listing even when it already existed', async () => {
    const dataDir = path.join(root, 'existing');
    fs.mkdirSync(dataDir, { mode: 0o777 });
    fs.chmodSync(dataDir, 0o777);
    const { dirMode } = await startAndWrite(dataDir);
    expect(dirMode & 0o077).toBe(0);
  });
});
