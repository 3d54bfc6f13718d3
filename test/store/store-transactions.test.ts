import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { loadConfig } from '../../server/config';
import { type DashboardUserRecord, Store } from '../../server/store';
import { postgresSkipped } from '../support/app';
import { PG_URL_ENV } from '../support/pg-env';
import { pgTemplateClause } from '../support/store-templates';

/**
 * store.transaction(): all or nothing, and nobody else's statement inside it. On SQLite TypeORM shares one connection
 * among all callers, so a statement another request sends while a transaction is open would run inside it and be
 * rolled back with it; the connection's gate (server/store/sqlite-gate.ts) makes that statement wait instead.
 */
let counter = 0;
const user = (): DashboardUserRecord => ({
  id: `usr_tx${process.pid}_${++counter}`,
  email: `tx${process.pid}-${counter}-${Date.now()}@example.com`,
  passwordHash: 'not a real hash',
  createdAt: new Date(),
});

async function openStore(dialect: 'sqlite' | 'postgres') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentlink-test-${process.pid}-`));
  const env: Record<string, string> = { NODE_ENV: 'test', LOG_LEVEL: 'silent', AGENTLINK_DATA_DIR: dir };
  let database: string | undefined;
  if (dialect === 'postgres') {
    const { Client } = await import('pg');
    const admin = new Client({ connectionString: process.env[PG_URL_ENV] });
    await admin.connect();
    database = `agentlink_test_tx_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${database}${pgTemplateClause()}`);
    await admin.end();
    const url = new URL(process.env[PG_URL_ENV]!);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
  }
  const store = await Store.open(loadConfig(env).database);
  return {
    store,
    async close() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
      if (database) {
        const { Client } = await import('pg');
        const admin = new Client({ connectionString: process.env[PG_URL_ENV] });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.end();
      }
    },
  };
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  const maybe = dialect === 'postgres' && postgresSkipped() ? describe.skip : describe;
  maybe(`store.transaction() [${dialect}]`, () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    beforeAll(async () => {
      opened = await openStore(dialect);
    }, 60_000);
    afterAll(async () => opened?.close(), 60_000);

    it('rolls back every write when the function throws, and commits them when it resolves', async () => {
      const { store } = opened;
      const [a, b, c] = [user(), user(), user()];
      await expect(
        store.transaction(async (tx) => {
          await tx.dashboardUsers.insert(a);
          await tx.dashboardUsers.insert(b);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await store.repos.dashboardUsers.findById(a.id)).toBeNull();
      expect(await store.repos.dashboardUsers.findById(b.id)).toBeNull();
      expect(await store.transaction(async (tx) => (await tx.dashboardUsers.insert(c)).id)).toBe(c.id);
      expect(await store.repos.dashboardUsers.findById(c.id)).not.toBeNull();
    });

    it("keeps another caller's write out of an open transaction: it is neither inside it nor rolled back with it", async () => {
      const { store } = opened;
      const [inside, outside, outsideTypeorm] = [user(), user(), user()];
      let entered!: () => void;
      const isOpen = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const transaction = store
        .transaction(async (tx) => {
          await tx.dashboardUsers.insert(inside);
          entered();
          await released;
          throw new Error('rolled back');
        })
        .catch((err: Error) => err.message);
      await isOpen;
      // Another request writes while the transaction is open.
      let outsideDone = false;
      // Through a prepared statement (PreparedSql), and through TypeORM's own query runner (its run()/all()).
      const write = Promise.all([
        store.repos.dashboardUsers.insert(outside),
        store.dataSource.getRepository('DashboardUser').createQueryBuilder().insert().values(outsideTypeorm).updateEntity(false).execute(),
      ]).then(() => (outsideDone = true));
      await new Promise((r) => setTimeout(r, 200));
      // On SQLite it waits for the transaction (on PostgreSQL it runs on a connection of its own).
      if (dialect === 'sqlite') expect(outsideDone).toBe(false);
      release();
      expect(await transaction).toBe('rolled back');
      await write;
      expect(outsideDone).toBe(true);
      expect(await store.repos.dashboardUsers.findById(inside.id)).toBeNull();
      expect(await store.repos.dashboardUsers.findById(outside.id)).not.toBeNull();
      expect(await store.repos.dashboardUsers.findById(outsideTypeorm.id)).not.toBeNull();
    });

    it('runs transactions asked for at once one after the other on SQLite, side by side on PostgreSQL, all committed', async () => {
      const { store } = opened;
      const users = Array.from({ length: 8 }, user);
      await Promise.all(users.map((u) => store.transaction(async (tx) => tx.dashboardUsers.insert(u))));
      for (const u of users) expect(await store.repos.dashboardUsers.findById(u.id)).not.toBeNull();
    });
  });
}
