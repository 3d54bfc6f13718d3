import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { connectedOrg, runAction } from './playbook-support';

/**
 * user_stepup through the real worker, over the API. The worker has no person to ask yet (its door is NO_PERSON):
 * Orbit's code step ends the request FAILED with USER_ACTION_UNAVAILABLE, the door's own code, with the pause as the
 * failed step of the trace; not PLAYBOOK_FAILED, and not a crash. Where Orbit does not ask, the request completes.
 */
jest.setTimeout(90_000);

let live: LiveServer;
beforeAll(async () => {
  live = await startLiveServer({ worker: true });
});
afterAll(async () => {
  await live?.close();
});

it('a step only the person can do fails the request with USER_ACTION_UNAVAILABLE; a message that needs no code is sent', async () => {
  const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Step-up worker org', 'user_stepup');
  const start = live.siteUrl('orbit', '/');
  const asked = await runAction(live, org, {
    action: "Send a message to Maya Patel saying 'Nice to meet you'",
    startingUrl: start,
    responseFormat: { sent: 'boolean' },
  });
  expect(asked).toMatchObject({
    status: 'FAILED',
    error: { code: 'USER_ACTION_UNAVAILABLE', message: expect.stringContaining("CODE: Orbit wants to confirm it's you") },
  });
  const steps = asked.trace.map((s: { tool: string; target: string; outcome: string }) => `${s.tool} ${s.target} ${s.outcome}`);
  expect(steps).toContain("click button 'Send' ok");
  expect(steps).toContain("user code asked by Orbit (Confirm it's you) error");

  const existing = await runAction(live, org, {
    action: "Send a message to Priya Nair saying 'See you Thursday'",
    startingUrl: start,
    responseFormat: { sent: 'boolean', recipient: 'string' },
  });
  expect(existing).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', result: { sent: true, recipient: 'Priya Nair' } });
});
