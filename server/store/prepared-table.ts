import type { ObjectLiteral, Repository } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

import { type PreparedSql, preparedSql, typeormInternalsChanged } from './prepared-sql';

/** The driver methods PreparedTable converts values with: how TypeORM itself writes and reads each column. */
const DRIVER_HOOKS = ['escape', 'preparePersistentValue', 'prepareHydratedValue'] as const;

/**
 * Keyed lookups and single-row inserts of one entity through prepared statements (see PreparedSql),
 * still mapped by the entity's TypeORM metadata: values pass through the driver's own conversions
 * (dates, JSON, booleans, transformers), so rows read and written here are exactly what TypeORM
 * itself reads and writes.
 */
export class PreparedTable<T extends ObjectLiteral> {
  private readonly sql: PreparedSql;
  private readonly table: string;
  private readonly byProperty = new Map<string, ColumnMetadata>();
  private readonly selectList: string;
  private readonly statements = new Map<string, string>();

  constructor(private readonly repo: Repository<T>) {
    const driver = repo.manager.connection.driver;
    assertMappable(repo);
    this.sql = preparedSql(repo.manager.connection, repo.queryRunner);
    this.table = driver.escape(repo.metadata.tableName);
    for (const column of repo.metadata.columns) this.byProperty.set(column.propertyName, column);
    this.selectList = repo.metadata.columns.map((c) => driver.escape(c.databaseName)).join(', ');
  }

  /** The one row whose columns equal every given value (nulls are not looked up here), or null. */
  async findOneBy(where: Partial<T>): Promise<T | null> {
    const columns = this.columnsOf(where, 'where');
    const key = `find:${columns.map((c) => c.propertyName).join(',')}`;
    let text = this.statements.get(key);
    if (!text) {
      const conditions = columns.map((c, i) => `${this.escape(c.databaseName)} = $${i + 1}`).join(' AND ');
      text = `SELECT ${this.selectList} FROM ${this.table} WHERE ${conditions} LIMIT 1`;
      this.statements.set(key, text);
    }
    const params = columns.map((c) => this.toDatabase(c, where[c.propertyName]));
    const { rows } = await this.sql.query<Record<string, unknown>>(text, params);
    return rows.length > 0 ? this.fromRow(rows[0]) : null;
  }

  /**
   * The row chosen by a hand-written condition (`$n` parameters), with computed columns beside it (`extra`: alias → SQL
   * expression, which may read the row's columns by the table's name): a lookup and a related check in one round trip.
   */
  async findOneWith<E extends string>(
    condition: string,
    params: unknown[],
    extra: Record<E, string>,
  ): Promise<{ record: T; extra: Record<E, unknown> } | null> {
    const aliases = Object.keys(extra) as E[];
    const key = `findWith:${condition}:${aliases.map((a) => `${a}=${extra[a]}`).join(',')}`;
    let text = this.statements.get(key);
    if (!text) {
      const computed = aliases.map((a) => `${extra[a]} AS ${this.escape(`x_${a}`)}`).join(', ');
      text = `SELECT ${this.selectList}, ${computed} FROM ${this.table} WHERE ${condition} LIMIT 1`;
      this.statements.set(key, text);
    }
    const { rows } = await this.sql.query<Record<string, unknown>>(text, params);
    if (rows.length === 0) return null;
    const values = {} as Record<E, unknown>;
    for (const a of aliases) values[a] = rows[0][`x_${a}`];
    return { record: this.fromRow(rows[0]), extra: values };
  }

  /** A plain INSERT of the record's defined properties (no read-back: our records carry every value). */
  async insert(record: Partial<T>): Promise<void> {
    const columns = this.columnsOf(record, 'insert');
    const key = `insert:${columns.map((c) => c.propertyName).join(',')}`;
    let text = this.statements.get(key);
    if (!text) {
      const names = columns.map((c) => this.escape(c.databaseName)).join(', ');
      text = `INSERT INTO ${this.table} (${names}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
      this.statements.set(key, text);
    }
    await this.sql.query(
      text,
      columns.map((c) => this.toDatabase(c, record[c.propertyName])),
    );
  }

  /**
   * INSERT … SELECT: inserts the record only if `condition` (SQL over other tables, its parameters numbered
   * from $1 in `conditionParams`) holds at that moment, in the same statement. Resolves true if it inserted.
   */
  async insertWhere(record: Partial<T>, condition: string, conditionParams: unknown[]): Promise<boolean> {
    const columns = this.columnsOf(record, 'insert');
    const key = `insertWhere:${columns.map((c) => c.propertyName).join(',')}:${condition}`;
    let text = this.statements.get(key);
    if (!text) {
      const offset = conditionParams.length;
      // PostgreSQL cannot infer the type of a bare parameter in a SELECT list: each one is cast to its column's type.
      const value = (c: ColumnMetadata, i: number) =>
        this.sql.dialect === 'postgres' ? `CAST($${offset + i + 1} AS ${String(c.type)})` : `$${offset + i + 1}`;
      const names = columns.map((c) => this.escape(c.databaseName)).join(', ');
      // RETURNING counts the row on both engines (TypeORM reports no affected count for a PostgreSQL INSERT).
      text = `INSERT INTO ${this.table} (${names}) SELECT ${columns.map(value).join(', ')} WHERE ${condition} RETURNING ${this.escape(columns[0].databaseName)}`;
      this.statements.set(key, text);
    }
    const { rows } = await this.sql.query(text, [...conditionParams, ...columns.map((c) => this.toDatabase(c, record[c.propertyName]))]);
    return rows.length === 1;
  }

  /**
   * insertWhere for several records in ONE statement (`INSERT … SELECT … WHERE … UNION ALL SELECT … WHERE …`), each
   * row under its own condition with its own parameters, all checked when the statement runs: one threadpool
   * round trip and one commit instead of one per record. Answers, per record in order, whether it was inserted.
   * Records whose defined columns differ go in separate statements. SQLite only (PostgreSQL inserts one by one).
   * The condition's `$n` are renumbered per row: it must be our own SQL, with no `$` inside a literal.
   */
  async insertWhereMany(records: Partial<T>[], condition: string, conditionParams: unknown[][]): Promise<boolean[]> {
    const primary = this.repo.metadata.primaryColumns;
    // Rows are told apart by their primary key in RETURNING.
    if (this.sql.dialect !== 'sqlite' || records.length === 1 || primary.length !== 1) {
      return Promise.all(records.map((r, i) => this.insertWhere(r, condition, conditionParams[i]!)));
    }
    const key = primary[0]!;
    const byShape = new Map<string, { columns: ColumnMetadata[]; at: number[] }>();
    records.forEach((record, i) => {
      const columns = this.columnsOf(record, 'insert');
      const shape = columns.map((c) => c.propertyName).join(',');
      const group = byShape.get(shape) ?? { columns, at: [] };
      group.at.push(i);
      byShape.set(shape, group);
    });
    const inserted = records.map(() => false);
    await Promise.all(
      [...byShape].map(async ([shape, { columns, at }]) => {
        if (!columns.includes(key)) throw new Error(`${this.repo.metadata.name}: insertWhereMany needs the primary key of every record`);
        const perRow = conditionParams[at[0]!]!.length + columns.length;
        const statementKey = `insertWhereMany:${at.length}:${shape}:${condition}`;
        let text = this.statements.get(statementKey);
        if (!text) {
          const selects = at.map((_, row) => {
            const offset = row * perRow;
            const own = condition.replace(/\$(\d+)/g, (_m, n: string) => `$${offset + Number(n)}`);
            const values = columns.map((_c, i) => `$${offset + conditionParams[at[0]!]!.length + i + 1}`);
            return `SELECT ${values.join(', ')} WHERE ${own}`;
          });
          const names = columns.map((c) => this.escape(c.databaseName)).join(', ');
          text = `INSERT INTO ${this.table} (${names}) ${selects.join(' UNION ALL ')} RETURNING ${this.escape(key.databaseName)}`;
          this.statements.set(statementKey, text);
        }
        const params: unknown[] = [];
        for (const i of at) {
          params.push(...conditionParams[i]!);
          for (const c of columns) params.push(this.toDatabase(c, records[i]![c.propertyName]));
        }
        const { rows } = await this.sql.query<Record<string, unknown>>(text, params);
        const returned = new Set(rows.map((r) => r[key.databaseName]));
        for (const i of at) inserted[i] = returned.has(this.toDatabase(key, records[i]![key.propertyName]));
      }),
    );
    return inserted;
  }

  /**
   * One conditional UPDATE: sets `changes` (a null writes NULL) on the rows whose columns equal every value of `where`
   * and, with `among`, whose `among.property` is one of `among.values`. Resolves with how many rows it changed (a
   * keyed TypeORM update costs about as much CPU as a find: the worker's per-run writes come here).
   */
  async updateWhere(
    where: Partial<T>,
    changes: Partial<T>,
    among?: { property: keyof T & string; values: readonly unknown[] },
  ): Promise<number> {
    const set = this.columnsOf(changes, 'update');
    const keys = this.columnsOf(where, 'where');
    const amongColumn = among ? this.columnsOf({ [among.property]: among.values[0] } as Partial<T>, 'where')[0] : undefined;
    const key = `update:${set.map((c) => c.propertyName).join(',')}:${keys.map((c) => c.propertyName).join(',')}:${amongColumn?.propertyName ?? ''}:${among?.values.length ?? 0}`;
    let text = this.statements.get(key);
    if (!text) {
      let n = 0;
      const assignments = set.map((c) => `${this.escape(c.databaseName)} = $${++n}`).join(', ');
      const conditions = keys.map((c) => `${this.escape(c.databaseName)} = $${++n}`);
      if (amongColumn && among)
        conditions.push(`${this.escape(amongColumn.databaseName)} IN (${among.values.map(() => `$${++n}`).join(', ')})`);
      // RETURNING counts the rows on both engines (sqlite3's Statement#all reports no changes).
      text = `UPDATE ${this.table} SET ${assignments} WHERE ${conditions.join(' AND ')} RETURNING ${this.escape(keys[0]!.databaseName)}`;
      this.statements.set(key, text);
    }
    const params = [
      ...set.map((c) => this.toDatabase(c, changes[c.propertyName])),
      ...keys.map((c) => this.toDatabase(c, where[c.propertyName])),
      ...(amongColumn && among ? among.values.map((v) => this.toDatabase(amongColumn, v)) : []),
    ];
    const { rows } = await this.sql.query(text, params);
    return rows.length;
  }

  /**
   * A hand-written conditional UPDATE of this table (`assignments` and `condition` in SQL, `$n` parameters already in
   * database form, see param()) that answers the rows it changed, read back in the same statement (RETURNING, on both
   * engines) and mapped as findOneBy maps them: a claim learns the row it won without a second round trip.
   */
  async updateReturning(assignments: string, condition: string, params: unknown[]): Promise<T[]> {
    const text = `UPDATE ${this.table} SET ${assignments} WHERE ${condition} RETURNING ${this.selectList}`;
    const { rows } = await this.sql.query<Record<string, unknown>>(text, params);
    return rows.map((row) => this.fromRow(row));
  }

  /** A value of the property as the database holds it (a Date as SQLite's datetime text, JSON as text, …). */
  param<K extends keyof T & string>(property: K, value: T[K]): unknown {
    const column = this.byProperty.get(property);
    if (!column) throw new Error(`${this.repo.metadata.name} has no column ${property}`);
    return this.toDatabase(column, value);
  }

  private columnsOf(values: Partial<T>, use: 'where' | 'insert' | 'update'): ColumnMetadata[] {
    const columns: ColumnMetadata[] = [];
    for (const [property, value] of Object.entries(values)) {
      if (value === undefined) continue;
      const column = this.byProperty.get(property);
      if (!column) throw new Error(`${this.repo.metadata.name} has no column ${property}`);
      // A null for a nullable column without a default is what the row holds anyway: not a parameter to convert and bind
      // (a new agent request has a dozen such columns: result, error, lease, approval, sealed user action …).
      if (use === 'insert' && value === null && column.isNullable && column.default === undefined) continue;
      if (use === 'where' && value === null)
        throw new Error(`${this.repo.metadata.name}.${property}: null is not looked up by PreparedTable`);
      columns.push(column);
    }
    if (columns.length === 0) throw new Error(`${this.repo.metadata.name}: no values to ${use}`);
    return columns;
  }

  private escape(name: string): string {
    return this.repo.manager.connection.driver.escape(name);
  }

  private toDatabase(column: ColumnMetadata, value: unknown): unknown {
    return this.repo.manager.connection.driver.preparePersistentValue(value, column);
  }

  private fromRow(row: Record<string, unknown>): T {
    const driver = this.repo.manager.connection.driver;
    const entity: Record<string, unknown> = {};
    for (const column of this.repo.metadata.columns)
      entity[column.propertyName] = driver.prepareHydratedValue(row[column.databaseName], column);
    return entity as T;
  }
}

/**
 * What PreparedTable needs of TypeORM, checked when it is built (at startup): the driver's value conversions,
 * which also apply column transformers, and for every column its property and database names.
 */
function assertMappable<T extends ObjectLiteral>(repo: Repository<T>) {
  const driver = repo.manager.connection.driver as unknown as Record<string, unknown>;
  for (const hook of DRIVER_HOOKS) {
    if (typeof driver[hook] !== 'function')
      throw typeormInternalsChanged(`the ${repo.manager.connection.options.type} driver has no ${hook}()`);
  }
  const { tableName, columns, name } = repo.metadata;
  if (typeof tableName !== 'string' || !tableName || !Array.isArray(columns) || columns.length === 0) {
    throw typeormInternalsChanged(`entity metadata of ${name} has no tableName or columns`);
  }
  for (const column of columns) {
    if (typeof column.propertyName !== 'string' || typeof column.databaseName !== 'string' || !column.databaseName) {
      throw typeormInternalsChanged(`a column of ${name} has no propertyName or databaseName`);
    }
  }
}

const byRepository = new WeakMap<object, PreparedTable<ObjectLiteral>>();

/** The PreparedTable of a repository (built once: its SQL texts are cached per key set). */
export function preparedTable<T extends ObjectLiteral>(repo: Repository<T>): PreparedTable<T> {
  let table = byRepository.get(repo);
  if (!table) {
    table = new PreparedTable(repo) as unknown as PreparedTable<ObjectLiteral>;
    byRepository.set(repo, table);
  }
  return table as unknown as PreparedTable<T>;
}
