import { AgentTimeoutError, plannerStrategy } from '../../server/agent/strategies';
import { systemClock } from '../../server/domain/clock';
import type { ScriptTurn } from '../support/scripted-model-server';
import { deps, model, newOrg, obs, runContext, server, usePlannerServers } from './planner-support';

/**
 * The planner for real (see planner.browser.test.ts), this file: how it fails: no model configured, a model server
 * answering errors or garbage, a result off the schema, failed actions, the step limit, the deadline; and what it
 * never shows the model (the session cookie, a typed password).
 */
jest.setTimeout(60_000);

usePlannerServers();

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
    // The model answers far later than the deadline: ending before that answer is what shows the deadline ended it
    // (a bound of a few seconds failed on a busy machine).
    model.setScript(() => ({ delayMs: 20_000, then: { tool: 'wait', args: {} } }));
    const run = await readProfile({ timeoutMs: 1_500 });
    const started = Date.now();
    await expect(plannerStrategy(deps()).run(run.ctx)).rejects.toBeInstanceOf(AgentTimeoutError);
    expect(Date.now() - started).toBeLessThan(20_000);
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
