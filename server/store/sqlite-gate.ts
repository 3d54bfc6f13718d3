import { AsyncLocalStorage } from 'node:async_hooks';

import type { Database } from 'sqlite3';
import type { DataSource } from 'typeorm';

/**
 * Who may send a statement on the one SQLite connection TypeORM shares among all callers: everyone at once, except
 * while a transaction holds it.
 *
 * A transaction on a shared connection takes in whatever statement another request sends meanwhile (and rolls it back
 * with its own), so `hold(fn)` first stops new statements (they wait here, in JavaScript), waits for those in flight to
 * finish, then runs `fn`: only statements sent from `fn`'s own async context (AsyncLocalStorage) pass until it ends;
 * the waiting ones then go, in order.
 *
 * Why not a second connection for transactions: a serving-connection write that meets the transaction's write lock
 * waits in SQLite's busy handler holding its connection's mutex and a libuv worker thread; the statements queued
 * behind it take the other threads, and the transaction's next statement found none: measured with
 * bench/sqlite-transactions.bench.ts, 11 s stalls and SQLITE_BUSY errors for the serving loops.
 */
export class SqliteGate {
  private inFlight = 0;
  private held = false;
  private holder?: symbol;
  private readonly context = new AsyncLocalStorage<symbol>();
  private readonly waiting: (() => void)[] = [];
  private drained?: () => void;
  private turn: Promise<unknown> = Promise.resolve();

  /** Sends a statement now, or once the transaction holding the connection ended; `send` calls `done` when it completes. */
  send(send: (done: () => void) => void): void {
    if (this.held) {
      if (this.holder && this.context.getStore() === this.holder) return send(() => undefined);
      this.waiting.push(() => this.send(send));
      return;
    }
    this.inFlight++;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      if (--this.inFlight === 0) this.drained?.();
    };
    try {
      send(done);
    } catch (err) {
      done();
      throw err;
    }
  }

  /** Runs `fn` with the connection to itself (one holder at a time, in order of asking; not nested: `fn` must not hold again). */
  hold<T>(fn: () => Promise<T>): Promise<T> {
    const mine = this.turn.then(() => this.holdNow(fn));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async holdNow<T>(fn: () => Promise<T>): Promise<T> {
    this.held = true;
    try {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      this.drained = undefined;
      const token = Symbol('sqlite transaction');
      this.holder = token;
      return await this.context.run(token, fn);
    } finally {
      this.holder = undefined;
      this.held = false;
      for (const next of this.waiting.splice(0)) {
        // A sender reports its own failures to its caller (see below); one that throws must not strand the rest.
        try {
          next();
        } catch {
          /* reported by the sender */
        }
      }
    }
  }
}

const gates = new WeakMap<DataSource, SqliteGate>();

/** The gate of a SQLite data source (created on first use). */
export function sqliteGate(ds: DataSource): SqliteGate {
  let gate = gates.get(ds);
  if (!gate) {
    gate = new SqliteGate();
    gates.set(ds, gate);
  }
  return gate;
}

type Callback = (this: unknown, ...args: unknown[]) => void;

/**
 * Routes TypeORM's own statements through the gate: its SQLite query runner sends every query with the connection's
 * run() or all() (sql, parameters, callback); PreparedSql goes through the gate itself.
 */
export function gateTypeormStatements(ds: DataSource, db: Database): void {
  const gate = sqliteGate(ds);
  for (const method of ['run', 'all'] as const) {
    const original = db[method] as unknown as (this: Database, ...args: unknown[]) => Database;
    (db as unknown as Record<string, unknown>)[method] = function (this: Database, ...args: unknown[]) {
      const last = args.length - 1;
      const callback = typeof args[last] === 'function' ? (args[last] as Callback) : undefined;
      gate.send((done) => {
        const wrapped = callback
          ? function (this: unknown, ...result: unknown[]) {
              done();
              callback.apply(this, result);
            }
          : (done as Callback);
        try {
          original.apply(db, callback ? [...args.slice(0, last), wrapped] : [...args, wrapped]);
        } catch (err) {
          // Sent later (after a transaction), a synchronous failure would reach no one: hand it to the callback.
          done();
          if (!callback) throw err;
          callback.call(db, err);
        }
      });
      return db;
    };
  }
}
