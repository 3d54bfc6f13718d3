import type { Playbook } from '../../server/agent/playbooks';
import type { WarmContext } from '../../server/agent/worker/warm-contexts';
import { loadConfig } from '../../server/config';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { awaitRequest, connectOrbit, createRequest, eventually, type LiveOrg, liveOrg, testPlaybook } from './agent-support';

/**
 * Warm browser contexts end to end (server/agent/worker/warm-contexts.ts): a live AgentLink with its embedded worker, real
 * Chromium, the Orbit sandbox. Whether a run got the previous run's context is read from the browser itself: the
 * first run leaves an entry in CacheStorage, which no provider session holds (cookies, localStorage, IndexedDB and
 * sessionStorage are what a session carries), so only the very same context can show it to the next run.
 */
jest.setTimeout(90_000);

const MARK = 'agentlink-warm-probe';

const markBrowser: Playbook<unknown>['run'] = async (ctx) => {
  await ctx.page.evaluate(async (name) => {
    const cache = await caches.open(name);
    await cache.put('/warm-probe', new Response('marked'));
  }, MARK);
  return { ok: true };
};

function registerProbes(live: LiveServer) {
  const pb = live.services.playbooks;
  pb.register(testPlaybook('test.mark', 'test: mark this browser', markBrowser));
  pb.register(
    testPlaybook('test.probe', 'test: is this browser marked', async (ctx) => ({
      ok: await ctx.page.evaluate((name) => caches.has(name), MARK),
    })),
  );
  pb.register(
    testPlaybook('test.mark-and-fail', 'test: mark this browser then fail', async (ctx) => {
      await markBrowser(ctx);
      throw new Error('the playbook fails after marking');
    }),
  );
}

const PLAYBOOK_OF: Record<string, string> = {
  'test: mark this browser': 'test.mark',
  'test: is this browser marked': 'test.probe',
  'test: mark this browser then fail': 'test.mark-and-fail',
};

/** A kept context rests a moment before the next run may take it (warm-contexts.ts REST_MS): each run starts past it. */
const REST = () => new Promise((r) => setTimeout(r, 600));

async function run(live: LiveServer, org: LiveOrg, accessToken: string, action: string, mode: 'read' | 'read_write' = 'read') {
  await REST();
  const requestId = await createRequest(live, org, {
    accessToken,
    action,
    playbook: PLAYBOOK_OF[action],
    mode,
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { ok: 'boolean' },
  });
  return awaitRequest(live, org, requestId);
}

describe('with warm contexts kept as the runs left them (AGENTLINK_WARM_CONTEXT_MODE=reuse)', () => {
  let live: LiveServer;
  let org: LiveOrg;

  beforeAll(async () => {
    live = await startLiveServer({ worker: true, env: { AGENTLINK_WARM_CONTEXT_SECONDS: '30', AGENTLINK_WARM_CONTEXT_MODE: 'reuse' } });
    registerProbes(live);
    org = await liveOrg(live);
  });

  afterAll(async () => {
    await live?.close();
  });

  const marked = async (accessToken: string, mode: 'read' | 'read_write' = 'read') => {
    const record = await run(live, org, accessToken, 'test: is this browser marked', mode);
    expect(record).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK' });
    return record.result.ok as boolean;
  };

  it('the next run of the same connection gets the browser the last one left: its context, not a copy of the session', async () => {
    const conn = await connectOrbit(live, org, 'warm-same');
    expect(await marked(conn.accessToken)).toBe(false);
    expect(await run(live, org, conn.accessToken, 'test: mark this browser')).toMatchObject({ status: 'COMPLETED' });
    expect(await marked(conn.accessToken)).toBe(true);
    expect(await marked(conn.accessToken)).toBe(true);
  });

  it('a session changed outside the run (a re-link, a health check, another process) is never overridden by an older context', async () => {
    const conn = await connectOrbit(live, org, 'warm-changed');
    await run(live, org, conn.accessToken, 'test: mark this browser');
    expect(await marked(conn.accessToken)).toBe(true);
    const { connections } = live.services;
    const record = await live.services.store.repos.connections.findById(conn.connectionId);
    const session = connections.openSession(record!)!;
    const origin = new URL(live.siteUrl('orbit', '/')).origin;
    const renewed = { ...session, origins: [...session.origins, { origin, localStorage: [{ name: 'renewed-elsewhere', value: '1' }] }] };
    expect(await connections.saveSession(conn.connectionId, renewed)).toBe(true);
    // A fresh context, loaded with the stored session: the mark is gone, the change made elsewhere is there.
    const probe = await run(live, org, conn.accessToken, 'test: is this browser marked');
    expect(probe.result.ok).toBe(false);
    const after = connections.openSession((await live.services.store.repos.connections.findById(conn.connectionId))!)!;
    expect(JSON.stringify(after.origins)).toContain('renewed-elsewhere');
  });

  it("a revoked connection's kept contexts are closed at once, not at the end of their idle time", async () => {
    const conn = await connectOrbit(live, org, 'warm-revoked');
    const { warmContexts } = live.services;
    await run(live, org, conn.accessToken, 'test: mark this browser');
    expect(warmContexts.heldFor(conn.connectionId)).toBe(1);
    const res = await fetch(`${live.baseUrl}/api/connections/${conn.connectionId}`, { method: 'DELETE', headers: org.headers });
    expect(res.status).toBe(200);
    expect(warmContexts.heldFor(conn.connectionId)).toBe(0);
  });

  it('the context of a run that failed is closed, never handed to the next run', async () => {
    const conn = await connectOrbit(live, org, 'warm-failed');
    const failed = await run(live, org, conn.accessToken, 'test: mark this browser then fail');
    expect(failed.status).toBe('FAILED');
    expect(await marked(conn.accessToken)).toBe(false);
  });

  it('runs of another connection, or of the same one in another mode, never share a context', async () => {
    const a = await connectOrbit(live, org, 'warm-a');
    const b = await connectOrbit(live, org, 'warm-b');
    await run(live, org, a.accessToken, 'test: mark this browser', 'read_write');
    expect(await marked(b.accessToken, 'read_write')).toBe(false);
    expect(await marked(a.accessToken, 'read')).toBe(false);
    expect(await marked(a.accessToken, 'read_write')).toBe(true);
  });
});

describe('warm contexts expire and can be turned off', () => {
  it('an unused context is closed after AGENTLINK_WARM_CONTEXT_SECONDS', async () => {
    const live = await startLiveServer({
      worker: true,
      // 4 s: the next run must take the kept context between its rest (0.5 s) and its end, with the request's create,
      // claim and session load between them: a second's window was too short for a loaded machine.
      env: { AGENTLINK_WARM_CONTEXT_SECONDS: '4', AGENTLINK_WARM_CONTEXT_MODE: 'reuse' },
    });
    try {
      registerProbes(live);
      const org = await liveOrg(live);
      const conn = await connectOrbit(live, org, 'warm-expiring');
      await run(live, org, conn.accessToken, 'test: mark this browser');
      expect((await run(live, org, conn.accessToken, 'test: is this browser marked')).result.ok).toBe(true);
      // Closed by its idle timer, not by anything the test does: then the next run opens its own.
      await eventually(
        async () => live.services.warmContexts.heldFor(conn.connectionId),
        (n) => n === 0,
        30_000,
      );
      expect((await run(live, org, conn.accessToken, 'test: is this browser marked')).result.ok).toBe(false);
    } finally {
      await live.close();
    }
  });

  it('off with AGENTLINK_WARM_CONTEXT_SECONDS=0: every run opens its own context, and none is kept', async () => {
    const live = await startLiveServer({ worker: true, env: { AGENTLINK_WARM_CONTEXT_SECONDS: '0' } });
    try {
      registerProbes(live);
      const org = await liveOrg(live);
      const conn = await connectOrbit(live, org, 'warm-off');
      await run(live, org, conn.accessToken, 'test: mark this browser');
      expect((await run(live, org, conn.accessToken, 'test: is this browser marked')).result.ok).toBe(false);
      expect(live.services.warmContexts.heldFor(conn.connectionId)).toBe(0);
    } finally {
      await live.close();
    }
  });
});

describe("by default (fresh mode): a context prepared for the next run, which no run's page was ever in", () => {
  it('is what a deployment gets when it sets nothing', () => {
    expect(loadConfig({}).worker.warmContexts).toEqual({ idleSeconds: 30, max: 8, mode: 'fresh' });
  });

  it("the next run takes the context opened for it as the last one ended, and nothing of the last run's browser is in it", async () => {
    // The test servers keep none unless asked (live-server.ts): asked here as a deployment gets it by default.
    const live = await startLiveServer({ worker: true, env: { AGENTLINK_WARM_CONTEXT_SECONDS: '30' } });
    try {
      registerProbes(live);
      const org = await liveOrg(live);
      const conn = await connectOrbit(live, org, 'warm-fresh');
      await run(live, org, conn.accessToken, 'test: mark this browser');
      // Prepared beside the answer: held by no run, for this connection.
      await eventually(
        async () => live.services.warmContexts.heldFor(conn.connectionId),
        (n) => n === 1,
      );
      const pool = live.services.warmContexts;
      const taken: (WarmContext | null)[] = [];
      const take = pool.take.bind(pool);
      pool.take = (key, digest) => {
        const warm = take(key, digest);
        taken.push(warm);
        return warm;
      };
      const probe = await run(live, org, conn.accessToken, 'test: is this browser marked');
      expect(probe.result.ok).toBe(false);
      // The run took the prepared context, with the blank tab it was prepared with; another is prepared for the next.
      expect(taken).toEqual([expect.objectContaining({ connectionId: conn.connectionId, page: expect.anything() })]);
      await eventually(
        async () => live.services.warmContexts.heldFor(conn.connectionId),
        (n) => n === 1,
      );
    } finally {
      await live.close();
    }
  });
});
