import { describeEachStore, pgQuery } from '../support/app';
import {
  agentRequestBody,
  type Connected,
  connectSandbox,
  createOrg,
  expectError,
  get,
  post,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

/**
 * The queue side of the agent request API without a worker: cancel, list with cursor pagination and status
 * filter, waitMs. On PostgreSQL, accepting a request also sends its pg-boss job.
 */
jest.setTimeout(30_000);

describeEachStore('agent request queue API', (t) => {
  let org: TestOrg;
  let conn: Connected;
  beforeAll(async () => {
    org = await createOrg(t, 'Queue Co');
    conn = await connectSandbox(t, org, { clientUserId: 'queue-user' });
  });

  const create = async (overrides: Record<string, unknown> = {}) => {
    const res = await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, overrides));
    expect(res.status).toBe(202);
    return res.body.requestId as string;
  };

  it('a new record has an empty trace, no method and no model usage', async () => {
    const id = await create();
    const res = await get(t, `/api/agent-requests/${id}`, sandboxHeaders(org));
    expect(res.body).toMatchObject({ status: 'PENDING', trace: [], method: null, modelUsage: null });
  });

  it('cancels a PENDING request at once; a second cancel is 409 AGENT_REQUEST_ALREADY_FINISHED', async () => {
    const id = await create();
    const res = await post(t, `/api/agent-requests/${id}/cancel`, sandboxHeaders(org));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      requestId: id,
      status: 'CANCELED',
      error: { code: 'CANCELED', message: expect.any(String) },
      completedAt: t.clock.now().toISOString(),
    });
    expectError(await post(t, `/api/agent-requests/${id}/cancel`, sandboxHeaders(org)), 'AGENT_REQUEST_ALREADY_FINISHED', {
      details: { status: 'CANCELED' },
    });
  });

  it('refuses to cancel a request that is not yours (404)', async () => {
    const id = await create();
    const other = await createOrg(t, 'Other Co');
    expectError(await post(t, `/api/agent-requests/${id}/cancel`, sandboxHeaders(other)), 'AGENT_REQUEST_NOT_FOUND');
    expectError(await post(t, '/api/agent-requests/areq_000000000000000000000000/cancel', sandboxHeaders(org)), 'AGENT_REQUEST_NOT_FOUND');
  });

  it('flags a RUNNING request for its worker instead of ending it', async () => {
    const id = await create();
    const now = t.clock.now();
    expect(await t.store.repos.agentRequests.claim(id, 'test-worker', now, new Date(now.getTime() + 60_000), 2)).toBe(true);
    const res = await post(t, `/api/agent-requests/${id}/cancel`, sandboxHeaders(org));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('RUNNING');
    // The worker's next heartbeat hears of it.
    expect(await t.store.repos.agentRequests.heartbeat(id, 'test-worker', new Date(now.getTime() + 60_000))).toStrictEqual({
      cancelRequested: true,
      userDecision: null,
    });
    // A claim by another worker is refused while the lease holds.
    expect(await t.store.repos.agentRequests.claim(id, 'other-worker', now, new Date(now.getTime() + 60_000), 2)).toBe(false);
  });

  it('lists newest first with cursor pagination, and filters by status', async () => {
    const fresh = await createOrg(t, 'List Co');
    const c = await connectSandbox(t, fresh, { clientUserId: 'list-user' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(i % 2 === 0 ? 1000 : 0); // some share a createdAt: the id breaks the tie
      const res = await post(t, '/api/agent-requests', sandboxHeaders(fresh), agentRequestBody(t, c.accessToken));
      ids.push(res.body.requestId);
    }
    await post(t, `/api/agent-requests/${ids[1]}/cancel`, sandboxHeaders(fresh));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(t, `/api/agent-requests?limit=2${cursor ? `&cursor=${cursor}` : ''}`, sandboxHeaders(fresh));
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((r: { requestId: string }) => r.requestId));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
    expect(new Set(seen)).toEqual(new Set(ids));
    const all = await get(t, '/api/agent-requests', sandboxHeaders(fresh));
    const times = all.body.data.map((r: { createdAt: string }) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.body.nextCursor).toBeNull();

    const canceled = await get(t, '/api/agent-requests?status=CANCELED', sandboxHeaders(fresh));
    expect(canceled.body.data.map((r: { requestId: string }) => r.requestId)).toEqual([ids[1]]);
    const pending = await get(t, '/api/agent-requests?status=PENDING&limit=100', sandboxHeaders(fresh));
    expect(pending.body.data).toHaveLength(4);

    // Another organization sees none of them.
    const other = await get(t, '/api/agent-requests', sandboxHeaders(await createOrg(t, 'Nosy Co')));
    expect(other.body).toEqual({ data: [], nextCursor: null });
  });

  it('refuses bad list queries', async () => {
    expectError(await get(t, '/api/agent-requests?cursor=nonsense', sandboxHeaders(org)), 'INVALID_CURSOR');
    expectError(await get(t, '/api/agent-requests?limit=0', sandboxHeaders(org)), 'INVALID_FIELD', {
      message: /^query\.limit: /,
      details: expect.any(Array),
    });
    expectError(await get(t, '/api/agent-requests?status=DONE', sandboxHeaders(org)), 'INVALID_FIELD', {
      message: /^query\.status: /,
      details: expect.any(Array),
    });
  });

  it('waitMs holds the answer until the wait runs out, and returns early when the request ends', async () => {
    const id = await create();
    const t0 = Date.now();
    const held = await get(t, `/api/agent-requests/${id}?waitMs=400`, sandboxHeaders(org));
    expect(held.body.status).toBe('PENDING');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);

    const t1 = Date.now();
    // A long wait: only returning well before it ran out shows the end was seen (no bound on the machine's speed).
    const waiting = get(t, `/api/agent-requests/${id}?waitMs=25000`, sandboxHeaders(org));
    setTimeout(() => void post(t, `/api/agent-requests/${id}/cancel`, sandboxHeaders(org)).then(() => undefined), 200);
    const ended = await waiting;
    expect(ended.body.status).toBe('CANCELED');
    expect(Date.now() - t1).toBeLessThan(20_000);
    expectError(await get(t, `/api/agent-requests/${id}?waitMs=30001`, sandboxHeaders(org)), 'INVALID_FIELD', {
      message: /^query\.waitMs: /,
      details: expect.any(Array),
    });
  });

  it('waitMs also sees a request another process ended (no event here): its status is polled, within about a second', async () => {
    const id = await create();
    const t0 = Date.now();
    // A long wait, ended by the poll well before it runs out (how soon is bench material, not a test's bound).
    const waiting = get(t, `/api/agent-requests/${id}?waitMs=25000`, sandboxHeaders(org));
    // Another process's worker writes the end straight to the row; this process is told nothing.
    setTimeout(() => {
      const sql =
        t.dialect === 'postgres'
          ? "UPDATE agent_requests SET status = 'FAILED' WHERE id = $1"
          : "UPDATE agent_requests SET status = 'FAILED' WHERE id = ?";
      void t.store.dataSource.query(sql, [id]);
    }, 300);
    const ended = await waiting;
    expect(ended.body.status).toBe('FAILED');
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it('readers still waiting after their own polls are watched together, and each sees the end another process wrote', async () => {
    const ids = await Promise.all([create(), create(), create()]);
    const t0 = Date.now();
    // A long wait, as above: only returning well before it ran out shows the shared watch saw the end (how soon after
    // the write is bench material: the watch reads once a second).
    const waiting = ids.map((id) => get(t, `/api/agent-requests/${id}?waitMs=25000`, sandboxHeaders(org)));
    // Written after every reader's own polls (200, 400, 800 ms): only the shared watch can see it; this process is told nothing.
    const endAt = 2_600;
    setTimeout(() => {
      const sql =
        t.dialect === 'postgres'
          ? "UPDATE agent_requests SET status = 'FAILED' WHERE id = $1 OR id = $2"
          : "UPDATE agent_requests SET status = 'FAILED' WHERE id = ? OR id = ?";
      void t.store.dataSource.query(sql, [ids[0], ids[2]]);
    }, endAt);
    const [first, third] = await Promise.all([waiting[0]!, waiting[2]!]);
    expect(first.body.status).toBe('FAILED');
    expect(third.body.status).toBe('FAILED');
    const seen = Date.now() - t0;
    expect(seen).toBeGreaterThanOrEqual(endAt);
    expect(seen).toBeLessThan(20_000);
    // The reader of the request nobody ended still waits; a cancel (an event of this process) ends it at once.
    await post(t, `/api/agent-requests/${ids[1]}/cancel`, sandboxHeaders(org));
    expect((await waiting[1]!).body.status).toBe('CANCELED');
  });

  it('on PostgreSQL, each accepted request has its pg-boss job', async () => {
    if (t.dialect !== 'postgres') return;
    const id = await create();
    const jobs = await pgQuery<{ n: string }>(
      t,
      "SELECT COUNT(*) AS n FROM agentlink_pgboss.job WHERE name = 'agent-requests' AND singleton_key = $1",
      [id],
    );
    expect(Number(jobs[0].n)).toBe(1);
  });
});
