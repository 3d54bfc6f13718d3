/**
 * The floor: the least a JSON-over-HTTP + SQLite endpoint can cost on this machine. A bare node:http
 * server reads the body, JSON.parses it, does ONE SQLite insert (sqlite3 package, one connection, WAL,
 * same pragmas AgentLink's store sets: journal_mode=WAL, busy_timeout=5000, foreign_keys=ON,
 * synchronous=NORMAL, so both pay the same durability) into a table shaped like AgentLink's (same columns and
 * indexes), and answers a small JSON document of the same shape.
 * No validation, no auth, no logging, no framework.
 *
 * Env: BENCH_PORT, BENCH_DB_FILE.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';

import sqlite3 from 'sqlite3';

import { exitWithParent, portFromEnv, send } from './protocol';

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS agent_requests (
     id varchar(64) PRIMARY KEY NOT NULL, organization_id varchar(64) NOT NULL, environment varchar(16) NOT NULL,
     connection_id varchar(64) NOT NULL, provider_id varchar(64) NOT NULL, action text NOT NULL, starting_url text NOT NULL,
     parameters text NOT NULL, response_format text NOT NULL, timeout_ms integer NOT NULL, status varchar(32) NOT NULL,
     result text, error text, created_at datetime NOT NULL, started_at datetime, completed_at datetime,
     execution_time_ms integer, attempts integer NOT NULL, lease_owner varchar(128), lease_expires_at datetime)`,
  `CREATE TABLE IF NOT EXISTS link_tokens (
     id varchar(64) PRIMARY KEY NOT NULL, token_hash varchar(64) NOT NULL UNIQUE, organization_id varchar(64) NOT NULL,
     environment varchar(16) NOT NULL, client_user_id varchar(256) NOT NULL, provider_id varchar(64), connection_id varchar(64),
     expires_at datetime NOT NULL, used_at datetime, created_at datetime NOT NULL)`,
  // The same secondary indexes as AgentLink's migration, so the floor pays the same index maintenance.
  'CREATE INDEX IF NOT EXISTS ix_agent_requests_owner_created ON agent_requests (organization_id, environment, created_at)',
  'CREATE INDEX IF NOT EXISTS ix_agent_requests_queue ON agent_requests (status, lease_expires_at)',
];

const INSERT_AGENT_REQUEST =
  'INSERT INTO agent_requests (id, organization_id, environment, connection_id, provider_id, action, starting_url, parameters, ' +
  'response_format, timeout_ms, status, result, error, created_at, started_at, completed_at, execution_time_ms, attempts, ' +
  'lease_owner, lease_expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, NULL, NULL, NULL, 0, NULL, NULL)';
const INSERT_LINK_TOKEN =
  'INSERT INTO link_tokens (id, token_hash, organization_id, environment, client_user_id, provider_id, connection_id, expires_at, used_at, created_at) ' +
  'VALUES (?, ?, ?, ?, ?, ?, NULL, ?, NULL, ?)';

function exec(db: sqlite3.Database, sql: string) {
  return new Promise<void>((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

function run(db: sqlite3.Database, sql: string, params: unknown[]) {
  return new Promise<void>((resolve, reject) => db.run(sql, params, (err) => (err ? reject(err) : resolve())));
}

function reply(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

type Json = Record<string, unknown>;

async function main() {
  exitWithParent();
  const port = portFromEnv();
  const file = process.env.BENCH_DB_FILE;
  if (!file) throw new Error('BENCH_DB_FILE must be set');
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const d = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(d)));
  });
  await exec(db, 'PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;');
  for (const sql of SCHEMA) await exec(db, sql);

  const handlers: Record<string, (body: Json) => Promise<[number, unknown]>> = {
    '/api/agent-requests': async (b) => {
      const id = `areq_${randomUUID().replace(/-/g, '')}`;
      const createdAt = new Date().toISOString();
      await run(db, INSERT_AGENT_REQUEST, [
        id,
        'org_floor',
        'sandbox',
        'conn_floor',
        'provider_floor',
        String(b.action),
        String(b.startingUrl),
        JSON.stringify(b.parameters ?? {}),
        JSON.stringify(b.responseFormat ?? {}),
        Number(b.timeoutMs ?? 300_000),
        'PENDING',
        createdAt,
      ]);
      return [202, { requestId: id, status: 'PENDING', connectionId: 'conn_floor', providerId: 'provider_floor', createdAt }];
    },
    '/api/link-token': async (b) => {
      const now = new Date();
      const linkToken = `link-sandbox-${randomBytes(32).toString('base64url')}`;
      const expiration = new Date(now.getTime() + 30 * 60_000).toISOString();
      await run(db, INSERT_LINK_TOKEN, [
        `ltok_${randomUUID().replace(/-/g, '')}`,
        createHash('sha256').update(linkToken).digest('hex'),
        'org_floor',
        'sandbox',
        String(b.clientUserId),
        typeof b.providerId === 'string' ? b.providerId : null,
        expiration,
        now.toISOString(),
      ]);
      return [200, { linkToken, expiration, environment: 'sandbox' }];
    },
  };

  const server = http.createServer((req, res) => {
    const handler = req.method === 'POST' ? handlers[req.url ?? ''] : undefined;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!handler) return reply(res, 404, { error: 'not found' });
      let body: Json;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      } catch {
        return reply(res, 400, { error: 'malformed JSON' });
      }
      handler(body).then(
        ([status, out]) => reply(res, status, out),
        (err: unknown) => reply(res, 500, { error: String(err) }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });

  const shutdown = () => server.close(() => db.close(() => process.exit(0)));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  send({ type: 'ready', port });
}

main().catch((err: unknown) => {
  send({ type: 'fatal', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});
