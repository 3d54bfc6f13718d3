import { ROUTING_THRESHOLD } from '../../server/agent/playbooks/action-index';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { type ScriptedModelServer, type ScriptTurn, startScriptedModelServer } from '../support/scripted-model-server';
import { awaitRequest, connectOrbit, createRequest, type LiveOrg, liveOrg } from './agent-support';

/**
 * The order the worker tries the ways of running an action, with a model configured (so every way is there):
 * text-matched playbook → replay → model-routed playbook → planner. Run end to end (API, embedded worker, real
 * Chromium, the Orbit sandbox) against a scripted model server that counts every call, so "a replay costs zero
 * model calls" and "a text match asks no model" are counted, not assumed.
 */
jest.setTimeout(90_000);

const FORMAT = { name: 'string - full name', followers: 'integer - number of followers' };
/**
 * Phrased unlike any Orbit playbook's examples (the text search scores it far below its routing threshold; the
 * first test below checks that), and the router is told to answer "none" for it: it goes to the planner.
 */
const UNMATCHED = 'Click the Me link in the top bar and report the big heading and the first number you see';
/**
 * Unlike any example either (and in lower case, so no capitalised words are read as a person to look up), but the
 * router sends it to orbit.read-my-profile.
 */
const ROUTED = 'go through the me link and give back the heading and the audience figure';

let live: LiveServer;
let model: ScriptedModelServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };
let routerCalls = 0;
let plannerCalls = 0;

function script(t: ScriptTurn) {
  if (t.toolNames.includes('choose_playbook')) {
    routerCalls += 1;
    const action = t.lastUser.includes(ROUTED) ? 'orbit.read-my-profile' : 'none';
    return { tool: 'choose_playbook', args: { name: action } };
  }
  plannerCalls += 1;
  const o = t.observation;
  if (!o) return { content: 'no observation' };
  if (!new URL(o.url).pathname.startsWith('/in/')) return { tool: 'click', args: { index: o.find('link', 'Me') } };
  const name = /^# (.+)$/m.exec(o.text)?.[1];
  const followers = Number(/^([\d,]+) followers?$/m.exec(o.text)?.[1]?.replace(/,/g, ''));
  return { tool: 'done', args: { success: true, data: { name, followers } } };
}

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  live = await startLiveServer({
    worker: true,
    env: { AGENTLINK_MODEL_BASE_URL: model.baseUrl, AGENTLINK_MODEL: 'scripted-routing-model', AGENTLINK_MODEL_API_KEY: 'sk-test' },
  });
  org = await liveOrg(live, 'Routing order');
  conn = await connectOrbit(live, org);
});

afterAll(async () => {
  await live?.close();
  await model?.close();
});

async function run(action: string) {
  const counts = { model: model.calls, router: routerCalls, planner: plannerCalls };
  const record = await awaitRequest(
    live,
    org,
    await createRequest(live, org, {
      accessToken: conn.accessToken,
      action,
      startingUrl: live.siteUrl('orbit', '/'),
      responseFormat: FORMAT,
    }),
  );
  return {
    record,
    calls: { model: model.calls - counts.model, router: routerCalls - counts.router, planner: plannerCalls - counts.planner },
  };
}

it('the two phrasings below are ones the text search does not route (else this file would test nothing)', () => {
  for (const action of [UNMATCHED, ROUTED]) {
    const best = live.services.playbooks.rank('orbit', action)[0];
    expect(best?.score ?? 0).toBeLessThan(ROUTING_THRESHOLD);
  }
});

it('a text-matched playbook asks no model', async () => {
  const { record, calls } = await run('Read my profile');
  expect(record).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', modelUsage: null });
  expect(calls).toEqual({ model: 0, router: 0, planner: 0 });
});

it('an unmatched action is routed by the model, then planned and recorded; the same action again replays with zero model calls', async () => {
  const planned = await run(UNMATCHED);
  expect(planned.record).toMatchObject({ status: 'COMPLETED', method: 'PLANNER', result: { name: 'Grace Goodwin' } });
  // No trajectory yet: the router was asked once (it said none), then the planner clicked "Me" and answered.
  expect(planned.calls).toEqual({ model: 3, router: 1, planner: 2 });
  expect(planned.record.trace.map((s: { tool: string }) => s.tool)).toContain('record-trajectory');

  const replayed = await run(UNMATCHED);
  expect(replayed.record).toMatchObject({
    status: 'COMPLETED',
    method: 'REPLAY',
    result: { name: 'Grace Goodwin', followers: planned.record.result.followers },
    modelUsage: { calls: 0, promptTokens: 0, completionTokens: 0 },
  });
  // The replay comes before the model router: not one request reached the model server.
  expect(replayed.calls).toEqual({ model: 0, router: 0, planner: 0 });
});

it('an action no pattern matches and no replay covers goes to the model router before the planner', async () => {
  const { record, calls } = await run(ROUTED);
  expect(record).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', result: { name: 'Grace Goodwin' } });
  expect(calls).toEqual({ model: 1, router: 1, planner: 0 });
  expect(record.trace.at(-1)).toMatchObject({ tool: 'done', target: 'playbook orbit.read-my-profile (model match)' });
});
