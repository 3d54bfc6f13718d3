import { randomBytes } from 'node:crypto';

import { tenantFor } from '../../server/sandbox/site-sessions';
import { connectOrbit, createRequest, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { requestWhen } from './handoff-support';

/**
 * A person slower than the page's action timeout: a write held for approval, approved after every wall-clock bound of
 * the run's page has passed (its action timeout, at most 20 s, and the waits of a step, at most 15 s), still completes,
 * sent once. Before, a playbook's click waited for the form POST's navigation under that timeout and failed the run
 * (PLAYBOOK_FAILED "click button 'Post': Timeout exceeded"), and a wait for the page after a fetch write did the same.
 */
jest.setTimeout(120_000);

/** run-session.ts caps the page's action timeout at 20 s (wall time). */
const ACTION_TIMEOUT_MS = 20_000;
/** The request's run time: room for a loaded machine to reach the write (15 s timed a run out before it, once). */
const TIMEOUT_MS = 30_000;
/** Longer than any wall-clock bound of the run's page. */
const PERSON_TAKES_MS = ACTION_TIMEOUT_MS + 2_000;

let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string };

beforeAll(async () => {
  live = await startLiveServer({ worker: true });
  org = await liveOrg(live);
  conn = await connectOrbit(live, org);
});

afterAll(async () => {
  await live?.close();
});

async function approvedLate(requestId: string) {
  const waiting = await requestWhen(live, org, requestId, ['NEEDS_USER', 'COMPLETED', 'FAILED', 'TIMED_OUT']);
  if (waiting.status !== 'NEEDS_USER') throw new Error(`the run did not pause: ${JSON.stringify(waiting.error)}`);
  expect(waiting.userAction).toMatchObject({ reason: 'APPROVAL' });
  await new Promise((r) => setTimeout(r, PERSON_TAKES_MS));
  const res = await fetch(`${live.baseUrl}/api/agent-requests/${requestId}/user-action`, {
    method: 'POST',
    headers: org.headers,
    body: JSON.stringify({ decision: 'approve', writeId: waiting.userAction.write.id }),
  });
  if (res.status !== 200) {
    const now = await requestWhen(live, org, requestId, ['NEEDS_USER', 'COMPLETED', 'FAILED', 'TIMED_OUT']);
    throw new Error(`approve answered ${res.status} ${await res.text()}; the request: ${JSON.stringify(now)}`);
  }
  const done = await requestWhen(live, org, requestId, ['COMPLETED', 'FAILED', 'TIMED_OUT']);
  if (done.status !== 'COMPLETED') throw new Error(`the run failed: ${JSON.stringify(done.error)}`);
  return done;
}

const request = (body: Record<string, unknown>) =>
  createRequest(live, org, {
    accessToken: conn.accessToken,
    approval: 'writes',
    timeoutMs: TIMEOUT_MS,
    startingUrl: live.siteUrl('orbit', '/'),
    ...body,
  });

it('a form POST (a navigation) approved after the timeout is sent once and read back', async () => {
  const text = `Slow approval ${randomBytes(4).toString('hex')}`;
  const requestId = await request({
    action: 'Create a post',
    playbook: 'orbit.create-post',
    parameters: { text },
    responseFormat: { text: 'string' },
  });
  expect(await approvedLate(requestId)).toMatchObject({ result: { text } });
  const posts = await live.services.store.repos.sandboxDocs.list(tenantFor(org.organizationId), 'orbit', 'post');
  expect(posts.filter((d) => d.data.text === text)).toHaveLength(1);
});

it('a fetch write approved after the timeout: the wait for the page it changes counts run time', async () => {
  const requestId = await request({
    action: 'Follow Lena Fischer',
    playbook: 'orbit.follow-person',
    parameters: { person: 'Lena Fischer' },
    responseFormat: { name: 'string', following: 'boolean' },
  });
  expect(await approvedLate(requestId)).toMatchObject({ result: { name: 'Lena Fischer', following: true } });
});
