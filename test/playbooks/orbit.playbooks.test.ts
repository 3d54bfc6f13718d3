import { shapeListToFormat } from '../../server/agent/playbooks/shape-list';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { resolveRecipient } from '../../server/integrations/orbit/playbooks/send-message.playbook';
import { contexts, live, useLiveWorker } from './live-worker-support';
import {
  BAD_POST_PARAMETERS,
  FEED_FORMAT,
  PEOPLE,
  postAgentRequest,
  route,
  routed,
  ROUTED_ACTIONS,
  UNROUTED_ACTIONS,
  writeThenFailPlaybooks,
} from './orbit-playbooks-support';
import { api, collapsed, connectedOrg, expectPlaybookResult, runAction, siteAs } from './playbook-support';

/**
 * The Orbit playbooks: routing by text (no browser), then each playbook for real, end to end: a live
 * AgentLink with its worker and Chromium, a sandbox connection per test (its own copy of Orbit), the
 * request over the API, and the effect checked afterwards on the site in a separate signed-in context.
 * The routing tables, and the test playbooks that write and then fail: orbit-playbooks-support.ts; the live
 * server: live-worker-support.ts.
 */
jest.setTimeout(90_000);

describe('routing (text match, no browser)', () => {
  it.each(ROUTED_ACTIONS)('%s → %s', async (action, parameters, expected) => {
    expect(await routed(action, parameters)).toBe(expected);
  });

  // What no playbook covers (likes, comments, follows, messages … have their own: orbit-social.playbook.test.ts).
  it.each(UNROUTED_ACTIONS)('%s → no playbook', async (action) => {
    const r = await route(action, { text: 'x', recipient: 'priya-nair' });
    expect(r).toMatchObject({ playbook: null, reason: 'no orbit playbook matches the action', problem: { kind: 'no-match' } });
  });

  it('fills inputs from the parameters (with common aliases) and refuses parameters that do not fit', async () => {
    expect(await route('Create a post', { content: ' Hello ', audience: 'Connections' })).toMatchObject({
      playbook: { name: 'orbit.create-post' },
      params: { text: 'Hello', visibility: 'connections' },
    });
    expect(await route('Create a post', { text: 'Hello', visibility: 'everyone' })).toMatchObject({
      params: { text: 'Hello', visibility: 'public' },
    });
    for (const bad of BAD_POST_PARAMETERS) {
      expect(await route('Create a post', bad)).toMatchObject({
        playbook: null,
        reason: expect.stringMatching(/^playbook orbit\.create-post matches, but the request (lacks|has parameters that do not fit)/),
      });
    }
    expect(await route('Read my feed', { limit: '25' })).toMatchObject({ playbook: { name: 'orbit.read-my-feed' }, params: { limit: 25 } });
    for (const bad of [{ limit: 51 }, { limit: 0 }, { limit: 2.5 }, { since: 'yesterday' }]) {
      expect((await route('Read my feed', bad)).playbook).toBeNull();
    }
    expect(await route('Send a message to Priya', { to: 'priya-nair', message: 'Hi there' })).toMatchObject({
      params: { recipient: 'priya-nair', text: 'Hi there' },
    });
    for (const bad of [{ recipient: 'priya-nair' }, { text: 'Hi' }, { recipient: 'priya-nair', text: 'Hi', attachment: 'cv.pdf' }]) {
      expect((await route('Send a message', bad)).playbook).toBeNull();
    }
    // What the parameters lack, the action may say.
    expect(await route('Send a message to Priya', { text: 'Hi' })).toMatchObject({ params: { recipient: 'Priya', text: 'Hi' } });
  });

  it('resolves a recipient by username, name (accents and case ignored) or a unique part of the name', () => {
    expect(resolveRecipient('priya-nair', PEOPLE).username).toBe('priya-nair');
    expect(resolveRecipient('@Priya-Nair', PEOPLE).username).toBe('priya-nair');
    expect(resolveRecipient('diego ramirez', PEOPLE).username).toBe('diego-ramirez');
    expect(resolveRecipient('Grace', PEOPLE).username).toBe('grace-liu');
    expect(() => resolveRecipient('Nobody Special', PEOPLE)).toThrow('nobody called "Nobody Special" can be messaged on Orbit');
    expect(() => resolveRecipient('e', PEOPLE)).toThrow(/could be .*Diego Ramírez \(diego-ramirez\).*give the username/);
  });

  it('fits a list to the responseFormat: item aliases, lists of leaves, values about the list; no list → not applicable', () => {
    const items = [
      { text: 'a', likes: '1,204', author: 'X', tags: ['t1'] },
      { text: 'b', likes: 3, author: 'Y', tags: [] },
    ];
    const read = { items, itemAliases: { author: ['by'] }, extras: { count: 2 }, extraAliases: { count: ['total'] } };
    expect(shapeListToFormat(read, { posts: [{ by: 'string', likes: 'integer', tags: ['string'] }], total: 'integer' })).toEqual({
      posts: [
        { by: 'X', likes: 1204, tags: ['t1'] },
        { by: 'Y', likes: 3, tags: [] },
      ],
      total: 2,
    });
    expect(shapeListToFormat(read, { feed: { texts: ['string'] } })).toEqual({ feed: { texts: ['a', 'b'] } });
    expect(() => shapeListToFormat(read, { text: 'string' })).toThrow(/has no list/);
    expect(() => shapeListToFormat(read, { posts: [{ title: 'string' }] })).toThrow(
      /responseFormat\.posts\[0\]\.title is not something this playbook reads/,
    );
    expect(() => shapeListToFormat(read, { posts: [{ text: 'string' }], cursor: 'string' })).toThrow(/responseFormat\.cursor/);
  });
});

describe('end to end against the simulated Orbit', () => {
  useLiveWorker();

  const start = (path = '/') => live.siteUrl('orbit', path);

  it('orbit.create-post publishes a public post (compose dialog, editor, audience listbox) and it appears on the profile', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Create post org');
    const text = 'Hello from the create-post playbook 👋';
    const responseFormat = { postId: 'string', url: 'url', text: 'string', visibility: 'string', postedAt: 'datetime', author: 'string' };
    const record = await runAction(live, org, {
      action: 'Write a post saying hello to everyone',
      startingUrl: start('/'),
      parameters: { text },
      responseFormat,
    });
    const result = expectPlaybookResult(record, responseFormat, 'orbit.create-post');
    expect(result).toEqual({
      postId: expect.stringMatching(/^\d+$/),
      url: start(`/posts/${result.postId}`),
      text,
      visibility: 'public',
      postedAt: expect.any(String),
      author: 'Grace Goodwin',
    });
    expect(Math.abs(Date.parse(result.postedAt) - Date.parse(record.completedAt))).toBeLessThan(60_000);
    expect(record.trace.map((s: { tool: string }) => s.tool)).toEqual([
      'attempt',
      'navigate',
      'extract',
      'click',
      'select',
      'type',
      'click',
      'done',
    ]);

    // On the site: newest on the profile, and on its own page.
    const page = await siteAs(live, contexts, org.organizationId, 'orbit', '/me');
    const newest = page.getByRole('article').first();
    expect(collapsed(await newest.innerText())).toContain(text);
    expect(await newest.locator(`a[href="/posts/${result.postId}"]`).count()).toBe(1);
    await page.goto(result.url);
    expect(await page.getByRole('article', { name: 'Post by Grace Goodwin' }).filter({ hasText: text }).count()).toBe(1);
  });

  it('orbit.create-post to connections only, with parameter aliases and a multi-line text; others outside the audience do not see it', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Connections post org');
    const text = 'Only for my connections.\nSecond line of the post.';
    const responseFormat = { id: 'string', content: 'string', audience: 'string - public or connections', link: 'url' };
    const record = await runAction(live, org, {
      action: 'Share a quick post with my connections',
      startingUrl: start('/network'),
      parameters: { content: text, audience: 'Connections' },
      responseFormat,
    });
    const result = expectPlaybookResult(record, responseFormat, 'orbit.create-post');
    expect(result).toEqual({
      id: expect.stringMatching(/^\d+$/),
      content: text,
      audience: 'connections',
      link: start(`/posts/${result.id}`),
    });

    const mine = await siteAs(live, contexts, org.organizationId, 'orbit', '/me');
    const card = mine.getByRole('article').first();
    expect(collapsed(await card.innerText())).toContain(collapsed(text));
    expect(collapsed(await card.innerText())).toContain('Connections');
    // user_mfa does not follow user_good: the post is not shown to them.
    const other = await siteAs(live, contexts, org.organizationId, 'orbit', '/in/user_good', 'user_mfa');
    expect(await other.getByRole('article').filter({ hasText: 'Only for my connections.' }).count()).toBe(0);
    expect((await other.goto(result.link))?.status()).toBe(404);
  });

  it('orbit.read-my-feed reads the feed with "Load more" as needed, and the items are what the site shows', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Read feed org');
    const responseFormat = FEED_FORMAT;
    const record = await runAction(live, org, {
      action: 'Read my feed',
      startingUrl: start('/'),
      parameters: { limit: 15 },
      responseFormat,
    });
    const result = expectPlaybookResult(record, responseFormat, 'orbit.read-my-feed');
    expect(result.count).toBe(15);
    expect(result.posts).toHaveLength(15);
    expect(record.trace.filter((s: { target?: string }) => s.target === "button 'Load more posts'")).toHaveLength(1);
    // The newest seeded post (Priya Nair, 14 minutes old): 212 likes, 2 comments, 18 reposts.
    expect(result.posts[0]).toMatchObject({
      author: 'Priya Nair',
      likes: 212,
      comments: 2,
      reposts: 18,
      text: expect.stringMatching(/^We moved our nightly batch to incremental models/),
    });
    for (const p of result.posts) expect(p.url).toMatch(/^http:\/\/orbit\.sandbox\.localhost:\d+\/posts\/\d+$/);
    const times = result.posts.map((p: { postedAt: string }) => Date.parse(p.postedAt));
    expect(times.every((t: number) => Number.isFinite(t))).toBe(true);

    // The same fifteen, in the same order, on the site.
    const page = await siteAs(live, contexts, org.organizationId, 'orbit', '/');
    await page.getByRole('button', { name: 'Load more posts' }).click();
    await page.locator('main article').nth(10).waitFor();
    const shown = await page.locator('main article').allInnerTexts();
    expect(shown.length).toBeGreaterThanOrEqual(15);
    result.posts.forEach((p: { author: string; text: string }, i: number) => {
      expect(collapsed(shown[i]!)).toContain(p.author);
      expect(collapsed(shown[i]!)).toContain(collapsed(p.text));
    });

    // Default limit (10) from an action with no parameters, as a list of leaves.
    const texts = await runAction(live, org, {
      action: 'What is on my timeline?',
      startingUrl: start('/me'),
      responseFormat: { texts: ['string'] },
    });
    expect(expectPlaybookResult(texts, { texts: ['string'] }, 'orbit.read-my-feed').texts).toEqual(
      result.posts.slice(0, 10).map((p: { text: string }) => p.text),
    );

    // More than the playbook reads: without a model nothing else can, and the error names the parameter.
    const tooMany = await runAction(live, org, {
      action: 'Read my feed',
      startingUrl: start('/'),
      parameters: { limit: 80 },
      responseFormat,
    });
    expect(tooMany.status).toBe('FAILED');
    expect(tooMany.error).toMatchObject({
      code: 'PLAYBOOK_PARAMETERS_INVALID',
      message: expect.stringMatching(/^The action matches orbit\.read-my-feed \(score 1\.00\), but parameters\.limit: at most 50 posts/),
      details: { playbook: 'orbit.read-my-feed', missing: ['parameters.limit'] },
    });
    expect(tooMany.method).toBeNull();
  });

  it('orbit.send-message sends a direct message by display name or username, and it is in the conversation', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Send message org');
    const responseFormat = { recipient: 'string', text: 'string', sentAt: 'datetime' };
    const text = 'Thanks for the call, Priya! Talk soon.';
    const record = await runAction(live, org, {
      action: 'Send a message to Priya',
      startingUrl: start('/'),
      parameters: { recipient: 'Priya Nair', text },
      responseFormat,
    });
    const result = expectPlaybookResult(record, responseFormat, 'orbit.send-message');
    expect(result).toEqual({ recipient: 'Priya Nair', text, sentAt: expect.any(String) });

    const page = await siteAs(live, contexts, org.organizationId, 'orbit', '/messaging/priya-nair');
    const last = page.getByRole('list', { name: 'Messages' }).getByRole('listitem').last();
    expect(collapsed(await last.innerText())).toContain(text);
    expect(collapsed(await last.innerText())).toContain('Grace Goodwin');

    // By username, with parameter aliases, to someone with no conversation yet.
    const second = await runAction(live, org, {
      action: 'DM lena-fischer',
      startingUrl: start('/messaging'),
      parameters: { to: 'lena-fischer', message: 'Loved your post about focus styles.' },
      responseFormat: { to: 'string', username: 'string', message: 'string', conversationUrl: 'url' },
    });
    expect(
      expectPlaybookResult(second, { to: 'string', username: 'string', message: 'string', conversationUrl: 'url' }, 'orbit.send-message'),
    ).toEqual({
      to: 'Lena Fischer',
      username: 'lena-fischer',
      message: 'Loved your post about focus styles.',
      conversationUrl: start('/messaging/lena-fischer'),
    });
    await page.goto(start('/messaging'));
    expect(collapsed(await page.getByRole('list', { name: 'Conversations' }).getByRole('listitem').first().innerText())).toContain(
      'You: Loved your post about focus styles.',
    );

    // Nobody by that name: the request fails with the playbook's reason, and nothing is sent.
    const nobody = await runAction(live, org, {
      action: 'Send a message to Nobody',
      startingUrl: start('/'),
      parameters: { recipient: 'Nobody Atall', text: 'Hello?' },
      responseFormat,
    });
    expect(nobody.status).toBe('FAILED');
    expect(nobody.error).toMatchObject({
      code: 'PLAYBOOK_FAILED',
      message: expect.stringContaining('nobody called "Nobody Atall" can be messaged on Orbit'),
    });
    expect(nobody.error.details).toEqual({
      playbook: 'orbit.send-message',
      step: { tool: 'extract', target: `recipient "Nobody Atall" in list 'People'` },
    });
    expect(nobody.trace.find((s: { outcome: string }) => s.outcome === 'error')).toMatchObject({ screenshot: expect.any(String) });

    // As a new user writes it, with no parameters and no model: the playbook matched, and the error says what it lacks.
    const noText = await runAction(live, org, { action: 'Send a message to Priya Nair', startingUrl: start('/'), responseFormat });
    expect(noText).toMatchObject({ status: 'FAILED', method: null });
    expect(noText.error).toMatchObject({
      code: 'PLAYBOOK_PARAMETERS_MISSING',
      message: expect.stringMatching(/^The action matches orbit\.send-message \(score \d\.\d\d\), but it needs parameters\.text/),
      details: {
        playbook: 'orbit.send-message',
        missing: ['parameters.text'],
        model: { configure: expect.arrayContaining(['AGENTLINK_MODEL']) },
      },
    });
    expect(noText.error.message).not.toMatch(/no playbook/i);
  });

  it('a write that happened is never FAILED: fields by meaning, null and a warning for what it cannot fill, and a retry with the same Idempotency-Key does not send again', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Write safety org');
    // As issue #13 reported it: `sent` was read as the send time, and the request FAILED after the message went out.
    const first = 'Running late, sorry! (write safety)';
    const sent = await runAction(live, org, {
      action: `Send a message to Priya Nair saying '${first}'`,
      startingUrl: start('/'),
      responseFormat: { sent: 'boolean' },
    });
    expect(sent).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', result: { sent: true }, warnings: [], error: null });

    // Fields it cannot fill after the message went out: null, named in warnings, and still COMPLETED.
    const second = 'Second message (write safety)';
    const partly = await runAction(live, org, {
      action: `Send a message to Priya Nair saying '${second}'`,
      startingUrl: start('/'),
      responseFormat: { sent: 'boolean', sentAt: 'datetime', readReceipt: 'string?', readBy: 'integer' },
    });
    expect(partly).toMatchObject({
      status: 'COMPLETED',
      method: 'PLAYBOOK',
      result: { sent: true, sentAt: expect.any(String), readReceipt: null, readBy: null },
    });
    expect(partly.warnings).toEqual([
      { code: 'RESULT_FIELD_UNFILLED', path: 'result.readReceipt', message: expect.stringContaining('left null') },
      { code: 'RESULT_FIELD_UNFILLED', path: 'result.readBy', message: expect.stringContaining('left null') },
    ]);

    // The same request sent twice with one Idempotency-Key (a client retrying after a timeout): one request, one message.
    const third = 'Retried once, sent once (write safety)';
    const body = {
      accessToken: org.accessToken,
      action: `Send a message to Priya Nair saying '${third}'`,
      startingUrl: start('/'),
      responseFormat: { sent: 'boolean', sentAt: 'datetime' },
    };
    const post = () => postAgentRequest(live, org, body, 'send-priya-retry-1');
    const created = await post();
    expect(created.status).toBe(202);
    const { requestId } = (await created.json()) as { requestId: string };
    const done = await api(live, org, 'GET', `/api/agent-requests/${requestId}?waitMs=30000`);
    expect(done.body).toMatchObject({ status: 'COMPLETED', result: { sent: true } });
    for (let i = 0; i < 2; i++) {
      const retried = await post();
      expect(retried.status).toBe(202);
      expect(retried.headers.get('idempotent-replayed')).toBe('true');
      expect(((await retried.json()) as { requestId: string }).requestId).toBe(requestId);
    }
    const page = await siteAs(live, contexts, org.organizationId, 'orbit', '/messaging/priya-nair');
    const texts = (await page.getByRole('list', { name: 'Messages' }).getByRole('listitem').allInnerTexts()).map(collapsed);
    for (const text of [first, second, third]) expect(texts.filter((t) => t.includes(text))).toHaveLength(1);
  });

  it('a playbook whose read-back fails after its write completes with nulls and says why; a write step that fails says the change may have been made', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Write read-back org');
    for (const playbook of writeThenFailPlaybooks()) live.services.playbooks.register(playbook);
    try {
      const lost = await runAction(live, org, {
        action: 'test: write then lose the page',
        startingUrl: start('/'),
        responseFormat: { sent: 'boolean', message: { text: 'string' } },
      });
      expect(lost).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', result: { sent: null, message: { text: null } }, error: null });
      expect(lost.warnings).toEqual([
        {
          code: 'RESULT_FIELD_UNFILLED',
          path: 'result.sent',
          message: expect.stringMatching(
            /^test\.write-then-fail made its change \(click button 'Send'\) but could not read the result back: .*the conversation did not load/,
          ),
        },
        { code: 'RESULT_FIELD_UNFILLED', path: 'result.message.text', message: expect.any(String) },
      ]);

      const broken = await runAction(live, org, {
        action: 'test: the write itself breaks',
        startingUrl: start('/'),
        responseFormat: { sent: 'boolean' },
      });
      expect(broken).toMatchObject({ status: 'FAILED', warnings: [] });
      expect(broken.error).toMatchObject({
        code: 'PLAYBOOK_FAILED',
        message: expect.stringContaining('the change may have been made: check before you retry'),
        details: { playbook: 'test.write-fails', write: 'unconfirmed' },
      });
    } finally {
      live.services.playbooks.unregister('test.write-then-fail');
      live.services.playbooks.unregister('test.write-fails');
    }
  });
});
