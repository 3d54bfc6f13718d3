import { newId } from '../../server/domain/ids';
import type { AgentRequestRecord } from '../../server/store';
import { pendingAgentRequest } from '../support/agent-request-record';
import { describeEachStore } from '../support/app';

const T0 = new Date(Date.UTC(2026, 10, 26, 9, 0, 0, 0));
const at = (s: number) => new Date(T0.getTime() + s * 1000);

function pending(overrides: Partial<AgentRequestRecord> = {}): AgentRequestRecord {
  return pendingAgentRequest({
    organizationId: 'org_claims',
    connectionId: 'conn_claims',
    providerId: 'provider_claims',
    createdAt: T0,
    ...overrides,
  });
}

/**
 * The claim is one statement that also notes the attempt and answers the row; the heartbeat one statement that also
 * answers a cancel (issue #26: fewer round trips per run on PostgreSQL). Both engines, the same rules as before.
 */
describeEachStore('agent request claims', (t) => {
  const repo = () => t.store.repos.agentRequests;

  it('claims a waiting request, notes the attempt and answers the row exactly as a read would', async () => {
    const r = pending();
    await repo().insert(r);
    const claimed = await repo().claimRecord(r.id, 'host:1:aaaa', at(1), at(11), 3);
    expect(claimed).toMatchObject({
      status: 'RUNNING',
      leaseOwner: 'host:1:aaaa',
      attempts: 1,
      startedAt: at(1),
      leaseExpiresAt: at(11),
      attemptLog: [{ attempt: 1, worker: 'host:1:aaaa', startedAt: at(1).toISOString() }],
    });
    expect(claimed).toStrictEqual(await repo().findById(r.id));
    // Held: nobody else gets it, and it is claimed once only.
    expect(await repo().claimRecord(r.id, 'host:2:bbbb', at(2), at(12), 3)).toBeNull();
    expect(await repo().claim(r.id, 'host:1:aaaa', at(2), at(12), 3)).toBe(false);
  });

  it('claims a request whose lease ran out as its next attempt, after the earlier ones in the log', async () => {
    const r = pending();
    await repo().insert(r);
    await repo().claimRecord(r.id, 'host:1:aaaa', at(1), at(11), 3);
    const again = await repo().claimRecord(r.id, 'host:2:bbbb', at(12), at(22), 3);
    expect(again?.attempts).toBe(2);
    expect(again?.attemptLog).toStrictEqual([
      { attempt: 1, worker: 'host:1:aaaa', startedAt: at(1).toISOString() },
      { attempt: 2, worker: 'host:2:bbbb', startedAt: at(12).toISOString() },
    ]);
    // Out of attempts: not claimed again, whoever asks.
    expect(await repo().claimRecord(r.id, 'host:3:cccc', at(23), at(33), 2)).toBeNull();
  });

  it('a released attempt is given back: its number comes again and replaces its entry', async () => {
    const r = pending();
    await repo().insert(r);
    const first = await repo().claimRecord(r.id, 'host:1:aaaa', at(1), at(11), 3);
    expect(await repo().noteAttempts(r.id, 'host:1:aaaa', [{ ...first!.attemptLog![0]!, ended: 'released' }])).toBe(true);
    expect(await repo().release(r.id, 'host:1:aaaa')).toBe(true);
    const second = await repo().claimRecord(r.id, 'host:2:bbbb', at(2), at(12), 3);
    expect(second?.attempts).toBe(1);
    expect(second?.attemptLog).toStrictEqual([{ attempt: 1, worker: 'host:2:bbbb', startedAt: at(2).toISOString() }]);
  });

  it('does not claim a canceled running request whose lease ran out, nor a finished one', async () => {
    const canceled = pending({ status: 'RUNNING', attempts: 1, leaseOwner: 'dead', leaseExpiresAt: at(0), cancelRequestedAt: at(0) });
    const done = pending({ status: 'COMPLETED', attempts: 1 });
    await repo().insert(canceled);
    await repo().insert(done);
    expect(await repo().claimRecord(canceled.id, 'host:1:aaaa', at(5), at(15), 3)).toBeNull();
    expect(await repo().claimRecord(done.id, 'host:1:aaaa', at(5), at(15), 3)).toBeNull();
  });

  it('the heartbeat extends the lease and says when a cancel was asked; null for a worker that lost it', async () => {
    const r = pending();
    await repo().insert(r);
    await repo().claimRecord(r.id, 'host:1:aaaa', at(1), at(11), 3);
    expect(await repo().heartbeat(r.id, 'host:1:aaaa', at(20))).toStrictEqual({ cancelRequested: false, userDecision: null });
    expect((await repo().findById(r.id))?.leaseExpiresAt).toStrictEqual(at(20));
    // Not expired at 15 s any more: nobody recovers it.
    expect(await repo().claimRecord(r.id, 'host:2:bbbb', at(15), at(25), 3)).toBeNull();
    expect(await repo().requestCancel(r.id, at(16))).toBe(true);
    expect(await repo().heartbeat(r.id, 'host:1:aaaa', at(26))).toStrictEqual({ cancelRequested: true, userDecision: null });
    expect(await repo().heartbeat(r.id, 'host:2:bbbb', at(26))).toBeNull();
    expect((await repo().findById(r.id))?.leaseExpiresAt).toStrictEqual(at(26));
  });

  it('stores one decision per pause, bound to the pause read; the heartbeat carries it until its worker settles it', async () => {
    const r = pending();
    await repo().insert(r);
    await repo().claimRecord(r.id, 'host:1:aaaa', at(1), at(11), 3);
    // Not paused: nothing to decide.
    expect(await repo().recordUserDecision(r.id, 'sealed-1', '{"d":1}')).toBe(false);
    expect(await repo().pauseForUser(r.id, 'host:1:aaaa', 'sealed-1')).toBe(true);
    // Read on another pause (an earlier or later one): refused.
    expect(await repo().recordUserDecision(r.id, 'sealed-0', '{"d":0}')).toBe(false);
    expect(await repo().recordUserDecision(r.id, 'sealed-1', '{"d":1}')).toBe(true);
    // At most one per pause: a second decision, same or other, is refused and the first kept.
    expect(await repo().recordUserDecision(r.id, 'sealed-1', '{"d":2}')).toBe(false);
    expect(await repo().userDecisionOutcome(r.id, '{"d":1}')).toBe('pending');
    expect(await repo().userDecisionOutcome(r.id, '{"d":2}')).toBe('not_applied');
    expect(await repo().heartbeat(r.id, 'host:1:aaaa', at(20))).toStrictEqual({ cancelRequested: false, userDecision: '{"d":1}' });
    expect(await repo().heartbeat(r.id, 'host:2:bbbb', at(20))).toBeNull();
    // Only the lease holder settles it, and only that very decision.
    expect(await repo().settleUserDecision(r.id, 'host:2:bbbb', '{"d":1}', true)).toBe(false);
    expect(await repo().settleUserDecision(r.id, 'host:1:aaaa', '{"d":2}', true)).toBe(false);
    expect(await repo().settleUserDecision(r.id, 'host:1:aaaa', '{"d":1}', true)).toBe(true);
    expect(await repo().userDecisionOutcome(r.id, '{"d":1}')).toBe('applied');
    // Settled: no longer news for the heartbeat, and no longer withdrawable.
    expect(await repo().heartbeat(r.id, 'host:1:aaaa', at(20))).toStrictEqual({ cancelRequested: false, userDecision: null });
    expect(await repo().withdrawUserDecision(r.id, '{"d":1}')).toBe(false);
    // The pause ends: the worker's word stays for the deciding process to read; the next pause starts with none.
    expect(await repo().resumeFromUser(r.id, 'host:1:aaaa')).toBe(true);
    expect(await repo().userDecisionOutcome(r.id, '{"d":1}')).toBe('applied');
    expect(await repo().pauseForUser(r.id, 'host:1:aaaa', 'sealed-2')).toBe(true);
    expect(await repo().recordUserDecision(r.id, 'sealed-1', '{"d":3}')).toBe(false);
    expect(await repo().heartbeat(r.id, 'host:1:aaaa', at(21))).toStrictEqual({ cancelRequested: false, userDecision: null });
    expect(await repo().recordUserDecision(r.id, 'sealed-2', '{"d":4}')).toBe(true);
    // A pause that ended another way (resumed before the worker read it): the decision stays until the heartbeat says
    // ignored, so its process answers "not applied" rather than taking the value's going for success.
    expect(await repo().resumeFromUser(r.id, 'host:1:aaaa')).toBe(true);
    expect(await repo().userDecisionOutcome(r.id, '{"d":4}')).toBe('pending');
    expect(await repo().heartbeat(r.id, 'host:1:aaaa', at(22))).toStrictEqual({ cancelRequested: false, userDecision: '{"d":4}' });
    expect(await repo().settleUserDecision(r.id, 'host:1:aaaa', '{"d":4}', false)).toBe(true);
    expect(await repo().userDecisionOutcome(r.id, '{"d":4}')).toBe('not_applied');
    // A decision its caller stopped waiting for is withdrawn once, and then never applies.
    expect(await repo().pauseForUser(r.id, 'host:1:aaaa', 'sealed-3')).toBe(true);
    expect(await repo().recordUserDecision(r.id, 'sealed-3', '{"d":5}')).toBe(true);
    expect(await repo().withdrawUserDecision(r.id, '{"d":5}')).toBe(true);
    expect(await repo().withdrawUserDecision(r.id, '{"d":5}')).toBe(false);
    expect(await repo().heartbeat(r.id, 'host:1:aaaa', at(23))).toStrictEqual({ cancelRequested: false, userDecision: null });
    expect(await repo().settleUserDecision(r.id, 'host:1:aaaa', '{"d":5}', true)).toBe(false);
    expect(await repo().userDecisionOutcome(r.id, '{"d":5}')).toBe('not_applied');
  });

  it('lists only running requests whose lease ran out and that may run again as expired leases (not waiting ones)', async () => {
    const org = `org_${newId('org')}`;
    const rows = {
      waiting: pending({ organizationId: org }),
      expired: pending({ organizationId: org, status: 'RUNNING', attempts: 1, leaseOwner: 'dead', leaseExpiresAt: at(0) }),
      live: pending({ organizationId: org, status: 'RUNNING', attempts: 1, leaseOwner: 'w', leaseExpiresAt: at(100) }),
      spent: pending({ organizationId: org, status: 'RUNNING', attempts: 3, leaseOwner: 'dead', leaseExpiresAt: at(0) }),
    };
    for (const r of Object.values(rows)) await repo().insert(r);
    const ids = await repo().expiredLeases(at(5), 3, 1000);
    expect(ids).toContain(rows.expired.id);
    for (const other of [rows.waiting, rows.live, rows.spent]) expect(ids).not.toContain(other.id);
  });
});
