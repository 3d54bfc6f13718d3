import { randomBytes } from 'node:crypto';

import { createAgentLinkClient } from '@agentlink/client';

import { tenantFor } from '../../server/sandbox/site-sessions';
import { connectOrbit, createRequest, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { FINAL_STATUSES, requestWhen } from './handoff-support';

/**
 * Approvals decided where the app is: POST /api/agent-requests/{requestId}/user-action with approve or deny (the
 * organization's credentials), and the SDK's agentRequests.approve / .deny, on the real orbit.create-post playbook
 * whose publishing POST is held at the network. Approved, it is sent exactly once (a retry with the same
 * Idempotency-Key replays the answer; another decision is a 409); denied, never; another organization sees nothing.
 */
jest.setTimeout(120_000);

let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };

beforeAll(async () => {
  live = await startLiveServer({ worker: true, env: { AGENTLINK_USER_ACTION_TTL_SECONDS: '60' } });
  org = await liveOrg(live);
  conn = await connectOrbit(live, org);
});

afterAll(async () => {
  await live?.close();
});

async function postsWith(text: string): Promise<number> {
  const docs = await live.services.store.repos.sandboxDocs.list(tenantFor(org.organizationId), 'orbit', 'post');
  return docs.filter((d) => String(d.data.text ?? '').includes(text)).length;
}

const post = (text: string) =>
  createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'Create a post',
    playbook: 'orbit.create-post',
    parameters: { text },
    approval: 'writes',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { text: 'string', url: 'url?' },
  });

async function decide(
  who: LiveOrg,
  requestId: string,
  decision: unknown,
  key?: string,
  writeId?: string,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${live.baseUrl}/api/agent-requests/${requestId}/user-action`, {
    method: 'POST',
    headers: { ...who.headers, ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({ decision, ...(writeId ? { writeId } : {}) }),
  });
  return { status: res.status, body: await res.json() };
}

it('approved by the app: sent exactly once, the trace says so; a retry replays, another decision is a 409', async () => {
  const text = `App approved ${randomBytes(4).toString('hex')}`;
  const requestId = await post(text);
  const waiting = await requestWhen(live, org, requestId, ['NEEDS_USER']);
  expect(waiting.userAction.reason).toBe('APPROVAL');

  const other = await liveOrg(live, 'Another org');
  expect((await decide(other, requestId, 'approve')).body.error).toMatchObject({ code: 'AGENT_REQUEST_NOT_FOUND' });
  expect((await decide(org, requestId, 'maybe')).status).toBe(400);
  // A decision bound to another write (one the page gave up on, as the app last saw it) decides nothing.
  expect(waiting.userAction.write.id).toMatch(/^hw_[\w-]{16}$/);
  const stale = await decide(org, requestId, 'approve', undefined, 'hw_a-write-no-longer-held');
  expect(stale.status).toBe(409);
  expect(stale.body.error).toMatchObject({ code: 'USER_ACTION_OVER' });
  expect(await postsWith(text)).toBe(0);
  expect((await requestWhen(live, org, requestId, ['NEEDS_USER'])).userAction.write.id).toBe(waiting.userAction.write.id);

  const key = `approve-${randomBytes(6).toString('hex')}`;
  const first = await decide(org, requestId, 'approve', key, waiting.userAction.write.id);
  expect(first.status).toBe(200);
  expect(first.body.requestId).toBe(requestId);
  const replay = await decide(org, requestId, 'approve', key, waiting.userAction.write.id);
  expect(replay).toEqual(first);
  const done = await requestWhen(live, org, requestId, FINAL_STATUSES);
  expect(done).toMatchObject({ status: 'COMPLETED', result: { text } });
  expect(await postsWith(text)).toBe(1);
  expect(done.trace.find((s: Json) => s.tool === 'user')).toMatchObject({ outcome: 'ok', target: expect.stringContaining('APPROVAL') });
  const late = await decide(org, requestId, 'deny');
  expect(late.status).toBe(409);
  expect(late.body.error).toMatchObject({ code: 'USER_ACTION_OVER' });
});

it('denied through the SDK: never sent, DENIED_BY_USER; approve after that is a 409', async () => {
  const text = `App denied ${randomBytes(4).toString('hex')}`;
  const requestId = await post(text);
  const waiting = await requestWhen(live, org, requestId, ['NEEDS_USER']);
  const client = createAgentLinkClient({
    baseUrl: live.baseUrl,
    clientId: org.headers['x-client-id']!,
    clientSecret: org.headers['x-client-secret']!,
  });
  await expect(client.agentRequests.deny(requestId, { writeId: 'hw_another' })).rejects.toMatchObject({ status: 409 });
  await client.agentRequests.deny(requestId, { writeId: waiting.userAction.write.id });
  const ended = await requestWhen(live, org, requestId, FINAL_STATUSES);
  expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'DENIED_BY_USER' } });
  expect(await postsWith(text)).toBe(0);
  await expect(client.agentRequests.approve(requestId)).rejects.toMatchObject({ status: 409, code: 'USER_ACTION_OVER' });
});
