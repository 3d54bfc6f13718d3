import { randomUUID } from 'node:crypto';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { compileResponseFormat } from '../../contract/response-format';
import { NO_PERSON } from '../../server/agent/handoff/user-ask';
import { installNetworkGuard } from '../../server/agent/network-guard';
import type { RunContext, TraceStep } from '../../server/agent/run-context';
import { RunIntegrity } from '../../server/agent/run-integrity';
import { AgentTimeoutError, plannerStrategy, replayStrategy, type StrategyDeps } from '../../server/agent/strategies';
import { systemClock } from '../../server/domain/clock';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';
import {
  type ParsedObservation,
  type ScriptedModelServer,
  type ScriptTurn,
  startScriptedModelServer,
} from '../support/scripted-model-server';

/**
 * The planner for real: real Chromium on the simulated providers, with only the model scripted. The script
 * reads the observation it is sent and answers with the index it finds there, so these runs go through the
 * real page views, tools, validation and trajectory recording. Then the same action again completes by
 * replay with zero model calls, reading its result from the live page.
 */
jest.setTimeout(60_000);

let server: LiveServer;
let browser: Browser;
let model: ScriptedModelServer;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [server, browser, model] = await Promise.all([startLiveServer(), startBrowser(), startScriptedModelServer()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await model?.close();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});

const modelConfig = () => ({ baseUrl: model.baseUrl, model: 'scripted-test-model', apiKey: 'sk-test-key', timeoutMs: 10_000 });
const deps = (): StrategyDeps => ({ store: server.services.store, config: { model: modelConfig() }, clock: systemClock });

interface Run {
  ctx: RunContext;
  trace: TraceStep[];
  page: Page;
  cookie: string;
}

async function newOrg() {
  return (await server.services.organizations.create(`Planner test ${randomUUID().slice(0, 8)}`)).organization.id;
}

/** What the worker would hand a strategy: a signed-in context restricted to the provider, the page at the start. */
async function runContext(o: {
  organizationId: string;
  slug: 'orbit' | 'forgehub';
  path: string;
  action: string;
  parameters?: Record<string, unknown>;
  responseFormat: Record<string, unknown>;
  username?: string;
  timeoutMs?: number;
}): Promise<Run> {
  const provider = server.services.catalogue.bySlug(o.slug, 'sandbox')!;
  const state = await server.services.siteSessions.mint(
    { organizationId: o.organizationId, environment: 'sandbox' },
    o.slug,
    o.username ?? 'user_good',
  );
  // The worker's own fence: the context's traffic goes through its egress proxy, and the network guard reports.
  const policy = EgressPolicy.forProvider(provider, 'sandbox');
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: () => undefined,
    options: { storageState: state, viewport: { width: 1280, height: 900 } },
  });
  context.setDefaultTimeout(10_000);
  contexts.push(context);
  const main: { page?: Page } = {};
  const integrity = new RunIntegrity();
  await installNetworkGuard(context, {
    policy,
    mainFrame: () => main.page?.mainFrame(),
    report: (b) => integrity.taint('BLOCKED_REQUEST', b.url),
  });
  const page = await context.newPage();
  main.page = page;
  const startingUrl = server.siteUrl(o.slug, o.path);
  await page.goto(startingUrl);
  const trace: TraceStep[] = [];
  const ctx: RunContext = {
    requestId: `areq_${randomUUID()}`,
    owner: { organizationId: o.organizationId, environment: 'sandbox' },
    action: o.action,
    startingUrl,
    parameters: o.parameters ?? {},
    responseFormat: o.responseFormat,
    mode: 'read_write',
    resultSchema: compileResponseFormat(o.responseFormat),
    provider,
    context,
    page,
    signal: new AbortController().signal,
    deadline: Date.now() + (o.timeoutMs ?? 45_000),
    record: (s) => trace.push(s),
    integrity,
    secrets: [],
    ...NO_PERSON,
  };
  return { ctx, trace, page, cookie: state.cookies[0]!.value };
}

const obs = (t: ScriptTurn): ParsedObservation => {
  if (!t.observation) throw new Error(`no observation in: ${t.lastUser.slice(0, 300)}`);
  return t.observation;
};
const headingOf = (o: ParsedObservation, level = 1) => new RegExp(`^${'#'.repeat(level)} (.+)$`, 'm').exec(o.text)?.[1];
const numberIn = (o: ParsedObservation, re: RegExp) => {
  const m = re.exec(o.text);
  if (!m) throw new Error(`no ${re} in the observation`);
  return Number(m[1]!.replace(/,/g, ''));
};

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
    const replayed = await replayStrategy(deps(), { resolveWaitMs: 500 }).run(second.ctx);
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

describe('planner failure paths', () => {
  const readProfile = async (extra: { timeoutMs?: number } = {}) =>
    runContext({
      organizationId: await newOrg(),
      slug: 'orbit',
      path: '/in/user_good',
      action: 'Tell me my name',
      responseFormat: { name: 'string' },
      ...extra,
    });

  it('without a configured model fails at once with MODEL_NOT_CONFIGURED and says how to configure one', async () => {
    const run = await readProfile();
    const before = model.calls;
    const out = await plannerStrategy({ store: server.services.store, config: {}, clock: systemClock }).run(run.ctx);
    expect(out).toMatchObject({ status: 'failed', code: 'MODEL_NOT_CONFIGURED' });
    expect((out as { message: string }).message).toMatch(/AGENTLINK_MODEL_BASE_URL.*AGENTLINK_MODEL\b.*AGENTLINK_MODEL_API_KEY/);
    expect(model.calls).toBe(before);
  });

  it('a model server answering HTTP 500 fails the run with MODEL_ERROR (after one retry)', async () => {
    model.setScript(() => ({ status: 500, body: JSON.stringify({ error: { message: 'upstream overloaded' } }) }));
    const run = await readProfile();
    const before = model.calls;
    const out = await plannerStrategy(deps()).run(run.ctx);
    expect(out).toMatchObject({
      status: 'failed',
      code: 'MODEL_ERROR',
      message: 'the model endpoint answered HTTP 500: upstream overloaded',
      usage: { calls: 2 },
    });
    expect(model.calls - before).toBe(2);
  });

  it('garbage from the model server fails the run with MODEL_BAD_RESPONSE', async () => {
    for (const raw of ['<html>502 Bad Gateway</html>', JSON.stringify({ id: 'x', choices: [] })]) {
      model.setScript(() => ({ raw }));
      const out = await plannerStrategy(deps()).run((await readProfile()).ctx);
      expect(out).toMatchObject({ status: 'failed', code: 'MODEL_BAD_RESPONSE' });
    }
  });

  it('a result that does not match the schema gets one repair turn, then RESULT_SCHEMA_MISMATCH with the validation errors', async () => {
    const turns: ScriptTurn[] = [];
    model.setScript((t) => {
      turns.push(t);
      return { tool: 'done', args: { success: true, data: { name: 42, extra: 'x' } } };
    });
    const before = model.calls;
    const out = await plannerStrategy(deps()).run((await readProfile()).ctx);
    expect(out).toMatchObject({
      status: 'failed',
      code: 'RESULT_SCHEMA_MISMATCH',
      details: expect.arrayContaining([
        { path: '/extra', message: 'is not a property of the response format' },
        { path: '/name', message: 'must be string' },
      ]),
    });
    expect(model.calls - before).toBe(2);
    expect(turns[1]!.lastUser).toContain('/name: must be string');
    expect(turns[1]!.toolChoice).toEqual({ type: 'function', function: { name: 'done' } });

    // …and a corrected answer in the repair turn completes.
    let k = 0;
    model.setScript((t) => {
      k += 1;
      if (k === 1) return { tool: 'done', args: { success: true, data: { name: ['not', 'a', 'string'] } } };
      return {
        tool: 'done',
        args: { success: true, data: { name: /^# (.+)$/m.exec(t.messages.map((m) => m.content ?? '').join('\n'))?.[1] } },
      };
    });
    const repaired = await plannerStrategy(deps(), { recorder: null }).run((await readProfile()).ctx);
    expect(repaired).toMatchObject({ status: 'completed', result: { name: 'Grace Goodwin' }, usage: { calls: 2 } });
  });

  it('feeds a failed action back as the next observation and gives up after three failures in a row', async () => {
    const turns: ScriptTurn[] = [];
    model.setScript((t) => {
      turns.push(t);
      if (turns.length === 1) return { tool: 'navigate', args: { url: 'http://example.com/' } };
      if (turns.length === 2) return { tool: 'click', args: { index: 9999 } };
      return { tool: 'clickk', args: {} };
    });
    const run = await readProfile();
    const out = await plannerStrategy(deps()).run(run.ctx);
    expect(out).toMatchObject({ status: 'failed', code: 'TOO_MANY_FAILURES' });
    expect(turns).toHaveLength(3);
    expect(turns[1]!.lastUser).toContain("Your previous turn failed: example.com is outside this provider's site");
    expect(turns[2]!.lastUser).toContain('Your previous turn failed: there is no element [9999] in the latest observation');
    expect(run.trace.map((s) => s.outcome)).toEqual(['blocked', 'error', 'error']);
    expect(run.trace[0]!.screenshot).toEqual(expect.any(String));
    expect(new URL(run.page.url()).hostname).toBe('orbit.sandbox.localhost');
  });

  it('stops at the step limit with MAX_STEPS_EXCEEDED', async () => {
    model.setScript(() => ({ tool: 'wait', args: { seconds: 0.1 } }));
    const before = model.calls;
    const out = await plannerStrategy(deps(), { planner: { maxSteps: 3 } }).run((await readProfile()).ctx);
    expect(out).toMatchObject({ status: 'failed', code: 'MAX_STEPS_EXCEEDED', usage: { calls: 3 } });
    expect(model.calls - before).toBe(3);
  });

  it('throws the named timeout error when the deadline passes during a model call', async () => {
    model.setScript(() => ({ delayMs: 5_000, then: { tool: 'wait', args: {} } }));
    const run = await readProfile({ timeoutMs: 1_500 });
    const started = Date.now();
    await expect(plannerStrategy(deps()).run(run.ctx)).rejects.toBeInstanceOf(AgentTimeoutError);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('never shows the model the session cookie value or a password typed into a password field', async () => {
    const run = await runContext({
      organizationId: await newOrg(),
      slug: 'orbit',
      path: '/login',
      action: 'Fill in the sign-in form',
      parameters: { username: 'user_good', password: 'pass_good' },
      responseFormat: { filled: 'boolean' },
    });
    // A page that (carelessly) prints the session cookie.
    await run.page.evaluate((v) => {
      const p = document.createElement('p');
      p.textContent = `debug session: ${v}`;
      document.body.prepend(p);
    }, run.cookie);
    const seen: string[] = [];
    model.setScript((t) => {
      const o = obs(t);
      seen.push(o.text);
      const user = o.maybe('textbox', 'Username or email')!;
      const pass = o.maybe('textbox', 'Password')!;
      if (/value=''/.test(user.rest)) return { tool: 'type', args: { index: user.index, text: '{{parameters.username}}' } };
      if (/value=''/.test(pass.rest)) return { tool: 'type', args: { index: pass.index, text: '{{parameters.password}}' } };
      return { tool: 'done', args: { success: true, data: { filled: true } } };
    });
    const before = model.bodies.length;
    const out = await plannerStrategy(deps(), { recorder: null }).run(run.ctx);
    expect(out).toMatchObject({ status: 'completed', result: { filled: true } });
    expect(await run.page.getByLabel('Password').inputValue()).toBe('pass_good');
    const sent = model.bodies.slice(before).join('\n');
    expect(run.cookie.length).toBeGreaterThan(20);
    expect(sent).not.toContain(run.cookie);
    expect(sent).not.toContain('pass_good');
    expect(sent).not.toContain('user_good');
    expect(seen[0]).toContain('debug session: [secret]');
    expect(seen[2]).toMatch(/textbox 'Password' value='\[hidden\]'/);
    expect(seen[2]).toContain("textbox 'Username or email' value='{{parameters.username}}'");
  });
});
