import path from 'node:path';

import sqlite3 from 'sqlite3';
import { DataSource } from 'typeorm';

import type { AppConfig } from '../config';
import { ensurePrivateDir, ensurePrivateFile, restrictFile } from '../private-files';
import { buildEntities } from './entities';
import { migrations } from './migrations';

export type DatabaseConfig = AppConfig['database'];

/** One TypeORM data source for either engine. `synchronize` stays off: the schema comes from migrations. */
export function createDataSource(database: DatabaseConfig): DataSource {
  if (database.type === 'postgres') {
    return new DataSource({
      type: 'postgres',
      url: database.url,
      entities: Object.values(buildEntities('postgres')),
      migrations,
      migrationsTableName: 'agentlink_migrations',
      synchronize: false,
      extra: { max: 20 },
    });
  }
  if (database.file !== ':memory:') {
    // SQLite gives its -wal and -shm files the mode of the database file, so creating that one 0600 first covers
    // all three; existing files from before are tightened here too.
    ensurePrivateDir(path.dirname(database.file));
    ensurePrivateFile(database.file);
    for (const suffix of ['-wal', '-shm', '-journal']) restrictFile(`${database.file}${suffix}`);
  }
  return new DataSource({
    type: 'sqlite',
    // TypeORM calls driver.verbose(), which makes sqlite3 capture a stack trace on every query (a large
    // share of each API request's CPU in bench/api.bench.ts); hand it the plain module instead.
    driver: { verbose: () => sqlite3 },
    database: database.file,
    entities: Object.values(buildEntities('sqlite')),
    migrations,
    migrationsTableName: 'agentlink_migrations',
    synchronize: false,
    // WAL lets readers proceed while a writer commits; busy_timeout rides out another process's write lock.
    enableWAL: database.file !== ':memory:',
    busyTimeout: 5000,
  });
}
