import { newId } from '../../server/domain/ids';
import type { SandboxSessionRecord } from '../../server/store';
import { describeEachStore } from '../support/app';

const T0 = new Date(Date.UTC(2026, 10, 26, 9, 0, 0, 0));

/**
 * Every page of a sandbox site looks its session up and makes sure the tenant's copy of the site is seeded: the seed
 * claim is a quiet no when seeded (no failed INSERT), and the session lookup answers whether it is, in one query.
 */
describeEachStore('sandbox seed markers', (t) => {
  const repos = () => t.store.repos;

  it('claims a seed once; asking again is a quiet no, and a reset frees it', async () => {
    const tenant = newId('org');
    expect(await repos().sandboxTenants.claimSeed(tenant, 'orbit', T0)).toBe(true);
    expect(await repos().sandboxTenants.claimSeed(tenant, 'orbit', T0)).toBe(false);
    expect(await repos().sandboxTenants.claimSeed(tenant, 'forgehub', T0)).toBe(true);
    await repos().sandboxTenants.delete(tenant, 'orbit');
    expect(await repos().sandboxTenants.claimSeed(tenant, 'orbit', T0)).toBe(true);
  });

  it("reads a session with whether its tenant's site is seeded, the session exactly as a plain read", async () => {
    const tenant = newId('org');
    const session: SandboxSessionRecord = {
      id: newId('lses'),
      tenant,
      site: 'orbit',
      username: 'user_good',
      csrfToken: 'csrf-token',
      createdAt: T0,
      expiresAt: new Date(T0.getTime() + 3_600_000),
    };
    await repos().sandboxSessions.insert(session);
    expect(await repos().sandboxSessions.findWithSeed(newId('lses'))).toBeNull();
    expect(await repos().sandboxSessions.findWithSeed(session.id)).toStrictEqual({ session, seeded: false });
    // Another site's marker, or another tenant's, is not this one.
    await repos().sandboxTenants.claimSeed(tenant, 'forgehub', T0);
    await repos().sandboxTenants.claimSeed(newId('org'), 'orbit', T0);
    expect((await repos().sandboxSessions.findWithSeed(session.id))?.seeded).toBe(false);
    await repos().sandboxTenants.claimSeed(tenant, 'orbit', T0);
    const found = await repos().sandboxSessions.findWithSeed(session.id);
    expect(found).toStrictEqual({ session: await repos().sandboxSessions.findById(session.id), seeded: true });
    await repos().sandboxTenants.delete(tenant, 'orbit');
    expect((await repos().sandboxSessions.findWithSeed(session.id))?.seeded).toBe(false);
  });
});
