import { randomBytes } from 'node:crypto';

import { ConnectionService, credentialsAad, type ProviderSession, sessionAad } from '../../server/domain/connections.service';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import type { LinkSessionRecord } from '../../server/store';
import { keysFromEnv } from '../../server/vault/keyring';
import { Vault } from '../../server/vault/vault';
import { describeEachStore } from '../support/app';

/**
 * The storage the connect flow relies on, on SQLite and PostgreSQL: link sessions and their conditional
 * transitions, the link token's opt-in column, update mode's re-authentication, and the batched,
 * compare-and-set re-sealing of a key rotation.
 */
describeEachStore('connect flow storage', (t) => {
  const caller = () => ({ organizationId: 'org_store_test', environment: 'sandbox' as const });

  it('link tokens keep rememberCredentials (default false)', async () => {
    const a = await t.services.linkTokens.create(caller(), { clientUserId: 'u1' });
    const b = await t.services.linkTokens.create(caller(), { clientUserId: 'u1', rememberCredentials: true });
    if (!a.ok || !b.ok) throw new Error('link token');
    expect((await t.store.repos.linkTokens.findByHash(a.value.record.tokenHash))?.rememberCredentials).toBe(false);
    expect((await t.store.repos.linkTokens.findByHash(b.value.record.tokenHash))?.rememberCredentials).toBe(true);
  });

  it('link sessions move on only from the states a step allows', async () => {
    const now = t.clock.now();
    const record: LinkSessionRecord = {
      id: `lses_${randomBytes(6).toString('hex')}`,
      linkTokenId: 'ltok_x',
      organizationId: 'org_store_test',
      environment: 'sandbox',
      clientUserId: 'u1',
      mode: 'create',
      providerId: null,
      connectionId: null,
      status: 'CONSENT',
      errorCode: null,
      errorMessage: null,
      attempts: 0,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    const repo = t.store.repos.linkSessions;
    await repo.insert(record);
    expect(await repo.transition(record.id, ['CONSENT'], { status: 'PROVIDER' })).toBe(true);
    expect(await repo.transition(record.id, ['CONSENT'], { status: 'CREDENTIALS' })).toBe(false);
    expect(
      await repo.transition(record.id, ['PROVIDER', 'CREDENTIALS'], { status: 'CREDENTIALS', providerId: ORBIT_PROVIDER_ID, attempts: 1 }),
    ).toBe(true);
    expect(await repo.findById(record.id)).toMatchObject({
      status: 'CREDENTIALS',
      providerId: ORBIT_PROVIDER_ID,
      attempts: 1,
      completedAt: null,
    });
    expect(await repo.listForLinkToken('ltok_x')).toHaveLength(1);
  });

  it('update mode re-authenticates a connection (ACTIVE again), but never a revoked one', async () => {
    const created = await t.services.connections.create(caller(), {
      providerId: ORBIT_PROVIDER_ID,
      clientUserId: 'u2',
      session: { cookies: [], origins: [] },
    });
    const id = created.connection.id;
    await t.store.repos.connections.setStatus(id, 'LOGIN_REQUIRED', t.clock.now());
    const again = await t.services.connections.reauthenticate(caller(), id, {
      session: { cookies: [{ name: 'n' }], origins: [] } as unknown as ProviderSession,
      credentials: { username: 'user_good', password: 'pass_good' },
    });
    if (!again.ok) throw new Error(again.error.message);
    expect(again.value.connection).toMatchObject({ id, status: 'ACTIVE' });
    expect(again.value.publicToken).toMatch(/^public-sandbox-/);
    expect(t.services.connections.openCredentials(again.value.connection)).toEqual({ username: 'user_good', password: 'pass_good' });
    await t.services.connections.revoke(caller(), id);
    const refused = await t.services.connections.reauthenticate(caller(), id, { session: {} as ProviderSession });
    expect(refused).toMatchObject({ ok: false, error: { code: 'CONNECTION_REVOKED' } });
  });

  it('resealAll re-seals in batches with the primary key, skips current values, and is idempotent', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await t.services.connections.create(caller(), {
        providerId: ORBIT_PROVIDER_ID,
        clientUserId: `reseal-${i}`,
        session: { cookies: [{ name: 'sid', value: `v${i}` }], origins: [] } as unknown as ProviderSession,
        ...(i % 2 === 0 ? { credentials: { username: `user${i}`, password: `pw${i}` } } : {}),
      });
      ids.push(c.connection.id);
    }
    // The app's key (AGENTLINK_ENCRYPTION_KEY of the test app) stays, behind a new primary key.
    const rotated = new Vault([{ id: 'knew', key: randomBytes(32) }, ...keysFromEnv(t.config.encryptionKey!)]);
    const service = new ConnectionService(t.store, t.clock, rotated, t.config);
    const first = await service.resealAll({ batchSize: 2 });
    expect(first.failed).toBe(0);
    expect(first.resealed).toBeGreaterThanOrEqual(8); // 5 sessions + 3 credentials (plus any earlier test's values)
    expect(await service.resealAll({ batchSize: 2 })).toMatchObject({ resealed: 0, current: first.scanned });
    for (const [i, id] of ids.entries()) {
      const c = (await t.store.repos.connections.findById(id))!;
      expect(rotated.keyIdOf(c.sealedSession!)).toBe('knew');
      expect(JSON.parse(rotated.open(c.sealedSession!, sessionAad(id))).cookies[0].value).toBe(`v${i}`);
      if (i % 2 === 0) expect(JSON.parse(rotated.open(c.sealedCredentials!, credentialsAad(id))).password).toBe(`pw${i}`);
    }
    expect(await service.sealedValuesByKey()).toEqual({ knew: first.scanned });
    // Compare-and-set: a value that changed meanwhile is not overwritten.
    const c0 = (await t.store.repos.connections.findById(ids[0]))!;
    expect(await t.store.repos.connections.replaceSealed(ids[0], 'sealedSession', 'not-the-current-value', 'x')).toBe(false);
    expect((await t.store.repos.connections.findById(ids[0]))!.sealedSession).toBe(c0.sealedSession);
  });
});
