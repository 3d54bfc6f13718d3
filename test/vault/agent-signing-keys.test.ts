import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import express from 'express';

import { type AppConfig, loadConfig } from '../../server/config';
import { AGENT_SIGNING_KEY_PURPOSE, AgentSigningKeys } from '../../server/domain/agent-signing-keys';
import { systemClock } from '../../server/domain/clock';
import { SignedAgent } from '../../server/domain/signed-agent';
import { webBotAuthSigner } from '../../server/egress/request-signing';
import { signatureDirectoryRoutes } from '../../server/http/signature-directory.routes';
import { main } from '../../server/main';
import { Store } from '../../server/store';
import { type AgentKey, agentKeyFromSeed, derivedAgentKeySeed } from '../../server/vault/agent-keys';
import { loadVault } from '../../server/vault/keyring';
import { postgresSkipped } from '../support/app';
import { fetchDirectory, type SignedRequestLike, verifyAgentRequest } from '../support/bot-auth-verifier';
import { PG_URL_ENV } from '../support/pg-env';
import { pgTemplateClause } from '../support/store-templates';

/**
 * The deployment's Web Bot Auth key at rest: a random Ed25519 key made once (two processes racing to make it end with
 * one), stored sealed by the vault and in no row in clear, re-sealed by `vault rotate-key` while the very same key keeps
 * signing, served by the key directory, and its signatures verified by Cloudflare's verifier against that directory.
 * A deployment that already signed with the former derived key adopts it, so the sites that cached it see no change.
 */
jest.setTimeout(60_000);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-agentkey-'));
const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', AGENTLINK_DATA_DIR: dataDir };
let config: AppConfig;
let store: Store;
let directory: http.Server;
let agentUrl = '';
/** What the directory route serves: the keys of the (restarted) process. */
let served: () => Promise<AgentKey[]>;

beforeAll(async () => {
  config = loadConfig(env);
  store = await Store.open(config.database);
  const app = express();
  app.use(signatureDirectoryRoutes({ keys: () => served(), publicUrl: 'http://127.0.0.1/' }));
  directory = app.listen(0, '127.0.0.1');
  await new Promise((r) => directory.once('listening', r));
  agentUrl = `http://127.0.0.1:${(directory.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await store?.close();
  directory?.closeAllConnections();
  await new Promise((r) => directory?.close(r));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A request to a site, signed as the egress proxy signs it. */
function signedRequest(key: AgentKey): SignedRequestLike {
  const url = 'https://shop.example/cart';
  const headers: Record<string, string | string[]> = { host: 'shop.example', accept: '*/*' };
  webBotAuthSigner(key, agentUrl).sign('GET', new URL(url), headers);
  return { method: 'GET', url, headers };
}

const privateHalf = (key: AgentKey) => key.privateKey.export({ format: 'jwk' }).d!;

function databaseText(): string {
  return fs
    .readdirSync(dataDir)
    .filter((f) => f.startsWith('agentlink.sqlite'))
    .map((f) => fs.readFileSync(path.join(dataDir, f)).toString('latin1'))
    .join('\n');
}

let made: AgentKey;
let signedBeforeRotation: SignedRequestLike;

test('made once for the deployment, random, stored sealed by the vault and in no row in clear', async () => {
  const { vault } = loadVault(config);
  // Two processes of one deployment asking at once (an API and a worker at start): one key between them.
  const [[a], [b]] = await Promise.all([
    new AgentSigningKeys(store, vault, systemClock).keys(),
    new AgentSigningKeys(store, vault, systemClock).keys(),
  ]);
  expect(b.keyid).toBe(a.keyid);
  made = a;
  // Random, not the former derivation from the vault key (nobody signed here yet, so there is nothing to keep).
  expect(made.keyid).not.toBe((await agentKeyFromSeed(derivedAgentKeySeed(vault))).keyid);

  const row = (await store.repos.deploymentKeys.find(AGENT_SIGNING_KEY_PURPOSE))!;
  expect(vault.keyIdOf(row.sealedKey)).toBe(vault.primaryKeyId);
  // The sealed value is the private half itself: what this scan would find, were it stored in clear.
  const d = privateHalf(made);
  expect(vault.open(row.sealedKey, `deployment-key:${AGENT_SIGNING_KEY_PURPOSE}`)).toBe(d);
  await store.dataSource.query('PRAGMA wal_checkpoint(TRUNCATE)');
  const stored = databaseText();
  for (const form of [d, Buffer.from(d, 'base64url').toString('hex'), Buffer.from(d, 'base64url').toString('base64')]) {
    expect(stored.includes(form)).toBe(false);
  }
});

test('the directory lists the key, and a request it signed verifies against the directory', async () => {
  served = () => new AgentSigningKeys(store, loadVault(config).vault, systemClock).keys();
  const listed = await fetchDirectory(agentUrl);
  expect(listed.contentType).toBe('application/http-message-signatures-directory+json');
  expect(listed.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: made.publicJwk.x, kid: made.keyid }]);
  signedBeforeRotation = signedRequest(made);
  expect(await verifyAgentRequest(signedBeforeRotation)).toEqual({ kind: 'verified', keyid: made.keyid, agent: agentUrl });
});

async function cli(args: string[]): Promise<Record<string, unknown>> {
  const saved = { ...process.env };
  let output = '';
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    output += String(chunk);
    return true;
  });
  try {
    delete process.env.AGENTLINK_ENCRYPTION_KEY;
    delete process.env.DATABASE_URL;
    Object.assign(process.env, env);
    await main(args);
  } finally {
    write.mockRestore();
    process.env = saved;
  }
  return JSON.parse(output) as Record<string, unknown>;
}

test('vault rotate-key re-seals the key under the new vault key; after a restart the same key signs and verifies', async () => {
  const out = await cli(['vault', 'rotate-key', '--json']);
  expect(out).toMatchObject({ source: 'file', resealed: 1, failed: 0, byKey: { [out.newKeyId as string]: 1 } });
  const row = (await store.repos.deploymentKeys.find(AGENT_SIGNING_KEY_PURPOSE))!;
  const rotated = loadVault(config).vault;
  expect(rotated.primaryKeyId).toBe(out.newKeyId);
  expect(rotated.keyIdOf(row.sealedKey)).toBe(out.newKeyId);

  // A restarted process: the rotated key file, a fresh load of the stored key.
  const [after] = await new AgentSigningKeys(store, rotated, systemClock).keys();
  expect(after.keyid).toBe(made.keyid);
  expect((await fetchDirectory(agentUrl)).keys.map((k) => (k as { kid: string }).kid)).toEqual([made.keyid]);
  expect(await verifyAgentRequest(signedRequest(after))).toEqual({ kind: 'verified', keyid: made.keyid, agent: agentUrl });
  // What it signed just before the rotation still verifies: the sites' cached key did not change.
  expect(await verifyAgentRequest(signedBeforeRotation)).toEqual({ kind: 'verified', keyid: made.keyid, agent: agentUrl });
  // A key the directory does not list is refused (the verifier really looks the key up).
  const stranger = await agentKeyFromSeed(Buffer.alloc(32, 7));
  expect((await verifyAgentRequest(signedRequest(stranger))).kind).toBe('invalid');
});

test('vault replace-signing-key: the new key signs at once; the old one stays listed, and verifies, for the overlap, then drops out', async () => {
  const out = await cli(['vault', 'replace-signing-key', '--overlap-hours', '1', '--json']);
  expect(out).toMatchObject({ retiredKeyid: made.keyid, keyid: expect.any(String), listedUntil: expect.any(String) });
  expect(out.keyid).not.toBe(made.keyid);
  const { vault } = loadVault(config);
  // A process of the deployment: the new key first (it signs), the replaced one after it (listed only).
  const keys = await new AgentSigningKeys(store, vault, systemClock).keys();
  expect(keys.map((k) => k.keyid)).toEqual([out.keyid, made.keyid]);
  const kids = async () => (await fetchDirectory(agentUrl)).keys.map((k) => (k as { kid: string }).kid);
  expect(await kids()).toEqual([out.keyid, made.keyid]);
  expect(await verifyAgentRequest(signedRequest(keys[0]))).toEqual({ kind: 'verified', keyid: out.keyid, agent: agentUrl });
  // Signed just before the replacement: still verifies while the old key is listed.
  expect(await verifyAgentRequest(signedBeforeRotation)).toEqual({ kind: 'verified', keyid: made.keyid, agent: agentUrl });
  // The replaced key is sealed for its own row: no row holds it in clear, and its sealed value opens only there.
  await store.dataSource.query('PRAGMA wal_checkpoint(TRUNCATE)');
  expect(databaseText().includes(privateHalf(made))).toBe(false);

  // The signer a running process holds moves to the new key within the keys' minute (a fresh one here).
  const signed = new SignedAgent(
    { signsRequests: async () => true },
    () => new AgentSigningKeys(store, vault, systemClock).keys(),
    agentUrl,
  );
  const signer = (await signed.signerFor({ organizationId: 'org', environment: 'production' }, { signedAgent: true, source: 'built-in' }))!;
  const headers: Record<string, string | string[]> = { host: 'shop.example' };
  signer.sign('GET', new URL('https://shop.example/'), headers);
  expect(String(headers['signature-input'])).toContain(`keyid="${out.keyid}"`);

  // Past the overlap: only the new key is listed, and what the old one signed no longer verifies.
  const later = { now: () => new Date(Date.now() + 2 * 3600_000) };
  served = () => new AgentSigningKeys(store, vault, later).keys();
  expect(await kids()).toEqual([out.keyid]);
  expect((await verifyAgentRequest(signedBeforeRotation)).kind).toBe('invalid');
  // The next replacement deletes the rows whose overlap is over.
  await new AgentSigningKeys(store, vault, later).replace(3600_000);
  const purposes = ((await store.dataSource.query('SELECT purpose FROM deployment_keys')) as { purpose: string }[]).map((r) => r.purpose);
  expect(purposes).toHaveLength(2);
  served = () => new AgentSigningKeys(store, loadVault(config).vault, systemClock).keys();
});

test('a deployment that already signed with the derived key adopts it as its stored key: verifiers see no change', async () => {
  const other = await Store.open({ type: 'sqlite', file: path.join(dataDir, 'upgraded.sqlite') });
  try {
    await other.repos.connectionSettings.save({
      organizationId: 'org_signing',
      environment: 'production',
      healthCheckIntervalSeconds: null,
      healthCheckProviders: {},
      signedAgent: true,
      updatedAt: new Date(),
    });
    const { vault } = loadVault(config);
    const [adopted] = await new AgentSigningKeys(other, vault, systemClock).keys();
    expect(adopted.keyid).toBe((await agentKeyFromSeed(derivedAgentKeySeed(vault))).keyid);
    expect((await other.repos.deploymentKeys.find(AGENT_SIGNING_KEY_PURPOSE))!.sealedKey).toMatch(/^v1\./);
  } finally {
    await other.close();
  }
});

(postgresSkipped() ? test.skip : test)('on PostgreSQL too: two processes making the key at once end with one, sealed', async () => {
  const { Client } = await import('pg');
  const database = `agentlink_test_agentkey_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: process.env[PG_URL_ENV] });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}${pgTemplateClause()}`);
  const url = new URL(process.env[PG_URL_ENV]!);
  url.pathname = `/${database}`;
  const pg = await Store.open({ type: 'postgres', url: url.toString() });
  try {
    const { vault } = loadVault(config);
    const [[a], [b]] = await Promise.all([
      new AgentSigningKeys(pg, vault, systemClock).keys(),
      new AgentSigningKeys(pg, vault, systemClock).keys(),
    ]);
    expect(b.keyid).toBe(a.keyid);
    const rows = (await pg.dataSource.query('SELECT sealed_key FROM deployment_keys')) as { sealed_key: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0].sealed_key).not.toContain(privateHalf(a));
    expect(vault.keyIdOf(rows[0].sealed_key)).toBe(vault.primaryKeyId);
  } finally {
    await pg.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
});
