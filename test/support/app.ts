import crypto from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { Express } from 'express';
import { Client } from 'pg';
import pino from 'pino';

import { createApp } from '../../server/app';
import { type AppConfig, loadConfig } from '../../server/config';
import { ManualClock } from '../../server/domain/clock';
import { createExpressServer } from '../../server/http/express-server';
import { buildServices, type Services } from '../../server/services';
import { Store } from '../../server/store';
import { loadVault } from '../../server/vault/keyring';
import { PG_URL_ENV } from './pg-env';
import { copySqliteTemplate, pgTemplateClause } from './store-templates';

export type Dialect = 'sqlite' | 'postgres';

export { PG_URL_ENV };

/** A fixed test key (base64 of 32 bytes); tests never depend on a generated key file. */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** The ManualClock's start; every time a test expects is computed from it. */
export const CLOCK_START = Date.UTC(2026, 0, 1, 12, 0, 0);

export interface TestApp {
  dialect: Dialect;
  app: Express;
  /** The app listening on 127.0.0.1 (an ephemeral port); the request helpers use it. */
  server: http.Server;
  baseUrl: string;
  services: Services;
  clock: ManualClock;
  store: Store;
  config: AppConfig;
  dataDir: string;
  /** SQLite only: the database file. */
  sqliteFile?: string;
  /** PostgreSQL only: the database of this test file. */
  pgDatabase?: string;
  close(): Promise<void>;
}

/** PostgreSQL variants are skipped only on request; without SKIP_PG=1 a missing server is a failure. */
export function postgresSkipped(): boolean {
  return process.env.SKIP_PG === '1';
}

function pgUrl(database?: string): string {
  const base = process.env[PG_URL_ENV];
  if (!base) throw new Error(`${PG_URL_ENV} is not set: global-setup did not start PostgreSQL (SKIP_PG=1?)`);
  const url = new URL(base);
  url.pathname = `/${database ?? 'postgres'}`;
  return url.toString();
}

async function createPgDatabase(): Promise<string> {
  const name = `agentlink_test_${process.pid}_${crypto.randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}${pgTemplateClause()}`);
  } finally {
    await client.end();
  }
  return name;
}

async function dropPgDatabase(name: string) {
  const client = new Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Runs a query against this test app's own database (for looking at what was stored). */
export async function pgQuery<T = Record<string, unknown>>(t: TestApp, sql: string, params: unknown[] = []): Promise<T[]> {
  if (!t.pgDatabase) throw new Error('not a PostgreSQL test app');
  const client = new Client({ connectionString: pgUrl(t.pgDatabase) });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A fresh app on a fresh database: SQLite in a temp folder, or a new database on the shared PostgreSQL. */
export async function createTestApp(dialect: Dialect, env: Record<string, string> = {}): Promise<TestApp> {
  // The pid in the name lets global-setup sweep folders that a killed run left behind.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `agentlink-test-${process.pid}-`));
  let pgDatabase: string | undefined;
  let store: Store | undefined;
  try {
    pgDatabase = dialect === 'postgres' ? await createPgDatabase() : undefined;
    return await buildTestApp(dialect, env, dataDir, pgDatabase, (s) => (store = s));
  } catch (err) {
    await store?.close().catch(() => undefined);
    if (pgDatabase) await dropPgDatabase(pgDatabase).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function buildTestApp(
  dialect: Dialect,
  env: Record<string, string>,
  dataDir: string,
  pgDatabase: string | undefined,
  onStore: (store: Store) => void,
): Promise<TestApp> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    AGENTLINK_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    AGENTLINK_DATA_DIR: dataDir,
    ...(pgDatabase ? { DATABASE_URL: pgUrl(pgDatabase) } : {}),
    ...env,
  });
  if (config.database.type === 'sqlite') copySqliteTemplate(config.database.file);
  const store = await Store.open(config.database);
  onStore(store);
  const { vault } = loadVault(config);
  const clock = new ManualClock(CLOCK_START);
  const services = buildServices({ config, store, clock, vault });
  const logger = pino({ level: 'silent' });
  const app = createApp(services, logger);
  // Listen on loopback only (supertest would otherwise listen on every interface, once per request).
  const server = createExpressServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // PORT in `env`: a fixed port, for tests whose pages must call the public URL they were served from (/docs).
    server.listen(env.PORT ? Number(env.PORT) : 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  let closed = false;
  return {
    dialect,
    app,
    server,
    baseUrl: `http://127.0.0.1:${port}`,
    services,
    clock,
    store,
    config,
    dataDir,
    sqliteFile: config.database.type === 'sqlite' ? config.database.file : undefined,
    pgDatabase,
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // The agent queue may have started (pg-boss starts on the first enqueue); no worker runs here.
      await services.queue.stop();
      await store.close();
      if (pgDatabase) await dropPgDatabase(pgDatabase).catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a describe block once per store: SQLite and PostgreSQL. The TestApp handed to `fn` is filled in
 * beforeAll (one app and database per block), so tests read `t.app` etc. inside their bodies.
 * The PostgreSQL block is skipped, with a visible note, only when SKIP_PG=1.
 */
export function describeEachStore(name: string, fn: (t: TestApp) => void, env: Record<string, string> = {}) {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const skip = dialect === 'postgres' && postgresSkipped();
    const title = `${name} [${dialect}]`;
    if (skip) {
      describe.skip(`${title} (skipped: SKIP_PG=1, no PostgreSQL)`, () => {
        it('runs on PostgreSQL', () => undefined);
      });
      continue;
    }
    describe(title, () => {
      const t = { dialect } as TestApp;
      beforeAll(async () => {
        Object.assign(t, await createTestApp(dialect, env));
      }, 60_000);
      afterAll(async () => {
        await t.close?.();
      }, 60_000);
      fn(t);
    });
  }
}
