import type { DataSource, EntityManager } from 'typeorm';

import type { DashboardInvitationRecord, DashboardUserRecord, OrgMembershipRecord } from './records';
import { DashboardInvitationRepository } from './repositories/dashboard-invitation.repository';
import { DashboardUserRepository } from './repositories/dashboard-user.repository';
import { OrgMembershipRepository } from './repositories/org-membership.repository';
import { sqliteGate } from './sqlite-gate';

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
 * SQLite: on the one connection TypeORM shares, held for the transaction by the gate (./sqlite-gate.ts: other
 * statements wait in JavaScript until it ends, so none slips into it). BEGIN IMMEDIATE takes the database's write
 * lock at once: another process writes before or after, never in between, so the transaction's reads stay true
 * until its writes.
 */
export class SqliteTransactions implements Transactions {
  constructor(private readonly ds: DataSource) {}

  run<T>(fn: (tx: TransactionRepositories) => Promise<T>): Promise<T> {
    return sqliteGate(this.ds).hold(async () => {
      const runner = this.ds.createQueryRunner();
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
    });
  }

  async close(): Promise<void> {
    // Waits for a transaction under way (the connection closes after it).
    await sqliteGate(this.ds).hold(async () => undefined);
  }
}
