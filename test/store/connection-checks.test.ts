import { newId } from '../../server/domain/ids';
import type { ConnectionRecord, ConnectionStatus } from '../../server/store';
import { describeEachStore } from '../support/app';

/**
 * The connection row as the health checks' schedule and lock, on SQLite and PostgreSQL: every state change is one
 * conditional UPDATE whose affected-row count says who won (claims, releases, plans, update mode's two transitions),
 * and the organization's settings row is written whole, insert or replace.
 */
describeEachStore('connection health checks in the store', (t) => {
  const owner = { organizationId: 'org_checks_store', environment: 'sandbox' as const };
  const repo = () => t.store.repos.connections;
  const at = (seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000);

  async function insert(overrides: Partial<ConnectionRecord> = {}): Promise<ConnectionRecord> {
    const now = t.clock.now();
    const record: ConnectionRecord = {
      id: newId('conn'),
      ...owner,
      providerId: 'orbit',
      clientUserId: 'store-user',
      status: 'ACTIVE',
      sealedSession: 'sealed',
      sealedCredentials: null,
      createdAt: now,
      updatedAt: now,
      lastUsedAt: null,
      revokedAt: null,
      device: null,
      sealedExitProxy: null,
      exitProxyLabel: null,
      ...overrides,
    };
    return repo().insert(record);
  }

  it('lists due ACTIVE connections, longest due first, not those held by a live lease nor other statuses', async () => {
    const late = await insert({ nextCheckAt: at(-60) });
    const due = await insert({ nextCheckAt: at(-1) });
    await insert({ nextCheckAt: at(60) });
    await insert({ nextCheckAt: null });
    for (const status of ['LOGIN_REQUIRED', 'REVOKED'] as ConnectionStatus[]) await insert({ status, nextCheckAt: at(-120) });
    const held = await insert({ nextCheckAt: at(-90), checkOwner: 'p1', checkLeaseUntil: at(30) });
    const expired = await insert({ nextCheckAt: at(-80), checkOwner: 'p0', checkLeaseUntil: at(-5) });
    const ids = await repo().dueForCheck(t.clock.now(), 100);
    expect(ids.filter((id) => [late.id, due.id, held.id, expired.id].includes(id))).toEqual([expired.id, late.id, due.id]);
    expect(await repo().dueForCheck(t.clock.now(), 1)).toHaveLength(1);
  });

  it('a claim is won once; it honours status, due time, the last check and an unexpired lease; only the holder ends it', async () => {
    const c = await insert({ nextCheckAt: at(-1) });
    const now = t.clock.now();
    const claim = (owner: string, opts: Parameters<ReturnType<typeof repo>['claimCheck']>[4]) =>
      repo().claimCheck(c.id, owner, now, at(60), opts);
    expect(await claim('p1', { statuses: ['LOGIN_REQUIRED'] })).toBe(false);
    const results = await Promise.all(['p1', 'p2', 'p3'].map((o) => claim(o, { statuses: ['ACTIVE'], due: true })));
    expect(results.filter(Boolean)).toHaveLength(1);
    const holder = ['p1', 'p2', 'p3'][results.indexOf(true)]!;
    expect(await repo().finishCheck(c.id, 'someone-else', { checkedAt: now, outcome: 'SIGNED_IN', nextCheckAt: at(3600) })).toBe(false);
    expect(await repo().finishCheck(c.id, holder, { checkedAt: now, outcome: 'SIGNED_IN', nextCheckAt: at(3600) })).toBe(true);
    expect(await repo().findById(c.id)).toMatchObject({
      lastCheckedAt: now,
      lastCheckOutcome: 'SIGNED_IN',
      nextCheckAt: at(3600),
      checkOwner: null,
      checkLeaseUntil: null,
    });
    // Not due any more; and a check on request is refused while the last one is that recent.
    expect(await claim('p1', { statuses: ['ACTIVE'], due: true })).toBe(false);
    expect(await claim('p1', { statuses: ['ACTIVE'], checkedBefore: at(-10) })).toBe(false);
    t.clock.advance(11_000);
    expect(await repo().claimCheck(c.id, 'p1', t.clock.now(), at(60), { statuses: ['ACTIVE'], checkedBefore: at(-10) })).toBe(true);
    // A release without an outcome keeps the last one.
    expect(await repo().finishCheck(c.id, 'p1', { nextCheckAt: at(100) })).toBe(true);
    expect(await repo().findById(c.id)).toMatchObject({ lastCheckOutcome: 'SIGNED_IN', nextCheckAt: at(100) });
  });

  it('plans only unplanned ACTIVE connections, once; a schedule change forgets the plans of one owner only', async () => {
    const a = await insert();
    const b = await insert({ organizationId: 'org_someone_else' });
    await insert({ status: 'LOGIN_REQUIRED' });
    const unplanned = (await repo().unplanned(1000)).map((r) => r.id);
    expect(unplanned).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(await repo().planCheck(a.id, at(10))).toBe(true);
    expect(await repo().planCheck(a.id, at(20))).toBe(false);
    expect(await repo().planCheck(b.id, at(10))).toBe(true);
    await repo().unplanOwned(owner);
    expect((await repo().findById(a.id))!.nextCheckAt).toBeNull();
    expect((await repo().findById(b.id))!.nextCheckAt).toEqual(at(10));
  });

  it('update mode names the status it leaves (a recovery is LOGIN_REQUIRED → ACTIVE); never a revoked connection', async () => {
    const c = await insert({ status: 'LOGIN_REQUIRED', nextCheckAt: at(5) });
    expect(await repo().reauthenticate(c.id, 'ACTIVE', 'new', null, t.clock.now())).toBe(false);
    expect(await repo().reauthenticate(c.id, 'LOGIN_REQUIRED', 'new', null, t.clock.now())).toBe(true);
    expect(await repo().findById(c.id)).toMatchObject({ status: 'ACTIVE', sealedSession: 'new', nextCheckAt: null });
    expect(await repo().recover(c.id, 'newer', t.clock.now())).toBe(false);
    const revoked = await insert({ status: 'REVOKED' });
    for (const from of ['ACTIVE', 'LOGIN_REQUIRED'] as const)
      expect(await repo().reauthenticate(revoked.id, from, 'x', null, t.clock.now())).toBe(false);
    expect(await repo().recover(revoked.id, 'x', t.clock.now())).toBe(false);
  });

  it('settings: one row per organization and environment, written whole (insert, then replace)', async () => {
    const settings = t.store.repos.connectionSettings;
    expect(await settings.findOwned(owner)).toBeNull();
    await settings.save({ ...owner, healthCheckIntervalSeconds: 600, healthCheckProviders: { p: 0 }, updatedAt: t.clock.now() });
    await settings.save({ ...owner, healthCheckIntervalSeconds: null, healthCheckProviders: { q: 120 }, updatedAt: at(1) });
    expect(await settings.findOwned(owner)).toStrictEqual({
      ...owner,
      healthCheckIntervalSeconds: null,
      healthCheckProviders: { q: 120 },
      signedAgent: false,
      updatedAt: at(1),
    });
    expect(await settings.findOwned({ ...owner, environment: 'production' })).toBeNull();
  });
});
