import type { DataSource, EntityManager } from 'typeorm';

import { closePreparedSql } from './prepared-sql';
import type { DashboardInvitationRecord, DashboardUserRecord, OrgMembershipRecord } from './records';
import { DashboardInvitationRepository } from './repositories/dashboard-invitation.repository';
import { DashboardUserRepository } from './repositories/dashboard-user.repository';
import { OrgMembershipRepository } from './repositories/org-membership.repository';

/**
 * The repositories of one transaction: every statement made through them is part of it, and none made through
 * `store.repos` is. Only the aggregates some transaction needs are here (a person's account, memberships and
 * invitations, changed together).
 */
export interface TransactionRepositories {
  dashboardUsers: DashboardUserRepository;
  dashboardInvitations: DashboardInvitationRepository;
  orgMemberships: OrgMembershipRepository;
}

/** Runs `fn` in one transaction: committed when it resolves, rolled back (and the error passed on) when it throws. */
export interface Transactions {
  run<T>(fn: (tx: TransactionRepositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function repositoriesOn(manager: EntityManager): TransactionRepositories {
  return {
    dashboardUsers: new DashboardUserRepository(manager.getRepository<DashboardUserRecord>('DashboardUser')),
    dashboardInvitations: new DashboardInvitationRepository(manager.getRepository<DashboardInvitationRecord>('DashboardInvitation')),
    orgMemberships: new OrgMembershipRepository(manager.getRepository<OrgMembershipRecord>('OrgMembership')),
  };
}

/** PostgreSQL: a pooled connection of its own, READ COMMITTED; row locks (SELECT … FOR UPDATE) order rivals. */
export class PostgresTransactions implements Transactions {
  constructor(private readonly ds: DataSource) {}

  async run<T>(fn: (tx: TransactionRepositories) => Promise<T>): Promise<T> {
    const runner = this.ds.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      try {
        const value = await fn(repositoriesOn(runner.manager));
        await runner.commitTransaction();
        return value;
      } catch (err) {
        await runner.rollbackTransaction().catch(() => undefined);
        throw err;
      }
    } finally {
      await runner.release();
    }
  }

  async close(): Promise<void> {}
}

/**
 * SQLite: TypeORM shares ONE connection among all callers, so a transaction opened on it would take in whatever
 * statement another request sends meanwhile (and roll it back with its own). Transactions therefore run on a
 * second connection to the same file, opened on first use, one at a time in this process (a queue), each taking
 * the database's write lock at BEGIN IMMEDIATE: SQLite lets one writer at a time, across processes too, so the
 * transaction's reads and writes see no other write in between. The serving connection keeps reading meanwhile
 * (WAL), and its writes wait for the commit (busy_timeout). Code inside a transaction must not write through
 * `store.repos`: that write would wait for the lock the transaction holds.
 */
export class SqliteTransactions implements Transactions {
  private source?: Promise<DataSource>;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly open: () => Promise<DataSource>) {}

  run<T>(fn: (tx: TransactionRepositories) => Promise<T>): Promise<T> {
    const turn = this.queue.then(() => this.runNow(fn));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private connection(): Promise<DataSource> {
    this.source ??= this.open().catch((err: unknown) => {
      this.source = undefined;
      throw err;
    });
    return this.source;
  }

  private async runNow<T>(fn: (tx: TransactionRepositories) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the store is closed');
    const ds = await this.connection();
    const runner = ds.createQueryRunner();
    try {
      await runner.query('BEGIN IMMEDIATE');
      try {
        const value = await fn(repositoriesOn(runner.manager));
        await runner.query('COMMIT');
        return value;
      } catch (err) {
        await runner.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } finally {
      await runner.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    const ds = await this.source?.catch(() => undefined);
    if (!ds) return;
    await closePreparedSql(ds);
    if (ds.isInitialized) await ds.destroy();
  }
}
