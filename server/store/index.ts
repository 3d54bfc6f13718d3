import type { DataSource } from 'typeorm';

import { createDataSource, type DatabaseConfig } from './data-source';
import { closePreparedSql, sqliteDatabaseOf } from './prepared-sql';
import { buildRepositories, type Repositories } from './repositories';
import { INLINE_CHECKPOINT_PAGES, SqliteCheckpointer } from './sqlite-checkpointer';
import { gateTypeormStatements } from './sqlite-gate';
import { PostgresTransactions, SqliteTransactions, type TransactionRepositories, type Transactions } from './transactions';

export { decodeKeysetCursor, encodeKeysetCursor } from './keyset-cursor';
export * from './records';
export type { AccessGrant, KeysetPage, KeysetPosition, Owner } from './repositories';
export type { TransactionRepositories } from './transactions';

const MIGRATION_LOCK_KEY = 741_852_963;

/** Several processes may start at once against one PostgreSQL: an advisory lock lets one migrate. */
async function migrate(ds: DataSource) {
  if (ds.options.type !== 'postgres') {
    await ds.runMigrations({ transaction: 'each' });
    return;
  }
  const lock = ds.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await ds.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.release();
  }
}

/** The store: an opened, migrated database and its repositories. */
export class Store {
  private constructor(
    readonly dataSource: DataSource,
    readonly repos: Repositories,
    private readonly transactions: Transactions,
    private readonly checkpointer?: SqliteCheckpointer,
  ) {}

  get dialect(): 'sqlite' | 'postgres' {
    return this.dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  /** Opens the database and applies pending migrations (idempotent; safe when several processes start at once). */
  static async open(database: DatabaseConfig, opts: { migrate?: boolean } = {}): Promise<Store> {
    const ds = createDataSource(database);
    await ds.initialize();
    // Every statement on the shared SQLite connection goes through its gate, which store.transaction() holds.
    if (ds.options.type === 'sqlite') gateTypeormStatements(ds, sqliteDatabaseOf(ds));
    // With WAL, synchronous=NORMAL stays consistent and loses nothing when the process crashes (only the last
    // commits on a power cut): SQLite's recommended pairing, and it spares an fsync per write.
    if (ds.options.type === 'sqlite') await ds.query('PRAGMA synchronous = NORMAL');
    if (opts.migrate !== false) await migrate(ds);
    let checkpointer: SqliteCheckpointer | undefined;
    if (database.type === 'sqlite' && database.file !== ':memory:') {
      // Checkpoints run on a connection of their own (see SqliteCheckpointer), not inside request commits.
      await ds.query(`PRAGMA wal_autocheckpoint = ${INLINE_CHECKPOINT_PAGES}`);
      checkpointer = await SqliteCheckpointer.start(database.file);
    }
    return new Store(ds, buildRepositories(ds), transactionsFor(database, ds), checkpointer);
  }

  /**
   * Runs `fn` in one transaction, through the repositories it is handed (not `store.repos`): committed when `fn`
   * resolves, rolled back when it throws (the error is passed on). For the few changes that must happen together
   * or not at all, or that read and then write under a lock (see ./transactions.ts for how each engine does it).
   * Not nested, and `fn` writes only through `tx` (on SQLite the connection is held for it: see ./sqlite-gate.ts).
   */
  transaction<T>(fn: (tx: TransactionRepositories) => Promise<T>): Promise<T> {
    return this.transactions.run(fn);
  }

  /** One round trip to the database (readiness checks); rejects when it is closed or unreachable. */
  async ping(): Promise<void> {
    if (!this.dataSource.isInitialized) throw new Error('the store is closed');
    await this.dataSource.query('SELECT 1');
  }

  async pendingMigrations(): Promise<boolean> {
    return this.dataSource.showMigrations();
  }

  async close(): Promise<void> {
    await this.transactions.close();
    await this.checkpointer?.close();
    await closePreparedSql(this.dataSource);
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

function transactionsFor(database: DatabaseConfig, ds: DataSource): Transactions {
  return database.type === 'postgres' ? new PostgresTransactions(ds) : new SqliteTransactions(ds);
}
