import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { loadConfig } from '../../server/config';
import { newId } from '../../server/domain/ids';
import { Store } from '../../server/store';
import { INLINE_CHECKPOINT_PAGES } from '../../server/store/sqlite-checkpointer';

/**
 * The embedded SQLite store checkpoints its WAL from a connection of its own (server/store/sqlite-checkpointer.ts):
 * the serving connection's inline checkpoint is only a backstop, yet the database file still receives the
 * committed pages within a second, and closing the store leaves nothing open.
 */
describe('SQLite background checkpoints', () => {
  let dir: string;
  let store: Store;
  let file: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentlink-test-${process.pid}-`));
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', AGENTLINK_DATA_DIR: dir });
    if (config.database.type !== 'sqlite') throw new Error('expected the embedded default');
    file = config.database.file;
    store = await Store.open(config.database);
  });
  afterAll(async () => {
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('raises the serving connection’s inline checkpoint to a backstop', async () => {
    const [row] = await store.dataSource.query('PRAGMA wal_autocheckpoint');
    expect(Number(Object.values(row)[0])).toBe(INLINE_CHECKPOINT_PAGES);
  });

  it('moves committed pages into the database file without an inline checkpoint', async () => {
    const before = fs.statSync(file).size;
    const now = new Date();
    // ~2 MB of rows: far below the inline backstop (10,000 pages), far above one page.
    for (let i = 0; i < 400; i++) {
      await store.repos.organizations.insert({
        id: newId('org'),
        name: `Checkpoint ${i} ${'x'.repeat(4000)}`,
        clientId: `cli_${newId('org').slice(4)}`,
        sandboxSecretHash: 'h',
        productionSecretHash: 'h',
        createdAt: now,
        updatedAt: now,
      });
    }
    const deadline = Date.now() + 5000;
    while (fs.statSync(file).size < before + 1_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(fs.statSync(file).size).toBeGreaterThan(before + 1_000_000);
    expect(await store.repos.organizations.list()).toHaveLength(400);
  });

  it('closes its connection with the store (the database file can be reopened and read)', async () => {
    await store.close();
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', AGENTLINK_DATA_DIR: dir });
    store = await Store.open(config.database);
    expect(await store.repos.organizations.list()).toHaveLength(400);
  });
});
