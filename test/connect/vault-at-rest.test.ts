import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { createApp } from '../../server/app';
import { type AppConfig, loadConfig } from '../../server/config';
import { systemClock } from '../../server/domain/clock';
import { credentialsAad, sessionAad } from '../../server/domain/connections.service';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { createLogger } from '../../server/logger';
import { main } from '../../server/main';
import { buildServices, type Services } from '../../server/services';
import { Store } from '../../server/store';
import { keyFilePath, loadVault, readKeys } from '../../server/vault/keyring';
import { Vault, VaultError } from '../../server/vault/vault';

/**
 * Secrets at rest: after a real connection through the widget's API and the login engine (with the
 * organization's opt-in to storing credentials), no password, cookie value or token appears in plain text in
 * the SQLite database file (or its WAL) or in the logs (debug level, the production logger and its redaction).
 * Then `vault rotate-key` re-seals every stored value under a new key while the old key still opens old values.
 */
jest.setTimeout(90_000);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-vault-'));
const logLines: string[] = [];
const WRONG_PASSWORD = `Wr0ng-${randomBytes(6).toString('hex')}`;

let config: AppConfig;
let services: Services;
let store: Store;
let httpServer: http.Server;
let base: string;
let generatedKeyFile: string | undefined;

/** What must never be stored or logged in plain text. */
const secrets: Record<string, string> = {};
let connectionId: string;

async function call(method: string, p: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* the widget page */
  }
  return { status: res.status, json, text };
}

function databaseFiles(): string[] {
  return fs
    .readdirSync(dataDir)
    .filter((f) => f.startsWith('agentlink.sqlite'))
    .map((f) => path.join(dataDir, f));
}

function expectNoSecretIn(what: string, haystack: string) {
  for (const [name, value] of Object.entries(secrets)) {
    if (haystack.includes(value)) throw new Error(`${name} appears in plain text in ${what}`);
  }
}

beforeAll(async () => {
  httpServer = http.createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const port = (httpServer.address() as AddressInfo).port;
  base = `http://localhost:${port}`;
  // No AGENTLINK_ENCRYPTION_KEY: the embedded default generates a key file in the data folder.
  config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    PORT: String(port),
    AGENTLINK_PUBLIC_URL: base,
    AGENTLINK_DATA_DIR: dataDir,
  });
  store = await Store.open(config.database);
  const loaded = loadVault(config);
  generatedKeyFile = loaded.generatedKeyFile;
  services = buildServices({ config, store, clock: systemClock, vault: loaded.vault });
  const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) });
  httpServer.on('request', createApp(services, logger));
});

afterAll(async () => {
  httpServer?.closeAllConnections();
  await new Promise<void>((resolve) => (httpServer ? httpServer.close(() => resolve()) : resolve()));
  await services?.loginEngine.close();
  await services?.browsers.close();
  await store?.close().catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('secrets at rest', () => {
  it('the embedded default generated its key file in the data folder', () => {
    expect(generatedKeyFile).toBe(keyFilePath(dataDir));
    expect(readKeys(dataDir)).toHaveLength(1);
  });

  it('a connection made through the widget API and the login engine leaves no secret in the database or the logs', async () => {
    const created = await services.organizations.create('Vault Test Org');
    const creds = { 'x-client-id': created.clientId, 'x-client-secret': created.sandboxSecret };
    secrets.clientSecret = created.sandboxSecret;
    secrets.productionSecret = created.productionSecret;
    secrets.password = 'pass_good';
    secrets.wrongPassword = WRONG_PASSWORD;

    const lt = await call('POST', '/api/link-token', { headers: creds, body: { clientUserId: 'vault-user', rememberCredentials: true } });
    expect(lt.status).toBe(200);
    const linkToken = lt.json.linkToken as string;
    secrets.linkToken = linkToken;
    const bearer = { authorization: `Bearer ${linkToken}` };

    // The widget page opened the direct way logs its URL: the token must be redacted there.
    const pageRes = await call('GET', `/link?token=${encodeURIComponent(linkToken)}`);
    expect(pageRes.status).toBe(200);
    expect(pageRes.text).toContain('<script src="/link/widget.js"');

    const started = await call('POST', '/link/api/sessions', { headers: bearer, body: { env: 'sandbox' } });
    expect(started.status).toBe(200);
    const sessionId = started.json.linkSessionId as string;
    const s = (step: string) => `/link/api/sessions/${sessionId}/${step}`;
    expect((await call('POST', s('consent'), { headers: bearer })).status).toBe(200);
    expect((await call('POST', s('provider'), { headers: bearer, body: { providerId: ORBIT_PROVIDER_ID } })).status).toBe(200);

    const wrong = await call('POST', s('credentials'), { headers: bearer, body: { username: 'user_sms', password: WRONG_PASSWORD } });
    expect(wrong.json).toMatchObject({
      error: { code: 'INVALID_CREDENTIALS', details: { linkSessionId: sessionId, status: 'CREDENTIALS', retryable: true } },
    });
    const mfa = await call('POST', s('credentials'), { headers: bearer, body: { username: 'user_sms', password: 'pass_good' } });
    expect(mfa.json).toMatchObject({ view: { status: 'MFA_SMS', mfa: { method: 'sms' } } });
    const done = await call('POST', s('mfa'), { headers: bearer, body: { code: '123456' } });
    expect(done.status).toBe(200);
    const success = (done.json as { success: { publicToken: string; metadata: { linkSessionId: string } } }).success;
    expect(success.metadata.linkSessionId).toBe(sessionId);
    secrets.publicToken = success.publicToken;

    const exchanged = await call('POST', '/api/connections/public_token/exchange', {
      headers: creds,
      body: { publicToken: success.publicToken },
    });
    expect(exchanged.status).toBe(200);
    secrets.accessToken = exchanged.json.access_token as string;
    connectionId = exchanged.json.connectionId as string;

    // What was sealed: the browser session (its cookie values are secrets too) and, opted in, the credentials.
    const connection = (await store.repos.connections.findById(connectionId))!;
    const state = JSON.parse(services.vault.open(connection.sealedSession!, sessionAad(connectionId))) as {
      cookies: { name: string; value: string }[];
    };
    expect(state.cookies.map((c) => c.name)).toContain('orbit_sid');
    for (const c of state.cookies) secrets[`cookie ${c.name}`] = c.value;
    expect(services.connections.openCredentials(connection)).toEqual({ username: 'user_sms', password: 'pass_good' });

    // The database file and its write-ahead log, byte for byte, while the server is running…
    const files = databaseFiles();
    expect(files.some((f) => f.endsWith('-wal'))).toBe(true);
    for (const f of files) expectNoSecretIn(path.basename(f), fs.readFileSync(f).toString('latin1'));
    // … and the logs of the whole flow, at debug level.
    const logs = logLines.join('');
    expect(logs).toContain('/link?token=[redacted]');
    expect(logs).toContain(sessionId);
    expectNoSecretIn('the logs', logs);
  });

  it('with the server stopped (WAL checkpointed into the file), the database still holds no secret', async () => {
    await new Promise<void>((resolve) => {
      httpServer.closeAllConnections();
      httpServer.close(() => resolve());
    });
    await store.close();
    for (const f of databaseFiles()) expectNoSecretIn(path.basename(f), fs.readFileSync(f).toString('latin1'));
  });
});

describe('npm run agentlink -- vault rotate-key', () => {
  const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', AGENTLINK_DATA_DIR: dataDir };

  async function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const saved = { ...process.env };
    let output = '';
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output += String(chunk);
      return true;
    });
    try {
      delete process.env.AGENTLINK_ENCRYPTION_KEY;
      delete process.env.DATABASE_URL;
      Object.assign(process.env, env, extraEnv);
      await main(args);
    } finally {
      write.mockRestore();
      process.env = saved;
    }
    return args.includes('--json') ? (JSON.parse(output) as Record<string, unknown>) : { text: output };
  }

  async function sealedValues() {
    const s = await Store.open(loadConfig(env).database);
    try {
      const c = (await s.repos.connections.findById(connectionId))!;
      return { session: c.sealedSession!, credentials: c.sealedCredentials! };
    } finally {
      await s.close();
    }
  }

  it('adds a new primary key to the key file, re-seals every stored value with it, and old and new keys still open', async () => {
    const before = await sealedValues();
    const [oldKey] = readKeys(dataDir);
    const oldVault = new Vault([oldKey]);
    const plain = {
      session: oldVault.open(before.session, sessionAad(connectionId)),
      credentials: oldVault.open(before.credentials, credentialsAad(connectionId)),
    };

    const out = await cli(['vault', 'rotate-key', '--json']);
    expect(out).toMatchObject({ source: 'file', scanned: 2, resealed: 2, current: 0, failed: 0, skipped: 0 });
    const keys = readKeys(dataDir);
    expect(keys.map((k) => k.id)).toEqual([out.newKeyId, oldKey.id]);
    expect(out).toMatchObject({ primaryKeyId: out.newKeyId, keyIds: [out.newKeyId, oldKey.id], byKey: { [out.newKeyId as string]: 2 } });

    const after = await sealedValues();
    const rotated = loadVault({ dataDir }).vault;
    expect(rotated.keyIdOf(after.session)).toBe(out.newKeyId);
    expect(rotated.keyIdOf(after.credentials)).toBe(out.newKeyId);
    // New values open with the new key file, to the same plaintext; values sealed before still open too.
    expect(rotated.open(after.session, sessionAad(connectionId))).toBe(plain.session);
    expect(rotated.open(after.credentials, credentialsAad(connectionId))).toBe(plain.credentials);
    expect(rotated.open(before.session, sessionAad(connectionId))).toBe(plain.session);
    // The old key alone can no longer open what was re-sealed: the rotation really used the new key.
    expect(() => oldVault.open(after.session, sessionAad(connectionId))).toThrow(VaultError);

    // Re-sealing again is a no-op (idempotent; also how an interrupted rotation resumes).
    expect(await cli(['vault', 'reseal', '--json'])).toMatchObject({ scanned: 2, resealed: 0, current: 2 });
  });

  it('with AGENTLINK_ENCRYPTION_KEY it explains the rotation and re-seals with the first key of the variable', async () => {
    const fileKeys = readKeys(dataDir);
    const newKey = randomBytes(32).toString('base64');
    const value = ['k-env-2:' + newKey, ...fileKeys.map((k) => `${k.id}:${k.key.toString('base64')}`)].join(',');
    const { text } = (await cli(['vault', 'rotate-key'], { AGENTLINK_ENCRYPTION_KEY: value })) as { text: string };
    expect(text).toContain('AGENTLINK_ENCRYPTION_KEY is set');
    expect(text).toContain('openssl rand -base64 32');
    expect(text).toContain('Re-sealed 2 of 2 stored value(s) with primary key k-env-2');
    expect(text).not.toContain(newKey);
    const after = await sealedValues();
    expect(after.session.split('.')[1]).toBe('k-env-2');
    // The key file was left alone.
    expect(readKeys(dataDir).map((k) => k.id)).toEqual(fileKeys.map((k) => k.id));
  });
});
