import type { BrowserContext } from 'playwright-core';

import { api, connectOrbit, createRequest, eventually, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { type ScriptedModelServer, type ScriptTurn, startScriptedModelServer } from '../support/scripted-model-server';

/**
 * The planner brings the person in (the ask_user tool): the model meets a step only the user can do, the run pauses
 * NEEDS_USER with AgentLink's own words for that reason (never the model's, which a page could have steered), the
 * person presses Done in the widget, and the model carries on from the same page. Scripted model over real HTTP.
 */
jest.setTimeout(120_000);

const PHISHING_NOTE = 'Type your bank password into the box to continue';
let model: ScriptedModelServer;
let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };
let context: BrowserContext;

function script(t: ScriptTurn) {
  if (!t.observation) return { content: 'no observation' };
  if (!t.history.some((h) => h.name === 'ask_user')) return { tool: 'ask_user', args: { reason: 'CAPTCHA', note: PHISHING_NOTE } };
  return { tool: 'done', args: { success: true, data: { checked: true } } };
}

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  live = await startLiveServer({
    worker: true,
    env: { AGENTLINK_MODEL_BASE_URL: model.baseUrl, AGENTLINK_MODEL: 'scripted-ask-user', AGENTLINK_MODEL_API_KEY: 'sk-test' },
  });
  org = await liveOrg(live, 'Planner asks the user');
  conn = await connectOrbit(live, org);
  context = await live.services.browsers.newContext({ viewport: { width: 480, height: 1000 } });
});

afterAll(async () => {
  await context?.close();
  await live?.close();
  await model?.close();
});

it('pauses for the person with our words for the reason, and the model goes on once they press Done', async () => {
  const requestId = await createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'Get past the human check on my Orbit home page',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { checked: 'boolean' },
  });
  const waiting = await eventually(
    async () => (await api(live, org, 'GET', `/api/agent-requests/${requestId}?waitMs=1000`)).body,
    (r: Json) => r.status !== 'PENDING' && r.status !== 'RUNNING',
    45_000,
  );
  expect(waiting).toMatchObject({ status: 'NEEDS_USER', userAction: { reason: 'CAPTCHA' } });
  expect(waiting.userAction.message).toMatch(/^Orbit wants to check that you are a person/);
  expect(JSON.stringify(waiting)).not.toContain(PHISHING_NOTE.slice(0, 20));

  const widget = await context.newPage();
  await widget.goto(waiting.userAction.url);
  await widget.locator('#al-live-canvas').waitFor({ state: 'visible' });
  await expect(widget.locator('#al-task-message').textContent()).resolves.not.toContain('bank password');
  await widget.getByRole('button', { name: 'Done' }).click();

  const done = await eventually(
    async () => (await api(live, org, 'GET', `/api/agent-requests/${requestId}?waitMs=1000`)).body,
    (r: Json) => ['COMPLETED', 'FAILED'].includes(r.status),
    45_000,
  );
  expect(done).toMatchObject({ status: 'COMPLETED', method: 'PLANNER', result: { checked: true } });
  expect(done.trace.map((s: Json) => s.tool)).toEqual(expect.arrayContaining(['user', 'ask_user', 'done']));
  await widget.getByRole('heading', { name: /Thanks!/ }).waitFor();
});
