import type { UserAction } from '../../contract/schemas';
import { askKey, parseDecision } from '../../server/agent/handoff/stored-decision';
import { UserActionLinks } from '../../server/connect/user-action-link';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { insertPausedRequest, PAUSED_OWNER } from '../support/paused-request';
import { widgetFor } from './handoff-support';

/**
 * The widget's answer reaching a process that does not hold the run (its call could not be relayed to the worker): it is
 * stored on the request's row, bound to the pause, and the worker (played here with the repository, as worker.ts calls
 * it) reads it on its heartbeat. The widget's answer waits for that; a second answer on the same pause is over.
 */
jest.setTimeout(60_000);

let live: LiveServer;

beforeAll(async () => {
  live = await startLiveServer();
});

afterAll(async () => {
  await live?.close();
});

/** A run paused for an approval as its worker pauses it (a real link token for this pause), held by no process here. */
async function pausedForApproval(name: string) {
  const org = await live.services.organizations.create(name);
  const repo = live.services.store.repos.agentRequests;
  const id = await insertPausedRequest(live.services, org.organization.id, () => ({}) as UserAction);
  const expiresAt = new Date(Date.now() + 5 * 60_000);
  const { linkToken, url } = await live.services.handoffs.desk.linkFor((await repo.findById(id))!, expiresAt);
  const ask: UserAction = {
    reason: 'APPROVAL',
    message: 'Approve this change on Orbit before it is sent?',
    since: new Date().toISOString(),
    expiresAt: expiresAt.toISOString(),
    linkToken,
    url,
    write: { id: 'hw_stored-decision01', method: 'POST', url: live.siteUrl('orbit', '/api/posts'), fields: [], bodyBytes: 10 },
  };
  expect(await repo.resumeFromUser(id, PAUSED_OWNER)).toBe(true);
  expect(await repo.pauseForUser(id, PAUSED_OWNER, live.services.userActions.seal(id, ask))).toBe(true);
  expect(live.services.handoffs.registry.find(id)).toBeNull();
  return { org, repo, id, ask, linkToken };
}

/** The holding worker's heartbeat (worker.ts), played with the repository: `onDecision` says whether it applied it. */
async function workerReads(id: string, onDecision: (raw: string) => Promise<boolean>): Promise<string> {
  const repo = live.services.store.repos.agentRequests;
  for (let i = 0; i < 200; i++) {
    const beat = await repo.heartbeat(id, PAUSED_OWNER, new Date(Date.now() + 60_000));
    if (beat?.userDecision) {
      const applied = await onDecision(beat.userDecision);
      expect(await repo.settleUserDecision(id, PAUSED_OWNER, beat.userDecision, applied)).toBe(true);
      return beat.userDecision;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no decision stored');
}

it("the widget's Approve on another process is stored for the worker, read on its heartbeat, and applied once", async () => {
  const { repo, id, ask, linkToken } = await pausedForApproval('Stored Decisions');
  const widget = widgetFor(live, linkToken);
  const started = await widget.start();
  expect(started.body).toMatchObject({ mode: 'user_action', userAction: { state: 'waiting', reason: 'APPROVAL' } });
  // An answer the ask does not take is refused, and stores nothing.
  expect((await widget.answer('done')).body.error).toMatchObject({ code: 'LINK_STEP_NOT_ALLOWED' });
  expect((await repo.findById(id))?.userDecision).toBeNull();

  // The worker: its heartbeat carries the stored decision; applying it ends the pause, and it says so on the row.
  const worker = workerReads(id, async (raw) => {
    expect(parseDecision(raw)).toEqual({ decision: 'approve', ask: askKey(ask), writeId: null });
    return repo.resumeFromUser(id, PAUSED_OWNER);
  });
  const approved = await widget.answer('approve');
  const raw = await worker;
  expect(approved.status).toBe(200);
  expect(await repo.findById(id)).toMatchObject({ status: 'RUNNING', userDecision: `applied:${raw}`, sealedUserAction: null });
  // The person did their part: this link session is over, and another answer stores nothing.
  expect((await widget.answer('deny')).body.error).toMatchObject({ code: 'LINK_STEP_NOT_ALLOWED' });
  expect((await repo.findById(id))?.userDecision).toBe(`applied:${raw}`);
});

it('a stored decision whose pause ended another way before its worker read it is answered as over, never as taken', async () => {
  const { repo, id, linkToken } = await pausedForApproval('Stored Decisions Raced');
  const widget = widgetFor(live, linkToken);
  await widget.start();
  // The worker's own process decided first (its widget, or the app): the pause ends there; the stored one comes after.
  const worker = workerReads(id, async () => {
    expect(await repo.resumeFromUser(id, PAUSED_OWNER)).toBe(true);
    return false;
  });
  const answered = await widget.answer('deny');
  await worker;
  expect(answered.body.error).toMatchObject({ code: 'USER_ACTION_OVER' });
  expect((await repo.findById(id))?.userDecision).toMatch(/^ignored:/);
});

it('a decision no worker takes in time is withdrawn: the answer is no, and it never applies later', async () => {
  const { org, repo, id } = await pausedForApproval('Stored Decisions Unread');
  const links = new UserActionLinks(
    live.services.handoffs.registry,
    {
      find: async (requestId) => {
        const r = await repo.findById(requestId);
        return r && { ...r, userAction: live.services.userActions.open(r), sealedUserAction: r.sealedUserAction };
      },
      recordDecision: (requestId, sealed, decision) => repo.recordUserDecision(requestId, sealed, decision),
      decisionOutcome: (requestId, decision) => repo.userDecisionOutcome(requestId, decision),
      withdrawDecision: (requestId, decision) => repo.withdrawUserDecision(requestId, decision),
    },
    300,
  );
  const owner = { organizationId: org.organization.id, environment: 'sandbox' };
  expect(await links.decideHeldWrite(owner, id, 'approve')).toBeNull();
  // Withdrawn: the worker's next heartbeat carries nothing, and the pause takes a decision again.
  expect(await repo.heartbeat(id, PAUSED_OWNER, new Date(Date.now() + 60_000))).toStrictEqual({
    cancelRequested: false,
    userDecision: null,
  });
  const worker = workerReads(id, async () => true);
  expect(await links.decideHeldWrite(owner, id, 'deny')).toMatchObject({ reason: 'APPROVAL' });
  expect(parseDecision(await worker)).toMatchObject({ decision: 'deny' });
});
