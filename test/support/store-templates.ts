import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from 'pg';

import { Store } from '../../server/store';
import { PG_URL_ENV } from './pg-env';

/**
 * Migrated empty databases made once per jest run, which each test app copies instead of migrating its own (as Rails
 * loads its schema rather than replaying every migration): two dozen migrations cost every test app most of a second.
 * A copy still goes through Store.open's migration step, which finds nothing pending. The migration tests themselves
 * open their stores directly and never use these.
 */
export const SQLITE_TEMPLATE_ENV = 'AGENTLINK_TEST_SQLITE_TEMPLATE';
export const PG_TEMPLATE_ENV = 'AGENTLINK_TEST_PG_TEMPLATE';
const PG_TEMPLATE = 'agentlink_test_template';

function pgUrlOf(database: string): string {
  const url = new URL(process.env[PG_URL_ENV]!);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function makeMigratedTemplates(): Promise<void> {
  // The pid in the name lets global-setup sweep what a killed run left behind.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentlink-test-${process.pid}-template-`));
  const file = path.join(dir, 'template.sqlite');
  const sqlite = await Store.open({ type: 'sqlite', file });
  await sqlite.dataSource.query('PRAGMA wal_checkpoint(TRUNCATE)');
  await sqlite.close();
  process.env[SQLITE_TEMPLATE_ENV] = file;

  if (!process.env[PG_URL_ENV]) return;
  const admin = new Client({ connectionString: pgUrlOf('postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${PG_TEMPLATE}`);
  } finally {
    await admin.end();
  }
  // Closed before any copy: PostgreSQL copies a template only while nobody is connected to it.
  const pg = await Store.open({ type: 'postgres', url: pgUrlOf(PG_TEMPLATE) });
  await pg.close();
  process.env[PG_TEMPLATE_ENV] = PG_TEMPLATE;
}

export function removeMigratedTemplates(): void {
  const file = process.env[SQLITE_TEMPLATE_ENV];
  if (file) fs.rmSync(path.dirname(file), { recursive: true, force: true });
}

/** A copy of the migrated SQLite template at `file` (nothing when there is none: the store then migrates itself). */
export function copySqliteTemplate(file: string): void {
  const template = process.env[SQLITE_TEMPLATE_ENV];
  if (template && fs.existsSync(template) && !fs.existsSync(file)) fs.copyFileSync(template, file);
}

/** `CREATE DATABASE`'s clause copying the migrated template, when there is one. */
export function pgTemplateClause(): string {
  const template = process.env[PG_TEMPLATE_ENV];
  return template ? ` TEMPLATE ${template}` : '';
}
