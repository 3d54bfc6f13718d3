import type { ObjectLiteral, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { preparedTable } from './prepared-table';

/**
 * A plain INSERT. Our records carry every value (ids and timestamps are set before insert), so TypeORM
 * need not read each row back afterwards, which repository.insert() does and which doubled the queries
 * of every write on the hot path (measured with bench/api.bench.ts). A single row goes through a prepared
 * statement; several rows stay one multi-row statement (all or none).
 */
export async function insertRows<T extends ObjectLiteral>(repo: Repository<T>, rows: QueryDeepPartialEntity<T> | QueryDeepPartialEntity<T>[]) {
  if (!Array.isArray(rows)) return preparedTable(repo).insert(rows as Partial<T>);
  if (rows.length === 0) return;
  await repo.createQueryBuilder().insert().values(rows).updateEntity(false).execute();
}
