import { randomUUID } from 'node:crypto';

import type { UserAction } from '../../contract/schemas';
import { pendingAgentRequest } from '../support/agent-request-record';
import { describeEachStore } from '../support/app';
import { createOrg, post, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * POST /api/agent-requests/:id/user-action answers with the run past the pause it decided. The worker holding the run
 * (here another process, played by this test on the row, as the heartbeat and the hand-off write it) says it applied
 * the decision before it writes what follows; those writes may reach the row late, and in any order. The answer must
 * not be read in between and say the run still waits on the write just decided.
 */
describeEachStore('the answer to an app decision on a run another process holds', (t) => {
  const OWNER = 'host:9:remote-worker';
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t);
  });

  const ask = (writeId: string): UserAction =>
    ({
      reason: 'APPROVAL',
      message: 'Approve the post',
      since: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
      linkToken: `link-sandbox-${writeId}-${Math.random().toString(36).slice(2)}`,
      url: 'http://localhost/link?token=x',
      write: { id: writeId, method: 'POST', url: 'http://orbit.sandbox.localhost/posts', fields: [], bodyBytes: 10 },
    }) as unknown as UserAction;

  /** A run paused on `writeId`, held by the remote worker. */
  async function pausedRun(writeId: string) {
    const r = pendingAgentRequest({
      organizationId: org.organizationId,
      environment: 'sandbox',
      providerId: randomUUID(),
      status: 'RUNNING',
      leaseOwner: OWNER,
      leaseExpiresAt: new Date(Date.now() + 60_000),
    });
    await t.store.repos.agentRequests.insert(r);
    await t.store.repos.agentRequests.pauseForUser(r.id, OWNER, t.services.userActions.seal(r.id, ask(writeId)));
    return r.id;
  }

  /**
   * The remote worker: settles the stored decision as applied as soon as it appears, then `after` ms later writes what
   * follows (`then`).
   */
  function remoteWorker(id: string, after: number, then: () => Promise<unknown>) {
    return new Promise<void>((resolve, reject) => {
      let busy = false; // one look at a time: two could both find the decision and both act on it
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void (async () => {
          const row = await t.store.repos.agentRequests.findById(id);
          const stored = row?.userDecision;
          if (!stored || stored.startsWith('applied:')) return void (busy = false);
          clearInterval(timer);
          await t.store.repos.agentRequests.settleUserDecision(id, OWNER, stored, true);
          setTimeout(() => then().then(() => resolve(), reject), after);
        })().catch(reject);
      }, 5);
    });
  }

  const decide = (id: string, decision: string, writeId: string) =>
    post(t, `/api/agent-requests/${id}/user-action`, sandboxHeaders(org), { decision, writeId });

  it('answers an approval with the run resumed, though the worker wrote it 300 ms after it applied the decision', async () => {
    const id = await pausedRun('hw_approve');
    const worker = remoteWorker(id, 300, () => t.store.repos.agentRequests.resumeFromUser(id, OWNER));
    const res = await decide(id, 'approve', 'hw_approve');
    await worker;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'RUNNING', userAction: null });
  });

  it('answers a denial with the run ended, though its final write came 300 ms later', async () => {
    const id = await pausedRun('hw_deny');
    const worker = remoteWorker(id, 300, () =>
      t.store.repos.agentRequests.finish(id, OWNER, {
        status: 'FAILED',
        result: null,
        error: { code: 'DENIED_BY_USER', message: 'denied' },
        warnings: [],
        completedAt: new Date(),
        executionTimeMs: 1,
        trace: [],
        method: null,
        modelUsage: null,
      }),
    );
    const res = await decide(id, 'deny', 'hw_deny');
    await worker;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'FAILED', error: { code: 'DENIED_BY_USER' } });
  });

  it('never answers with the pause it decided when the run resumed and paused again on another write', async () => {
    const id = await pausedRun('hw_first');
    const worker = remoteWorker(id, 100, async () => {
      await t.store.repos.agentRequests.resumeFromUser(id, OWNER);
      await t.store.repos.agentRequests.pauseForUser(id, OWNER, t.services.userActions.seal(id, ask('hw_second')));
    });
    const res = await decide(id, 'approve', 'hw_first');
    await worker;
    expect(res.status).toBe(200);
    // Read between the worker's two writes (resumed) or after them (paused on the next write): past the decided one.
    const answered = res.body as { status: string; userAction: { write: { id: string } } | null };
    expect(answered.status === 'RUNNING' ? 'resumed' : `${answered.status} ${answered.userAction?.write.id}`).toMatch(
      /^(resumed|NEEDS_USER hw_second)$/,
    );
  });

  it('answers an approval the worker applied though the run paused on its next write at once, before the answer looked', async () => {
    const id = await pausedRun('hw_quick');
    // Settled, resumed and paused again before the deciding process looks at the run: its look at the decision's
    // outcome is held until the worker's writes are in, so the order is the case's and not the machine's speed.
    const worker = remoteWorker(id, 0, async () => {
      await t.store.repos.agentRequests.resumeFromUser(id, OWNER);
      await t.store.repos.agentRequests.pauseForUser(id, OWNER, t.services.userActions.seal(id, ask('hw_next')));
    });
    const repo = t.store.repos.agentRequests;
    const outcome = repo.userDecisionOutcome.bind(repo);
    const held = jest.spyOn(repo, 'userDecisionOutcome').mockImplementation(async (rid, decision) => {
      const seen = await outcome(rid, decision);
      if (seen === 'applied') await worker;
      return seen;
    });
    let res;
    try {
      res = await decide(id, 'approve', 'hw_quick');
    } finally {
      held.mockRestore();
    }
    await worker;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'NEEDS_USER', userAction: { write: { id: 'hw_next' } } });
    // The next pause takes its own decision: the settled one of the last pause is no obstacle.
    const next = remoteWorker(id, 0, () => t.store.repos.agentRequests.resumeFromUser(id, OWNER));
    const second = await decide(id, 'deny', 'hw_next');
    await next;
    expect(second.status).toBe(200);
  });

  it('answers a decision no worker took with 409, and another organization with 404', async () => {
    const id = await pausedRun('hw_nobody');
    expect((await decide(id, 'approve', 'hw_other')).status).toBe(409);
    const other = await createOrg(t);
    const res = await post(t, `/api/agent-requests/${id}/user-action`, sandboxHeaders(other), {
      decision: 'approve',
      writeId: 'hw_nobody',
    });
    expect(res.status).toBe(404);
  });
});
