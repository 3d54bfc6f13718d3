import { describeEachStore } from '../support/app';
import {
  connectProduction,
  connectSandbox,
  createOrg,
  del,
  expectError,
  expectNoInternals,
  get,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

/** GET /api/connections: the caller's own connections, newest first, filtered by end user and status, keyset pages. */
describeEachStore('GET /api/connections', (t) => {
  let org: TestOrg;
  let other: TestOrg;
  /** Oldest first, as created. */
  const ids: { connectionId: string; clientUserId: string }[] = [];

  beforeAll(async () => {
    org = await createOrg(t, 'List Co');
    other = await createOrg(t, 'Other List Co');
    for (const clientUserId of ['alice', 'bob', 'alice', 'carol', 'alice']) {
      const { connectionId } = await connectSandbox(t, org, { clientUserId });
      ids.push({ connectionId, clientUserId });
      t.clock.advance(1000);
    }
    // Same end user id in another organization and in the other environment: never listed with these credentials.
    await connectSandbox(t, other, { clientUserId: 'alice' });
    await connectProduction(t, org, { clientUserId: 'alice' });
    // The middle alice is revoked.
    expect((await del(t, `/api/connections/${ids[2].connectionId}`, sandboxHeaders(org))).status).toBe(200);
  });

  const list = (query: string, o: TestOrg = org) => get(t, `/api/connections${query}`, sandboxHeaders(o));

  async function pageThrough(query: string, limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const sep = query ? '&' : '?';
      const res = await list(`${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.data.map((c: { connectionId: string }) => c.connectionId));
      cursor = res.body.nextCursor;
      if (!cursor) return seen;
    }
    throw new Error('did not reach the last page');
  }

  it('lists every connection of the caller, newest first, in the record shape of GET /api/connections/{id}', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.data.map((c: { connectionId: string }) => c.connectionId)).toEqual(ids.map((c) => c.connectionId).reverse());
    const one = await get(t, `/api/connections/${ids[0].connectionId}`, sandboxHeaders(org));
    expect(res.body.data[4]).toEqual(one.body);
    for (const c of res.body.data) expectNoInternals(c);
  });

  it('pages with limit and cursor without gaps or repeats, the last page saying nextCursor null', async () => {
    expect(await pageThrough('', 2)).toEqual(ids.map((c) => c.connectionId).reverse());
    expect(await pageThrough('', 1)).toHaveLength(5);
  });

  it('filters by clientUserId, by status, and by both', async () => {
    const alice = ids.filter((c) => c.clientUserId === 'alice').map((c) => c.connectionId);
    expect(await pageThrough('?clientUserId=alice', 2)).toEqual([...alice].reverse());
    const active = (await list('?status=ACTIVE')).body.data.map((c: { connectionId: string }) => c.connectionId);
    expect(active).toEqual(
      ids
        .filter((_, i) => i !== 2)
        .map((c) => c.connectionId)
        .reverse(),
    );
    const revoked = await list('?status=REVOKED&clientUserId=alice');
    expect(revoked.body.data.map((c: { connectionId: string; status: string }) => [c.connectionId, c.status])).toEqual([
      [ids[2].connectionId, 'REVOKED'],
    ]);
    expect((await list('?clientUserId=nobody')).body).toEqual({ data: [], nextCursor: null });
  });

  it("never shows another organization's or the other environment's connections", async () => {
    const others = await list('?clientUserId=alice', other);
    expect(others.body.data).toHaveLength(1);
    expect(ids.map((c) => c.connectionId)).not.toContain(others.body.data[0].connectionId);
    const prod = await get(t, '/api/connections?clientUserId=alice', {
      'x-client-id': org.clientId,
      'x-client-secret': org.productionSecret,
    });
    expect(prod.body.data).toHaveLength(1);
    expect(prod.body.data[0].environment).toBe('production');
    // A cursor of one organization's listing pages nothing of it for another: the keyset is applied inside the caller's rows.
    const first = await list('?limit=1');
    const foreign = await list(`?cursor=${encodeURIComponent(first.body.nextCursor)}`, other);
    expect(foreign.status).toBe(200);
    const mine = new Set(ids.map((c) => c.connectionId));
    expect(foreign.body.data.filter((c: { connectionId: string }) => mine.has(c.connectionId))).toEqual([]);
  });

  it('answers bad filters and cursors with 400 and a code', async () => {
    expectError(await list('?status=GONE'), 'INVALID_FIELD', { details: [{ path: 'query.status', message: expect.any(String) }] });
    expectError(await list('?limit=0'), 'INVALID_FIELD', { details: [{ path: 'query.limit', message: expect.any(String) }] });
    expectError(await list('?limit=101'), 'INVALID_FIELD', { details: expect.any(Array) });
    expectError(await list('?limit=abc'), 'INVALID_FIELD', { details: expect.any(Array) });
    expectError(await list('?clientUserId='), 'INVALID_FIELD', { details: expect.any(Array) });
    expectError(await list(`?clientUserId=${'u'.repeat(257)}`), 'INVALID_FIELD', { details: expect.any(Array) });
    expectError(await list('?sort=asc'), 'INVALID_FIELD', { details: expect.any(Array) });
    expectError(await list('?cursor=nope'), 'INVALID_CURSOR');
    // A cursor of another listing (agent requests) is refused rather than paging from a meaningless place.
    const areqCursor = Buffer.from('1767268800000.areq_000000000000000000000000').toString('base64url');
    expectError(await list(`?cursor=${areqCursor}`), 'INVALID_CURSOR');
    expectError(await list(`?cursor=${'c'.repeat(201)}`), 'INVALID_FIELD', { details: expect.any(Array) });
  });

  it('is protected by the client credentials', async () => {
    expectError(await get(t, '/api/connections'), 'MISSING_CLIENT_CREDENTIALS');
  });
});
