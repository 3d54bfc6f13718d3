import type { Database, Statement } from 'sqlite3';
import type { DataSource, QueryRunner } from 'typeorm';

import { sqliteGate } from './sqlite-gate';

export interface SqlResult<Row> {
  rows: Row[];
  /** Rows inserted, updated or deleted by the statement. */
  affected: number;
}

/**
 * Raw SQL for the request hot path, written once with PostgreSQL's `$1` placeholders.
 *
 * On SQLite each statement is prepared once and reused: a keyed TypeORM find costs about 400 µs of CPU, a
 * reused prepared statement about 65 µs (query building, aliasing and a fresh sqlite3_prepare per call make
 * the difference), and the API issues several lookups per request. Statements always run to
 * completion (`all`), so none holds a read or write transaction open between calls. PostgreSQL goes
 * through TypeORM's pool unchanged; `pg` already keeps its per-query overhead small.
 *
 * Inside a PostgreSQL transaction (server/store/transactions.ts) the statements go through the transaction's own
 * query runner instead of the pool. On SQLite every statement passes the connection's gate (./sqlite-gate.ts),
 * which a transaction holds.
 */
export class PreparedSql {
  private readonly statements = new Map<string, Promise<Statement>>();
  private closed = false;

  constructor(
    private readonly ds: DataSource,
    private readonly runner?: QueryRunner,
  ) {
    // Fails when the store opens (repositories build theirs then) rather than on the first request.
    if (this.dialect === 'sqlite') sqliteDatabaseOf(ds);
  }

  get dialect(): 'sqlite' | 'postgres' {
    return this.ds.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  async query<Row = Record<string, unknown>>(sql: string, params: unknown[]): Promise<SqlResult<Row>> {
    if (this.dialect === 'postgres') {
      const runner = this.runner ?? this.ds.createQueryRunner();
      try {
        // TypeORM's structured result (a QueryResult whose records are pg's rows, always an array).
        const res = await runner.query(sql, params, true);
        if (!Array.isArray(res?.records))
          throw typeormInternalsChanged('QueryRunner.query(sql, params, true) no longer answers a QueryResult with records');
        return { rows: res.records as Row[], affected: res.affected ?? 0 };
      } finally {
        if (!this.runner) await runner.release();
      }
    }
    if (this.closed) throw new Error('the store is closed');
    const stmt = await this.statement(sql);
    return new Promise((resolve, reject) => {
      // Through the connection's gate: a transaction may hold the connection (./sqlite-gate.ts).
      sqliteGate(this.ds).send((done) => {
        try {
          // Statement#all binds (resetting the statement), steps to the end and reports changes of a write.
          stmt.all(params, function (this: Statement & { changes?: number }, err: Error | null, rows: Row[]) {
            done();
            if (err) reject(err);
            else resolve({ rows, affected: this.changes ?? 0 });
          });
        } catch (err) {
          done();
          reject(err as Error);
        }
      });
    });
  }

  /** Finalizes every statement; SQLite refuses to close a connection that still has some. */
  async close(): Promise<void> {
    this.closed = true;
    const pending = [...this.statements.values()];
    this.statements.clear();
    await Promise.all(
      pending.map((p) =>
        p.then(
          (stmt) => new Promise<void>((resolve) => stmt.finalize(() => resolve())),
          () => undefined,
        ),
      ),
    );
  }

  private statement(sql: string): Promise<Statement> {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      const text = sql.replace(/\$(\d+)/g, '?$1');
      const db = sqliteDatabaseOf(this.ds);
      stmt = new Promise<Statement>((resolve, reject) => {
        const prepared: Statement = db.prepare(text, (err: Error | null) => (err ? reject(err) : resolve(prepared)));
      });
      // A statement that failed to prepare (a typo, a missing table) is not cached: the next call reports afresh.
      const pending = stmt;
      pending.catch(() => {
        if (this.statements.get(sql) === pending) this.statements.delete(sql);
      });
      this.statements.set(sql, pending);
    }
    return stmt;
  }
}

/**
 * The error for a TypeORM that no longer offers what the prepared statements rely on beyond its documented API
 * (its SQLite driver's sqlite3 Database, its drivers' value conversions and column metadata). Those are pinned
 * by test/store/typeorm-internals.test.ts; this is the same check at startup, so that an upgrade that slipped
 * past the test stops the store from opening instead of corrupting or misreading rows.
 */
export function typeormInternalsChanged(what: string): Error {
  return new Error(
    `TypeORM internals changed: ${what}. The store's prepared statements (server/store/prepared-sql.ts, prepared-table.ts) rely on it; see test/store/typeorm-internals.test.ts.`,
  );
}

/** TypeORM's SQLite driver keeps its sqlite3 Database as `databaseConnection`: not public API, hence checked. */
export function sqliteDatabaseOf(ds: DataSource): Database {
  const db = (ds.driver as unknown as { databaseConnection?: Partial<Database> } | undefined)?.databaseConnection;
  if (!db || typeof db.prepare !== 'function') {
    throw typeormInternalsChanged(
      'the SQLite driver has no sqlite3 Database as driver.databaseConnection (or the data source is not initialized)',
    );
  }
  return db as Database;
}

const byDataSource = new WeakMap<DataSource, PreparedSql>();

/**
 * The one PreparedSql of a data source (its statements belong to that connection); on PostgreSQL with the query
 * runner of a transaction, one that sends every statement through that runner.
 */
export function preparedSql(ds: DataSource, runner?: QueryRunner): PreparedSql {
  if (runner && ds.options.type === 'postgres') return new PreparedSql(ds, runner);
  let p = byDataSource.get(ds);
  if (!p) {
    p = new PreparedSql(ds);
    byDataSource.set(ds, p);
  }
  return p;
}

export async function closePreparedSql(ds: DataSource): Promise<void> {
  const p = byDataSource.get(ds);
  byDataSource.delete(ds);
  await p?.close();
}
