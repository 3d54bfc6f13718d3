import type { Page } from 'playwright-core';

import { plannerStrategy, replayStrategy } from '../../server/agent/strategies';
import type { ScriptTurn } from '../support/scripted-model-server';
import { deps, headingOf, model, newOrg, numberIn, obs, runContext, server, usePlannerServers } from './planner-support';

/**
 * The planner for real: real Chromium on the simulated providers, with only the model scripted. The script
 * reads the observation it is sent and answers with the index it finds there, so these runs go through the
 * real page views, tools, validation and trajectory recording. Then the same action again completes by
 * replay with zero model calls, reading its result from the live page. The planner's failure paths:
 * planner-failures.browser.test.ts.
 */
jest.setTimeout(60_000);

usePlannerServers();

describe('planner on the simulated providers', () => {
  it('reads a profile by planning (click, read, done), then the same action completes by replay with zero model calls, from the live page', async () => {
    const org = await newOrg();
    const request = {
      organizationId: org,
      slug: 'orbit' as const,
      path: '/',
      action: 'Open my profile and tell me my name and how many followers I have',
      responseFormat: { name: 'string - full name', followers: 'integer - number of followers' },
    };
    model.setScript((t) => {
      const o = obs(t);
      if (new URL(o.url).pathname === '/in/user_good')
        return { tool: 'done', args: { success: true, data: { name: headingOf(o), followers: numberIn(o, /^([\d,]+) followers?$/m) } } };
      return { tool: 'click', args: { index: o.find('link', 'Me') } };
    });
    const before = model.calls;
    const first = await runContext(request);
    const planned = await plannerStrategy(deps()).run(first.ctx);

    expect(planned).toEqual({
      status: 'completed',
      result: { name: 'Grace Goodwin', followers: expect.any(Number) },
      usage: expect.objectContaining({ calls: 2 }),
    });
    const followers = (planned as { result: { followers: number } }).result.followers;
    expect(followers).toBeGreaterThan(1000);
    expect(model.calls - before).toBe(2);
    if (planned.status === 'completed') expect(planned.usage!.promptTokens).toBeGreaterThan(100);
    expect(first.trace.map((s) => [s.tool, s.outcome])).toEqual([
      ['click', 'ok'],
      ['done', 'ok'],
      ['record-trajectory', 'ok'],
    ]);
    expect(first.trace[0]!.target).toBe("link 'Me' in navigation 'Main'");
    // The real protocol: model name, tools with parameter schemas, the key as a bearer token.
    const body = JSON.parse(model.bodies[model.bodies.length - 1]!) as {
      model: string;
      tools: { function: { name: string; parameters: { properties: Record<string, unknown> } } }[];
    };
    expect(body.model).toBe('scripted-test-model');
    expect(body.tools.map((x) => x.function.name)).toEqual([
      'navigate',
      'click',
      'type',
      'select',
      'press',
      'hover',
      'scroll',
      'switch_tab',
      'close_tab',
      'wait',
      'extract',
      'ask_user',
      'done',
      'fail',
    ]);
    expect(body.tools.find((x) => x.function.name === 'done')!.function.parameters.properties.data).toMatchObject({
      type: 'object',
      required: ['name', 'followers'],
    });
    expect(model.authorizations[model.authorizations.length - 1]).toBe('Bearer sk-test-key');

    // Someone follows Grace in between: a replay must read the new count from the page, not the recording.
    const sasha = await runContext({ ...request, username: 'user_sms', path: '/in/user_good' });
    await sasha.page.getByRole('button', { name: 'Follow Grace Goodwin' }).click();
    await sasha.page.getByRole('status').filter({ hasText: 'now following' }).waitFor();

    model.setScript(() => ({ status: 500 }));
    const callsBeforeReplay = model.calls;
    const second = await runContext(request);
    const replayed = await replayStrategy(deps()).run(second.ctx);
    expect(replayed).toEqual({
      status: 'completed',
      result: { name: 'Grace Goodwin', followers: followers + 1 },
      usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    });
    expect(model.calls).toBe(callsBeforeReplay);
    expect(second.trace.map((s) => [s.tool, s.target, s.outcome])).toEqual([
      ['click', "link 'Me' in navigation 'Main'", 'ok'],
      ['extract', undefined, 'ok'],
    ]);
    expect(new URL(second.page.url()).pathname).toBe('/in/user_good');
  });

  it('writes a post: types a parameter placeholder into the rich-text editor, picks a custom listbox option; the replay posts again with new parameters and zero model calls', async () => {
    const org = await newOrg();
    const request = (text: string) => ({
      organizationId: org,
      slug: 'orbit' as const,
      path: '/',
      action: `Publish a post saying "${text}" to my connections only`,
      parameters: { text, visibility: 'connections' },
      responseFormat: { posted: 'boolean - whether the post was published', text: 'string - the text of the post' },
    });
    const seen: string[] = [];
    model.setScript((t) => {
      const o = obs(t);
      seen.push(t.lastUser);
      if (o.has('Post successful')) return { tool: 'done', args: { success: true, data: { posted: true, text: '{{parameters.text}}' } } };
      const editor = o.maybe('textbox', 'Text editor for creating content');
      if (!editor) return { tool: 'click', args: { index: o.find('button', 'Start a post') } };
      if (/value=''/.test(editor.rest)) return { tool: 'type', args: { index: editor.index, text: '{{parameters.text}}' } };
      const visibility = o.maybe('button', /^Who can see your post\?/)!;
      if (visibility.name.endsWith('Public'))
        return { tool: 'select', args: { index: visibility.index, option: '{{parameters.visibility}}' } };
      return { tool: 'click', args: { index: o.find('button', 'Post') } };
    });
    const before = model.calls;
    const first = await runContext(request('Hello from the planner'));
    const planned = await plannerStrategy(deps()).run(first.ctx);
    expect(planned).toMatchObject({ status: 'completed', result: { posted: true, text: 'Hello from the planner' }, usage: { calls: 5 } });
    expect(model.calls - before).toBe(5);
    expect(first.trace.map((s) => s.tool)).toEqual(['click', 'type', 'select', 'click', 'done', 'record-trajectory']);
    // The model saw the parameter only as its placeholder: in the action, and in the editor after typing.
    const all = model.bodies.slice(before).join('\n');
    expect(all).not.toContain('Hello from the planner');
    expect(seen[2]).toContain("value='{{parameters.text}}'");
    expect(all).toContain('Publish a post saying \\"{{parameters.text}}\\" to my {{parameters.visibility}} only');

    // On the site: the newest post, for connections only.
    const check = async (page: Page, text: string) => {
      await page.goto(server.siteUrl('orbit', '/'));
      const newest = page.getByRole('article').first();
      expect(await newest.innerText()).toContain(text);
      expect(await newest.innerText()).toContain('Connections');
    };
    await check(first.page, 'Hello from the planner');

    model.setScript(() => ({ raw: 'the replay must not call the model' }));
    const callsBeforeReplay = model.calls;
    const second = await runContext(request('Second post, written by the replay'));
    const replayed = await replayStrategy(deps()).run(second.ctx);
    expect(replayed).toEqual({
      status: 'completed',
      result: { posted: true, text: 'Second post, written by the replay' },
      usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    });
    expect(model.calls).toBe(callsBeforeReplay);
    expect(second.trace.map((s) => [s.tool, s.outcome])).toEqual([
      ['click', 'ok'],
      ['type', 'ok'],
      ['select', 'ok'],
      ['click', 'ok'],
      ['extract', 'ok'],
    ]);
    await check(second.page, 'Second post, written by the replay');
  });

  it('reads a list (the first three repositories with their stars) and replays it from the live list', async () => {
    const org = await newOrg();
    const request = {
      organizationId: org,
      slug: 'forgehub' as const,
      path: '/repositories',
      action: 'List the first three repositories on this page with their star counts',
      responseFormat: { repositories: [{ name: 'string - owner/name', stars: 'integer' }] },
    };
    model.setScript((t) => {
      const lines = obs(t).text.split('\n');
      const repositories: { name: string; stars: number }[] = [];
      for (let i = 0; i < lines.length && repositories.length < 3; i++) {
        const name = /^### \[\d+\] link '([\w.-]+\/[\w.-]+)'$/.exec(lines[i]!)?.[1];
        if (!name) continue;
        const stars = lines.slice(i + 1).find((l) => /^[\d,]+$/.test(l))!;
        repositories.push({ name, stars: Number(stars.replace(/,/g, '')) });
      }
      return { tool: 'done', args: { success: true, data: { repositories } } };
    });
    const first = await runContext(request);
    const planned = await plannerStrategy(deps()).run(first.ctx);
    expect(planned).toMatchObject({
      status: 'completed',
      result: { repositories: [{ name: 'openfoundry/atlas' }, { name: 'openfoundry/pipeline-kit' }, { name: 'kestrel-labs/kestrel' }] },
    });
    expect(first.trace.map((s) => [s.tool, s.outcome, s.error])).toEqual([
      ['done', 'ok', undefined],
      ['record-trajectory', 'ok', undefined],
    ]);
    const before = (planned as { result: { repositories: { name: string; stars: number }[] } }).result.repositories;

    // Star (or unstar, if the seed stars it) the third one: the replay must read the new count.
    await first.page.goto(server.siteUrl('forgehub', '/kestrel-labs/kestrel'));
    const starred = await first.page.getByRole('button', { name: 'Unstar' }).isVisible();
    await first.page.getByRole('button', { name: starred ? 'Unstar' : 'Star', exact: true }).click();
    await first.page.getByRole('button', { name: starred ? 'Star' : 'Unstar', exact: true }).waitFor();
    const delta = starred ? -1 : 1;

    const calls = model.calls;
    const second = await runContext(request);
    const replayed = await replayStrategy(deps()).run(second.ctx);
    expect(replayed).toEqual({
      status: 'completed',
      result: { repositories: [before[0], before[1], { name: 'kestrel-labs/kestrel', stars: before[2]!.stars + delta }] },
      usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    });
    expect(model.calls).toBe(calls);
  });

  it('a replay that diverges mid-way hands over to the planner, which continues from the current page without repeating steps', async () => {
    const org = await newOrg();
    const request = (text: string) => ({
      organizationId: org,
      slug: 'orbit' as const,
      path: '/',
      action: `Share "${text}" with everyone`,
      parameters: { text },
      responseFormat: { posted: 'boolean' },
    });
    const turns: ScriptTurn[] = [];
    model.setScript((t) => {
      turns.push(t);
      const o = obs(t);
      if (o.has('Post successful')) return { tool: 'done', args: { success: true, data: { posted: true } } };
      const editor = o.maybe('textbox', 'Text editor for creating content');
      if (!editor) return { tool: 'click', args: { index: o.find('button', 'Start a post') } };
      if (/value=''/.test(editor.rest)) return { tool: 'type', args: { index: editor.index, text: '{{parameters.text}}' } };
      return { tool: 'click', args: { index: o.find('button', /^(Post|Publish)$/) } };
    });
    const first = await runContext(request('First shared post'));
    expect(await plannerStrategy(deps()).run(first.ctx)).toMatchObject({ status: 'completed', usage: { calls: 4 } });

    // The site renames its button: the recorded "click button 'Post'" no longer matches after two steps.
    const second = await runContext(request('Second shared post'));
    await second.page.evaluate(() => {
      document.querySelector('#compose button[type=submit]')!.textContent = 'Publish';
    });
    turns.length = 0;
    // The product's wait for a step's element (3 s), not a short one: steps 1 and 2 must find theirs (the dialog step 1
    // opens) however loaded the machine is; only step 3's missing button waits it out.
    const replayed = await replayStrategy(deps()).run(second.ctx);
    expect(replayed).toMatchObject({
      status: 'not_applicable',
      reason: expect.stringMatching(/^the replay stopped at step 3 \(click button 'Post' in dialog 'Create a post'\)/),
    });
    const continued = await plannerStrategy(deps()).run(second.ctx);
    expect(continued).toMatchObject({ status: 'completed', result: { posted: true }, usage: { calls: 2 } });
    expect(turns.map((t) => t.history.length)).toEqual([0, 1]);
    const task = turns[0]!.messages[1]!.content!;
    expect(task).toContain("1. click button 'Start a post' in region 'Create a post'");
    expect(task).toContain("2. type '{{parameters.text}}' into textbox 'Text editor for creating content' in dialog 'Create a post'");

    await second.page.goto(server.siteUrl('orbit', '/'));
    expect(await second.page.getByRole('article').filter({ hasText: 'Second shared post' }).count()).toBe(1);
    // The planner's run was recorded with the replayed steps before its own: the next request replays all of it.
    const third = await runContext(request('Third shared post'));
    await third.page.evaluate(() => {
      document.querySelector('#compose button[type=submit]')!.textContent = 'Publish';
    });
    const calls = model.calls;
    expect(await replayStrategy(deps()).run(third.ctx)).toMatchObject({ status: 'completed', result: { posted: true } });
    expect(model.calls).toBe(calls);
  });

  it('when the page differs from the recording the replay stops (not_applicable) and the planner takes over from the current page', async () => {
    const org = await newOrg();
    const request = {
      organizationId: org,
      slug: 'forgehub' as const,
      path: '/tobiasw/bike-routes',
      action: 'Star this repository and tell me its star count',
      responseFormat: { starred: 'boolean', stars: 'integer - stars after starring' },
    };
    model.setScript((t) => {
      const o = obs(t);
      const unstar = o.maybe('button', 'Unstar');
      if (unstar) return { tool: 'done', args: { success: true, data: { starred: true, stars: numberIn(o, /^([\d,]+) stars?$/m) } } };
      return { tool: 'click', args: { index: o.find('button', 'Star') } };
    });
    const first = await runContext(request);
    const planned = await plannerStrategy(deps()).run(first.ctx);
    expect(planned).toMatchObject({ status: 'completed', result: { starred: true, stars: 24 } });

    // Starred already: the recorded "click button 'Star'" finds no such button.
    const callsBefore = model.calls;
    const second = await runContext(request);
    const replayed = await replayStrategy(deps(), { resolveWaitMs: 500 }).run(second.ctx);
    expect(replayed.status).toBe('not_applicable');
    expect((replayed as { reason: string }).reason).toMatch(
      /^the replay stopped at step 1 \(click button 'Star'.*\): button 'Star'.* is not on the page$/,
    );
    expect(model.calls).toBe(callsBefore);
    const fallback = await plannerStrategy(deps()).run(second.ctx);
    expect(fallback).toMatchObject({ status: 'completed', result: { starred: true, stars: 24 }, usage: { calls: 1 } });
    expect(model.calls).toBe(callsBefore + 1);
  });
});
