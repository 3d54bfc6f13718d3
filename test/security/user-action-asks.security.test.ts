import { MASK, summarizeHeldWrite } from '../../server/agent/handoff/held-write';
import type { RunState } from '../../server/agent/run/state';
import type { HeldWrite } from '../../server/egress/change-gate';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { createRequest, eventually, type Json } from '../agent/agent-support';
import { requestWhen, runPage, widgetFor } from '../agent-handoff/handoff-support';
import {
  cancel,
  CODE,
  CODE2,
  currentAsk,
  expectRefusedView,
  holds,
  live,
  type Paused,
  pausedRun,
  socket,
  useUserActionServer,
  victim,
  victimConn,
} from './user-action-support';

/**
 * Attacks on a paused run's widget (see user-action.security.test.ts, same category), this file: the asks and the
 * decisions:
 *   - a token whose ask is over (answered, the run working on, a later ask, expired): no answer, no input;
 *   - malformed, oversized and mismatched decisions; the held write's summary (credentials, tokens, parameters).
 */
jest.setTimeout(120_000);

useUserActionServer();

describe('paused run widget: user actions', () => {
  it('refuses input while the run works and on a later ask, and answers of a token whose ask is over (USER_ACTION_OVER)', async () => {
    const run = await pausedRun(victim, victimConn, { hold: true, twice: true });
    const person = widgetFor(live, run.linkToken);
    expect((await person.start()).status).toBe(200);
    const s = socket(person.id);
    await s.hello(run.linkToken);
    await s.until((m) => m.type === 'run' && m.state === 'waiting');
    const page = runPage(live, run.requestId);

    // Control: while this token's ask is open, its input reaches the page (the run sees the code and goes on).
    await s.typeInto(page, '#code', CODE);
    await eventually(
      async () => s.runState,
      (state) => state === 'working',
    );
    expect(await page.inputValue('#code')).toBe(CODE);
    expect(currentAsk(run.requestId)).toBeNull();

    // The run works now (held by the test): the same socket's clicks, keys and text do not reach the page.
    await s.typeInto(page, '#note', 'typed while the run works', 'both');
    s.send({ t: 'keydown', key: 'Backspace' });
    s.send({ t: 'keyup', key: 'Backspace' });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await page.inputValue('#note')).toBe('');
    expect(await page.inputValue('#code')).toBe(CODE);
    // Answered (the run saw the step done): the token answers nothing any more, from its session or a new one.
    expect(await person.answer('done')).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
    const again = widgetFor(live, run.linkToken);
    expect((await again.start()).body.userAction).toMatchObject({ state: 'over', reason: null, message: null });
    expect(await again.answer('done')).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
    // … nor opens a view of the run any more (its holder may still have this one open: it only shows the run going on).
    const late = socket(again.id);
    await late.hello(run.linkToken);
    await expectRefusedView(late, { over: true });

    // The run asks again, with a token of its own: the first token's socket cannot type into this ask either.
    holds.get(run.requestId)!();
    const second = await eventually(
      async () => currentAsk(run.requestId),
      (a) => a !== null,
    );
    expect(second!.linkToken).not.toBe(run.linkToken);
    await eventually(
      async () => s.messages.filter((m) => m.type === 'run').length,
      (n) => n >= 3, // waiting, working (resumed), working (the next ask is not this token's)
    );
    expect(s.runState).toBe('working');
    await s.typeInto(page, '#code2', CODE2, 'both');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await page.inputValue('#code2')).toBe('');
    expect(await again.answer('done')).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
    expect(currentAsk(run.requestId)?.linkToken).toBe(second!.linkToken);

    // Its own token answers it; once the run ended, that token answers nothing either.
    const next = widgetFor(live, second!.linkToken);
    expect((await next.start()).body.userAction).toMatchObject({ state: 'waiting', message: 'Enter the second code.' });
    expect((await next.answer('done')).status).toBe(200);
    const done = await requestWhen(live, victim, run.requestId, ['COMPLETED', 'FAILED']);
    expect(done).toMatchObject({ status: 'COMPLETED', result: { code: CODE, note: '', code2: '' } });
    const after = widgetFor(live, second!.linkToken);
    expect((await after.start()).body.userAction).toMatchObject({ state: 'over' });
    expect(await after.answer('done')).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
  });

  it('refuses the answer, a new session and a view of a token whose ask expired; the run ended USER_ACTION_EXPIRED', async () => {
    const desk = live.services.handoffs.desk as { ttlMs: number };
    const ttl = desk.ttlMs;
    // 8 s: long enough for a loaded machine to see the pause (and start a session on it) before it expires.
    desk.ttlMs = 8000;
    let run: Paused;
    try {
      run = await pausedRun();
    } finally {
      desk.ttlMs = ttl;
    }
    const person = widgetFor(live, run.linkToken);
    expect((await person.start()).status).toBe(200);
    const ended = await requestWhen(live, victim, run.requestId, ['FAILED', 'COMPLETED', 'CANCELED'], 30_000);
    expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'USER_ACTION_EXPIRED' } });
    const answered = await person.answer('done');
    // A link after its step is over says so (issue 35), never a connection link's "expired": refused all the same.
    expect(answered).toMatchObject({ status: 409, body: { error: { code: 'USER_ACTION_OVER' } } });
    expect((await widgetFor(live, run.linkToken).start()).body.error.code).toBe('USER_ACTION_OVER');
    const s = socket(person.id);
    await s.hello(run.linkToken);
    await expectRefusedView(s);
  });

  it('refuses decisions outside done/approve/deny, unknown fields and bodies over the limit; nothing is decided', async () => {
    const run = await pausedRun();
    const w = widgetFor(live, run.linkToken);
    expect((await w.start()).status).toBe(200);
    const send = async (body: string, type = 'application/json') => {
      const res = await fetch(`${live.baseUrl}/link/api/sessions/${w.id}/user-action`, {
        method: 'POST',
        headers: { authorization: `Bearer ${run.linkToken}`, 'content-type': type },
        body,
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    for (const decision of ['exit', 'DONE', 'yes', '', null, 1, true, ['done'], { decision: 'done' }]) {
      const res = await send(JSON.stringify({ decision }));
      expect({ decision, status: res.status, code: res.body.error?.code }).toEqual({ decision, status: 400, code: 'INVALID_FIELD' });
    }
    for (const body of ['{}', JSON.stringify({ decision: 'done', force: true }), '{"decision":"done","__proto__":{"x":1}}', '[]']) {
      const res = await send(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    expect((await send('done', 'text/plain')).status).toBe(415);
    const limit = live.services.config.bodyLimitBytes;
    const big = await send(JSON.stringify({ decision: 'done', pad: 'x'.repeat(limit) }));
    expect(big.status).toBe(413);
    // Still waiting on the same ask, and the session still at its step.
    expect(currentAsk(run.requestId)?.linkToken).toBe(run.linkToken);
    expect((await live.services.store.repos.linkSessions.findById(w.id))!.status).toBe('USER_ACTION');
    expect((await cancel(victim, run.requestId)).status).toBe('CANCELED');
  });

  it('refuses approve or deny on a CODE ask and done on an APPROVAL ask (LINK_STEP_NOT_ALLOWED); the ask stays open', async () => {
    const run = await pausedRun();
    const w = widgetFor(live, run.linkToken);
    expect((await w.start()).status).toBe(200);
    for (const decision of ['approve', 'deny']) {
      const res = await w.answer(decision);
      expect({ decision, status: res.status, code: res.body.error?.code }).toEqual({
        decision,
        status: 409,
        code: 'LINK_STEP_NOT_ALLOWED',
      });
    }
    expect(currentAsk(run.requestId)?.linkToken).toBe(run.linkToken);
    // The right answer still goes through: the run goes on (the code box is empty: the playbook returns what it reads).
    expect((await w.answer('done')).status).toBe(200);
    expect(await requestWhen(live, victim, run.requestId, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED' });

    // A write held for approval (the real orbit.create-post): "done" does not send it.
    const text = `Held ${Date.now()}`;
    const requestId = await createRequest(live, victim, {
      accessToken: victimConn.accessToken,
      action: 'Create a post',
      playbook: 'orbit.create-post',
      parameters: { text },
      approval: 'writes',
      startingUrl: live.siteUrl('orbit', '/'),
      responseFormat: { text: 'string', url: 'url?' },
    });
    const waiting = await requestWhen(live, victim, requestId, ['NEEDS_USER', 'FAILED', 'COMPLETED']);
    expect(waiting.userAction).toMatchObject({ reason: 'APPROVAL' });
    const a = widgetFor(live, waiting.userAction.linkToken);
    expect((await a.start()).status).toBe(200);
    const done = await a.answer('done');
    expect(done).toMatchObject({ status: 409, body: { error: { code: 'LINK_STEP_NOT_ALLOWED' } } });
    expect(currentAsk(requestId)?.reason).toBe('APPROVAL');
    const posts = async () =>
      (await live.services.store.repos.sandboxDocs.list(tenantFor(victim.organizationId), 'orbit', 'post')).filter((d) =>
        String(d.data.text ?? '').includes(text),
      ).length;
    expect(await posts()).toBe(0);
    expect((await a.answer('deny')).status).toBe(200);
    expect(await requestWhen(live, victim, requestId, ['COMPLETED', 'FAILED'])).toMatchObject({
      status: 'FAILED',
      error: { code: 'DENIED_BY_USER' },
    });
    expect(await posts()).toBe(0);
  });

  describe("the held write's summary (what the person and the caller are shown)", () => {
    const USERNAME = 'user_good';
    const PASSWORD = 'pass_good';
    const TEXT = 'Meet me at the harbour at noon';
    const RECIPIENT = 'Priya Nair';
    /** A session cookie's value as the sandbox makes them (32 random bytes, base64url), and a CSRF token. */
    const COOKIE = 'q3V9xT0bL7mZ2wK8rP4nJ6hD1fG5sA0cE9uY3iO7kWz';
    const CSRF = 'Zx81Qw72Er63Ty54Ui45Op36As27Df18';
    const state = {
      secrets: [USERNAME, PASSWORD],
      record: { parameters: { text: TEXT, to: RECIPIENT, count: 3 } },
    } as unknown as Pick<RunState, 'secrets' | 'record'>;
    const held = (contentType: string, body: string | Buffer, url = 'https://orbit.example/api/send'): HeldWrite => ({
      method: 'POST',
      url,
      realm: 'page',
      contentType,
      body: Buffer.from(body),
    });
    const inClear = [USERNAME, PASSWORD, TEXT, RECIPIENT, COOKIE, CSRF];
    const expectNothingInClear = (summary: unknown) => {
      const shown = JSON.stringify(summary);
      for (const secret of inClear) expect({ secret, shown: shown.includes(secret) }).toEqual({ secret, shown: false });
    };
    const field = (summary: { fields: { name: string; value: string }[] }, name: string) =>
      summary.fields.find((f) => f.name === name)?.value;

    it('masks a form body: the password, the sign-in name, CSRF and cookie values, parameters by name', () => {
      const body = new URLSearchParams({
        _csrf: CSRF,
        username: USERNAME,
        password: PASSWORD,
        text: TEXT,
        to: RECIPIENT,
        note: `my password is ${PASSWORD}, my handle ${USERNAME}`,
        authenticity_token: CSRF,
        session: COOKIE,
        echoed: COOKIE,
      }).toString();
      const summary = summarizeHeldWrite(
        held(
          'application/x-www-form-urlencoded',
          body,
          `https://orbit.example/api/send?to=${encodeURIComponent(RECIPIENT)}&sid=${COOKIE}&pw=${PASSWORD}`,
        ),
        state,
      );
      expectNothingInClear(summary);
      expect(field(summary, 'password')).toBe(MASK);
      expect(field(summary, '_csrf')).toBe(MASK);
      expect(field(summary, 'text')).toBe('{{parameters.text}}');
      expect(field(summary, 'to')).toBe('{{parameters.to}}');
      expect(field(summary, 'note')).toBe('my password is [secret], my handle [secret]');
      expect(summary.url).toBe('https://orbit.example/api/send?to={{parameters.to}}&sid=[token]&pw=[secret]');
    });

    it('masks a JSON body, whatever the path or the escaping', () => {
      const body = JSON.stringify({
        account: { user: USERNAME, secret: PASSWORD },
        message: { text: TEXT, to: [RECIPIENT] },
        meta: { hint: PASSWORD.replace('p', '\\u0070') },
        headers: { 'X-CSRF-Token': CSRF, cookie: `sid=${COOKIE}` },
        blob: COOKIE,
      }).replace('\\\\u0070', '\\u0070');
      const summary = summarizeHeldWrite(held('application/json', body), state);
      expectNothingInClear(summary);
      expect(field(summary, 'account.secret')).toBe(MASK);
      expect(field(summary, 'account.user')).toBe('[secret]');
      expect(field(summary, 'message.text')).toBe('{{parameters.text}}');
      expect(field(summary, 'message.to[0]')).toBe('{{parameters.to}}');
      expect(field(summary, 'meta.hint')).toBe('[secret]');
      expect(field(summary, 'headers.X-CSRF-Token')).toBe(MASK);
      expect(field(summary, 'blob')).toBe('[token]');
    });

    it('masks a multipart body: fields and a file named like the password (its bytes are never shown)', () => {
      const boundary = '----agentlinkBoundary7MA4YWxk';
      const part = (name: string, value: string, filename?: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n` +
        `${filename ? 'Content-Type: text/plain\r\n' : ''}\r\n${value}\r\n`;
      const body =
        part('csrf_token', CSRF) +
        part('login', USERNAME) +
        part('pass', PASSWORD) +
        part('caption', `${TEXT} (for ${RECIPIENT})`) +
        part('upload', `password=${PASSWORD}\ncookie=${COOKIE}`, `${PASSWORD}.txt`) +
        `--${boundary}--\r\n`;
      const summary = summarizeHeldWrite(held(`multipart/form-data; boundary=${boundary}`, body), state);
      expectNothingInClear(summary);
      expect(field(summary, 'csrf_token')).toBe(MASK);
      expect(field(summary, 'pass')).toBe(MASK);
      expect(field(summary, 'login')).toBe('[secret]');
      expect(field(summary, 'caption')).toBe('{{parameters.text}} (for {{parameters.to}})');
      expect(field(summary, 'upload')).toMatch(/^<file \[secret\]\.txt, \d+ bytes>$/);
    });

    it("masks the run's cookie values copied into a field with a neutral name (a lowercase session id is no token shape)", () => {
      const sid = 'a3f09c4e7b1d2e5f';
      const summary = summarizeHeldWrite(held('application/x-www-form-urlencoded', `ref=${sid}&text=hello`), state, [sid]);
      expect(JSON.stringify(summary)).not.toContain(sid);
      expect(field(summary, 'ref')).toBe('[secret]');
    });
  });
});
