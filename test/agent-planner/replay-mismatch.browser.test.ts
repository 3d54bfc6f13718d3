import { plannerStrategy, replayStrategy, trajectoryKeyOf } from '../../server/agent/strategies';
import { deps, model, newOrg, obs, runContext, server, usePlannerServers } from './planner-support';

/**
 * A replay answers right or not at all (issue 34), through the strategies as the worker runs them: a replay whose
 * answer fails its check on the live page does not answer; it marks its trajectory stale and either fails with
 * REPLAY_MISMATCH (no model) or hands over to the planner, whose run records the action again.
 */
jest.setTimeout(120_000);
usePlannerServers();

const noModel = () => ({ ...deps(), config: { model: undefined } });

it('a list read that no longer matches fails with REPLAY_MISMATCH without a model, stays stale, and is learned again with one', async () => {
  const org = await newOrg();
  const request = {
    organizationId: org,
    slug: 'forgehub' as const,
    path: '/repositories',
    action: 'List the first three repositories on this page',
    responseFormat: { repositories: ['string - owner/name'] },
  };
  model.setScript((t) => {
    const names = [...obs(t).text.matchAll(/^### \[\d+\] link '([\w.-]+\/[\w.-]+)'$/gm)].map((m) => m[1]!).slice(0, 3);
    return { tool: 'done', args: { success: true, data: { repositories: names } } };
  });
  const first = await runContext(request);
  expect(await plannerStrategy(deps()).run(first.ctx)).toMatchObject({ status: 'completed' });
  const key = trajectoryKeyOf(first.ctx).key;
  const row = () => server.services.store.repos.agentTrajectories.findById(key);
  expect(await row()).toMatchObject({ staleAt: null });

  // A redesign moves the list into a new shell: nothing on the page is the container that was recorded.
  const calls = model.calls;
  const second = await runContext(request);
  await second.page.evaluate(() => {
    document.body.innerHTML = `<div id="redesign"><aside><h2>Recent</h2><ul><li><a href="#">someone/else</a></li></ul></aside>${document.body.innerHTML}</div>`;
  });
  const failed = await replayStrategy(noModel(), { resolveWaitMs: 300 }).run(second.ctx);
  expect(failed).toMatchObject({
    status: 'failed',
    code: 'REPLAY_MISMATCH',
    message: expect.stringMatching(/^The recorded replay of this action no longer matches the page, .*is not on the page/),
    usage: { calls: 0 },
  });
  expect(await row()).toMatchObject({ staleAt: expect.any(Date), staleReason: expect.stringContaining('is not on the page') });

  // Stale: not tried again; without a model the next request fails at once, saying why.
  const third = await runContext(request);
  expect(await replayStrategy(noModel()).run(third.ctx)).toMatchObject({
    status: 'failed',
    code: 'REPLAY_MISMATCH',
    message: expect.stringContaining('the recorded trajectory is stale'),
  });
  expect(third.trace).toEqual([]);
  expect(model.calls).toBe(calls);

  // With a model: the replay steps aside, the planner answers and records it afresh, and the next request replays.
  const fourth = await runContext(request);
  expect(await replayStrategy(deps()).run(fourth.ctx)).toMatchObject({
    status: 'not_applicable',
    reason: expect.stringContaining('stale'),
  });
  expect(await plannerStrategy(deps()).run(fourth.ctx)).toMatchObject({ status: 'completed', usage: { calls: 1 } });
  expect(await row()).toMatchObject({ staleAt: null, staleReason: null });
  const fifth = await runContext(request);
  expect(await replayStrategy(deps()).run(fifth.ctx)).toMatchObject({ status: 'completed', usage: { calls: 0 } });
});
