import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { describeEachStore } from '../support/app';

/** The connection list the dashboard pages through: the caller's own connections only, newest first, opaque cursors. */
describeEachStore('connection list', (t) => {
  const mine = { organizationId: 'org_list_mine', environment: 'sandbox' as const };

  it('pages through the caller’s connections newest first, and nobody else’s', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await t.services.connections.create(mine, { providerId: ORBIT_PROVIDER_ID, clientUserId: `u${i}` })).connection.id);
      t.clock.advance(1000);
    }
    await t.services.connections.create(
      { ...mine, environment: 'production' },
      { providerId: ORBIT_PROVIDER_ID, clientUserId: 'other-env' },
    );
    await t.services.connections.create(
      { ...mine, organizationId: 'org_list_other' },
      { providerId: ORBIT_PROVIDER_ID, clientUserId: 'other-org' },
    );

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page = await t.services.connections.list(mine, { limit: 2, ...(cursor ? { cursor } : {}) });
      if (!page.ok) throw new Error(page.error.message);
      seen.push(...page.value.records.map((c) => c.id));
      if (!page.value.nextCursor) break;
      cursor = page.value.nextCursor;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('refuses a cursor it did not hand out', async () => {
    for (const cursor of ['nope', Buffer.from('123.areq_000000000000000000000000').toString('base64url')]) {
      const page = await t.services.connections.list(mine, { limit: 2, cursor });
      expect(page).toEqual({ ok: false, error: { code: 'INVALID_CURSOR', message: expect.any(String) } });
    }
  });
});
