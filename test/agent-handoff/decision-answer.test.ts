import type { Caller } from '../../server/domain/context';
import { pendingAgentRequest } from '../support/agent-request-record';
import { describeEachStore } from '../support/app';

/**
 * The answer to a decision on a paused run shows the run past that pause (agentRequests.pastPause). The worker applies
 * a decision before it writes what follows, and in another process the two reach the row in either order: the answer
 * must not read the row in between and say the run still waits on the write that was just decided.
 */
describeEachStore('the answer to a decision on a paused run', (t) => {
  const caller: Caller = { organizationId: 'org_decision_answer', environment: 'sandbox' };
  const paused = () =>
    pendingAgentRequest({
      ...caller,
      status: 'NEEDS_USER',
      sealedUserAction: 'sealed-pause-1',
      leaseOwner: 'host:1:w',
      leaseExpiresAt: new Date(Date.now() + 60_000),
    });

  it('waits for the worker to write the run resumed, however late that write comes within the bound', async () => {
    const r = paused();
    await t.store.repos.agentRequests.insert(r);
    // The worker's NEEDS_USER → RUNNING lands 150 ms after the decision was applied (another process, a busy machine).
    const resumed = new Promise<void>((resolve) =>
      setTimeout(() => void t.store.repos.agentRequests.resumeFromUser(r.id, 'host:1:w').then(() => resolve()), 150),
    );
    const answer = await t.services.agentRequests.pastPause(caller, r.id, 'sealed-pause-1', 5_000);
    await resumed;
    expect(answer).toMatchObject({ ok: true, value: { status: 'RUNNING', sealedUserAction: null } });
  });

  it('answers at once a run already past the pause: paused again on a later write, or ended', async () => {
    const again = paused();
    await t.store.repos.agentRequests.insert({ ...again, sealedUserAction: 'sealed-pause-2' });
    // A bound far past the test's own timeout: an answer that waited for this run would fail the test.
    const never = 10 * 60_000;
    expect(await t.services.agentRequests.pastPause(caller, again.id, 'sealed-pause-1', never)).toMatchObject({
      ok: true,
      value: { status: 'NEEDS_USER', sealedUserAction: 'sealed-pause-2' },
    });
    const ended = paused();
    await t.store.repos.agentRequests.insert({ ...ended, status: 'FAILED', sealedUserAction: null });
    expect(await t.services.agentRequests.pastPause(caller, ended.id, 'sealed-pause-1', never)).toMatchObject({
      ok: true,
      value: { status: 'FAILED' },
    });
  });

  it('answers the row as it is once the bound runs out, and another organization nothing', async () => {
    const r = paused();
    await t.store.repos.agentRequests.insert(r);
    expect(await t.services.agentRequests.pastPause(caller, r.id, 'sealed-pause-1', 100)).toMatchObject({
      ok: true,
      value: { status: 'NEEDS_USER', sealedUserAction: 'sealed-pause-1' },
    });
    expect(await t.services.agentRequests.pastPause({ ...caller, organizationId: 'org_other' }, r.id, 'sealed-pause-1', 100)).toMatchObject(
      {
        ok: false,
        error: { code: 'AGENT_REQUEST_NOT_FOUND' },
      },
    );
  });
});
