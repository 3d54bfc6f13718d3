import type { ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import type { Environment } from '../../config';
import { type PreparedSql, preparedSql } from '../prepared-sql';
import { type PreparedTable, preparedTable } from '../prepared-table';

/**
 * The shared pieces of every repository: keyed lookups and inserts through prepared statements (the
 * request hot path, see PreparedSql and PreparedTable), and the one keyset page.
 *
 * Repositories are the only code that issues queries. Each state change that must happen at most once is a
 * single conditional UPDATE whose affected-row count says who won, so it is race-safe on both engines without
 * multi-statement transactions. The few changes that must be written together, or read and written under a lock,
 * go through store.transaction() (server/store/transactions.ts), whose repositories are built per transaction.
 */

/** The organization and environment a row belongs to (every API caller and dashboard view has one). */
export interface Owner {
  organizationId: string;
  environment: Environment;
}

/** A row's place in the newest-first order of a listing: by createdAt, then id (unique) to break ties. */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

export interface KeysetPage<T> {
  records: T[];
  /** The last record when more follow, to continue after; null on the last page. */
  next: KeysetPosition | null;
}

/** TypeORM's write types cannot express free-form JSON columns; the record types are the real check. */
export const asRow = <T>(values: Partial<T>) => values as unknown as QueryDeepPartialEntity<T>;

export abstract class BaseRepository<T extends ObjectLiteral> {
  /** The entity's prepared keyed lookups and inserts (built once, with the repository, at startup). */
  protected readonly table: PreparedTable<T>;
  /** Raw prepared SQL on this repository's connection, for the few joined hot-path statements. */
  protected readonly sql: PreparedSql;

  constructor(protected readonly repo: Repository<T>) {
    // Built here rather than on first use so that a TypeORM whose internals PreparedTable relies on changed
    // fails when the store opens, not on some later request.
    this.table = preparedTable(repo);
    this.sql = preparedSql(repo.manager.connection, repo.queryRunner);
  }

  /** The one row whose columns equal every given value (no nulls), or null. */
  protected findOneBy(where: Partial<T>): Promise<T | null> {
    return this.table.findOneBy(where);
  }

  /**
   * A plain INSERT. Our records carry every value (ids and timestamps are set before insert), so TypeORM need
   * not read each row back afterwards, which repository.insert() does and which doubled the queries of every
   * write on the hot path (measured with bench/api.bench.ts). A single row goes through a prepared statement;
   * several rows stay one multi-row statement (all or none).
   */
  protected async insertRows(rows: T | T[]): Promise<void> {
    if (!Array.isArray(rows)) return this.table.insert(rows);
    if (rows.length === 0) return;
    await this.repo
      .createQueryBuilder()
      .insert()
      .values(rows.map(asRow<T>))
      .updateEntity(false)
      .execute();
  }

  /**
   * Newest first by (createdAt, id), `limit` records after the position `after` (the last record of the
   * previous page). One row more than asked is read to know whether another page follows, so a listing never
   * ends on an empty page. `qb` selects the entity under its alias, with the listing's own filters.
   */
  protected async keysetPage(qb: SelectQueryBuilder<T>, opts: { limit: number; after?: KeysetPosition }): Promise<KeysetPage<T>> {
    const createdAt = `${qb.alias}.${this.databaseName('createdAt')}`;
    const id = `${qb.alias}.${this.databaseName('id')}`;
    if (opts.after) {
      qb.andWhere(`(${createdAt} < :keysetCreatedAt OR (${createdAt} = :keysetCreatedAt AND ${id} < :keysetId))`, {
        keysetCreatedAt: opts.after.createdAt,
        keysetId: opts.after.id,
      });
    }
    const rows = await qb
      .orderBy(createdAt, 'DESC')
      .addOrderBy(id, 'DESC')
      .take(opts.limit + 1)
      .getMany();
    const records = rows.slice(0, opts.limit);
    const last = records[records.length - 1];
    return { records, next: rows.length > opts.limit && last ? { createdAt: last.createdAt as Date, id: last.id as string } : null };
  }

  private databaseName(property: string): string {
    const column = this.repo.metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`${this.repo.metadata.name} has no ${property} column to page by`);
    return column.databaseName;
  }
}

/** An aggregate whose records are inserted as the caller built them. */
export abstract class RecordRepository<T extends ObjectLiteral> extends BaseRepository<T> {
  insert(record: T): Promise<T> {
    return this.insertRows(record).then(() => record);
  }
}
