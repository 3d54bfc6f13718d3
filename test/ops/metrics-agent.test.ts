import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { awaitRequest, connectOrbit, createRequest, eventually, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { sample } from '../support/prometheus-text';

/**
 * Agent runs on /metrics, from a live AgentLink with its worker and real Chromium: runs by status, method and
 * provider with their durations, and the browser contexts open while a run holds one.
 */
jest.setTimeout(90_000);

const RUNS = 'agentlink_agent_request_duration_seconds_count';

let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };
let release: () => void = () => undefined;
let held: Promise<void> = Promise.resolve();

const holdPlaybook: Playbook<unknown> = {
  providerSlug: 'orbit',
  name: 'test.hold',
  description: 'test playbook: holds its browser context until the test releases it',
  writes: false,
  examples: ['test: hold'],
  resultFields: { ok: 'boolean' },
  parameters: z.unknown(),
  run: async () => {
    await held;
    return { ok: true };
  },
};

beforeAll(async () => {
  live = await startLiveServer({ worker: true });
  live.services.playbooks.register(holdPlaybook);
  org = await liveOrg(live);
  conn = await connectOrbit(live, org);
});

afterAll(async () => {
  release();
  await live?.close();
});

async function metrics(): Promise<string> {
  const res = await fetch(`${live.baseUrl}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

const body = (action: string, responseFormat: Record<string, unknown>) => ({
  accessToken: conn.accessToken,
  action,
  startingUrl: live.siteUrl('orbit', '/'),
  responseFormat,
});

it('counts runs by status, method and provider, with durations; shows the browser context a run holds', async () => {
  // Providers by slug, never by UUID.
  const completed = { status: 'COMPLETED', method: 'playbook', provider: 'orbit' };
  const failed = { status: 'FAILED', method: 'none', provider: 'orbit' };

  const profile = await createRequest(live, org, body('Read my profile', { name: 'string', username: 'string' }));
  expect(await awaitRequest(live, org, profile)).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK' });
  // No playbook or replay covers it and no model is configured: FAILED with no method.
  const uncovered = await createRequest(live, org, body('Water the plants on my balcony', { ok: 'boolean' }));
  expect(await awaitRequest(live, org, uncovered)).toMatchObject({
    status: 'FAILED',
    method: null,
    error: { code: 'MODEL_NOT_CONFIGURED' },
  });

  let text = await metrics();
  expect(sample(text, RUNS, completed)).toBe(1);
  expect(sample(text, RUNS, failed)).toBe(1);
  expect(sample(text, 'agentlink_agent_request_duration_seconds_sum', completed)).toBeGreaterThan(0);
  expect(sample(text, 'agentlink_agent_request_duration_seconds_bucket', { ...completed, le: '+Inf' })).toBe(1);
  // Where both runs' time went, stage by stage (server/agent/run/stages.ts): each stage of a run observed once.
  for (const stage of ['wake', 'claim', 'device', 'context', 'navigation', 'steps', 'session_seal', 'release', 'outcome_write'])
    expect([stage, sample(text, 'agentlink_agent_run_stage_seconds_count', { stage })]).toEqual([stage, 2]);
  expect(sample(text, 'agentlink_agent_run_stage_seconds_sum', { stage: 'steps' })).toBeGreaterThan(0);
  // No run holds a context once its teardown is done, which may follow the answer (one still open would be kept warm for
  // the connection's next run: AGENTLINK_WARM_CONTEXT_SECONDS).
  const contextsHeld = (m: string) => sample(m, 'agentlink_browser_contexts_open')! - sample(m, 'agentlink_browser_contexts_warm')!;
  text = await eventually(metrics, (m) => contextsHeld(m) === 0, 15_000, 100);
  expect(text).not.toContain(ORBIT_PROVIDER_ID);

  // A run holding its browser context: the gauge shows it while it runs, and it is gone afterwards.
  held = new Promise<void>((resolve) => (release = resolve));
  const holding = await createRequest(live, org, body('test: hold', { ok: 'boolean' }));
  await eventually(metrics, (m) => contextsHeld(m) === 1, 30_000, 100);
  release();
  expect(await awaitRequest(live, org, holding)).toMatchObject({ status: 'COMPLETED' });
  text = await eventually(metrics, (m) => contextsHeld(m) === 0, 15_000, 100);
  // Warm contexts are off in the test servers (live-server.ts): nothing is kept.
  expect(sample(text, 'agentlink_browser_contexts_warm')).toBe(0);
  expect(sample(text, RUNS, completed)).toBe(2);
  expect(sample(text, 'agentlink_queue_depth')).toBe(0);
  expect(text).not.toContain(conn.accessToken);
});
