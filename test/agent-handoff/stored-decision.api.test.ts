import type { UserAction } from '../../contract/schemas';
import { askKey, parseDecision } from '../../server/agent/handoff/stored-decision';
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

it("the widget's Approve on another process is stored for the worker, read on its heartbeat, and applied once", async () => {
  const org = await live.services.organizations.create('Stored Decisions');
  const repo = live.services.store.repos.agentRequests;
  const id = await insertPausedRequest(live.services, org.organization.id, () => ({}) as UserAction);
  // Paused again as the worker pauses: with a real link token for this pause.
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

  const widget = widgetFor(live, linkToken);
  const started = await widget.start();
  expect(started.body).toMatchObject({ mode: 'user_action', userAction: { state: 'waiting', reason: 'APPROVAL' } });
  // An answer the ask does not take is refused, and stores nothing.
  expect((await widget.answer('done')).body.error).toMatchObject({ code: 'LINK_STEP_NOT_ALLOWED' });
  expect((await repo.findById(id))?.userDecision).toBeNull();

  // The worker: its heartbeat carries the stored decision; applying it ends the pause (RUNNING, the decision cleared).
  const worker = (async () => {
    for (let i = 0; i < 100; i++) {
      const beat = await repo.heartbeat(id, PAUSED_OWNER, new Date(Date.now() + 60_000));
      if (beat?.userDecision) {
        expect(parseDecision(beat.userDecision)).toEqual({ decision: 'approve', ask: askKey(ask), writeId: null });
        expect(await repo.resumeFromUser(id, PAUSED_OWNER)).toBe(true);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no decision stored');
  })();
  const approved = await widget.answer('approve');
  await worker;
  expect(approved.status).toBe(200);
  const row = await repo.findById(id);
  expect(row).toMatchObject({ status: 'RUNNING', userDecision: null, sealedUserAction: null });
  // The person did their part: this link session is over, and another answer stores nothing.
  expect((await widget.answer('deny')).body.error).toMatchObject({ code: 'LINK_STEP_NOT_ALLOWED' });
  expect((await repo.findById(id))?.userDecision).toBeNull();
});
