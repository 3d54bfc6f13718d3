import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { verifyWebhook } from '@agentlink/client/webhooks';

import { type AppConfig, loadConfig } from '../../server/config';
import { systemClock } from '../../server/domain/clock';
import { WebhookDispatcher } from '../../server/domain/webhooks/dispatcher';
import { webhookSecretAad } from '../../server/domain/webhooks/signature';
import { main } from '../../server/main';
import { buildServices } from '../../server/services';
import { Store } from '../../server/store';
import { loadVault, readKeys } from '../../server/vault/keyring';
import { Vault, VaultError } from '../../server/vault/vault';

/**
 * `vault rotate-key` / `reseal` / `status` cover webhook signing secrets: after a rotation the endpoint's secret is
 * sealed with the new key (the old key alone no longer opens it), and a delivery signed with it still verifies.
 */
jest.setTimeout(60_000);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-whvault-'));
const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', AGENTLINK_DATA_DIR: dataDir };
let config: AppConfig;
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let receiver: http.Server;

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

beforeAll(async () => {
  config = loadConfig(env);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('re-seals webhook signing secrets under the new key, counts them in vault status, and deliveries still verify', async () => {
  // An endpoint registered under the first key.
  let store = await Store.open(config.database);
  let webhookId: string;
  let secret: string;
  let before: string;
  let organizationId: string;
  try {
    const services = buildServices({ config, store, clock: systemClock, vault: loadVault(config).vault });
    const org = await services.organizations.create('Webhook Vault Org');
    organizationId = org.organization.id;
    const caller = { organizationId, environment: 'sandbox' as const };
    const created = await services.webhookEndpoints.create(caller, {
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      events: ['CONNECTION.CREATED'],
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    ({ secret } = created.value);
    webhookId = created.value.endpoint.id;
    before = created.value.endpoint.sealedSecret;
  } finally {
    await store.close();
  }
  const [oldKey] = readKeys(dataDir);

  const rotated = await cli(['vault', 'rotate-key', '--json']);
  expect(rotated).toMatchObject({ scanned: 1, resealed: 1, failed: 0, skipped: 0, byKey: { [rotated.newKeyId as string]: 1 } });
  expect(await cli(['vault', 'status', '--json'])).toMatchObject({ byKey: { [rotated.newKeyId as string]: 1 } });
  expect(await cli(['vault', 'reseal', '--json'])).toMatchObject({ scanned: 1, resealed: 0, current: 1 });

  store = await Store.open(config.database);
  try {
    const after = (await store.repos.webhookEndpoints.findById(webhookId))!.sealedSecret;
    expect(after).not.toBe(before);
    const vault = loadVault(config).vault;
    expect(vault.keyIdOf(after)).toBe(rotated.newKeyId);
    expect(vault.open(after, webhookSecretAad(webhookId))).toBe(secret);
    expect(() => new Vault([oldKey]).open(after, webhookSecretAad(webhookId))).toThrow(VaultError);

    // A delivery signed with the re-sealed secret verifies with the secret the customer was given.
    const services = buildServices({ config, store, clock: systemClock, vault });
    await services.webhookEvents.emit({ organizationId, environment: 'sandbox' }, 'CONNECTION.CREATED', { connectionId: 'conn_test' });
    const dispatcher = new WebhookDispatcher({
      store,
      clock: systemClock,
      endpoints: services.webhookEndpoints,
      random: () => 0,
      timeoutMs: 10_000,
    });
    expect(await dispatcher.tick()).toBe(1);
    expect(received).toHaveLength(1);
    const event = await verifyWebhook({ payload: received[0].body, header: received[0].headers['agentlink-signature'], secret });
    expect(event.type).toBe('CONNECTION.CREATED');
    await services.loginEngine.close();
    await services.browsers.close();
  } finally {
    await store.close();
  }
});
