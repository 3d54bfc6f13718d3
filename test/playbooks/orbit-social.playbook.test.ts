import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { ASKS_FOR_FOLLOWERS } from '../../server/integrations/orbit/playbooks/list-following.playbook';
import { resolvePerson } from '../../server/integrations/orbit/playbooks/people';
import { contexts, live, useLiveWorker } from './live-worker-support';
import {
  ASKING_FOR_FOLLOWERS,
  ASKING_FOR_FOLLOWING,
  completed,
  failed,
  followingOn,
  PEOPLE,
  publishPost,
  route,
  run,
  SOCIAL_ROUTES,
  start,
  WRITING_ACTIONS,
} from './orbit-social-support';
import { collapsed, connectedOrg, expectPlaybookResult, type Json, readable, siteAs } from './playbook-support';

/**
 * Orbit's playbooks for what people ask first (issue #13): their own posts, follower counts, notifications,
 * messages, following and unfollowing, liking, commenting and reposting, who they follow. Routing in plain
 * words and the values read from them first (no browser), then each end to end: a live AgentLink with its
 * worker and Chromium, a sandbox connection per test (its own copy of Orbit), the request over the API in the
 * words people use, and the site's state checked afterwards from a separate signed-in context. The words and
 * what they route to, and the helpers that run requests and read the site: orbit-social-support.ts.
 */
jest.setTimeout(240_000);

describe('routing in plain words, with the values the words carry (no browser)', () => {
  it.each(SOCIAL_ROUTES)('%s → %s %j', async (action, playbook, params) => {
    const r = await route(action);
    if (!r.playbook) throw new Error(`not routed: ${r.reason}`);
    expect(r.playbook.name).toBe(playbook);
    expect(r.params).toEqual(params);
  });

  it('a post is named by the page the request starts on, its URL or its id; a request that names none says which parameter', async () => {
    const post = 'http://orbit.sandbox.localhost:4000/posts/72121000000000000001';
    expect(await route('Like this post', { startingUrl: post })).toMatchObject({ params: { post: '72121000000000000001' } });
    expect(await route('Comment on this post saying great work', { startingUrl: post })).toMatchObject({
      playbook: { name: 'orbit.comment-on-post' },
      params: { post: '72121000000000000001', text: 'great work' },
    });
    expect(await route('Like this post', { parameters: { url: post } })).toMatchObject({ params: { post: '72121000000000000001' } });
    expect(await route('Like this post', { startingUrl: 'http://orbit.sandbox.localhost:4000/' })).toMatchObject({
      playbook: null,
      problem: {
        kind: 'parameters',
        playbook: 'orbit.like-post',
        issues: [{ path: 'parameters.post', message: expect.stringMatching(/say which post/) }],
      },
    });
    expect(await route('Comment on this post', { startingUrl: post })).toMatchObject({
      playbook: null,
      problem: { kind: 'parameters', code: 'PLAYBOOK_PARAMETERS_MISSING', issues: [{ path: 'parameters.text' }] },
    });
    expect(await route('Like this post', { parameters: { post: 'yesterday' } })).toMatchObject({
      problem: { kind: 'parameters', code: 'PLAYBOOK_PARAMETERS_INVALID', issues: [{ path: 'parameters.post' }] },
    });
  });

  it('the followers/following direction comes from the words when the parameters do not give it', () => {
    // Not a parameter the router fills: the playbook reads it, and this is the rule it uses.
    for (const a of ASKING_FOR_FOLLOWERS) expect([a, ASKS_FOR_FOLLOWERS.test(a)]).toEqual([a, true]);
    for (const a of ASKING_FOR_FOLLOWING) expect([a, ASKS_FOR_FOLLOWERS.test(a)]).toEqual([a, false]);
  });

  it('a read-only request never gets a playbook that writes, even when its words match one', async () => {
    for (const action of WRITING_ACTIONS) {
      expect(await route(action, { mode: 'read' })).toMatchObject({ playbook: null, problem: { kind: 'read-only' } });
    }
    expect(await route('Read my messages', { mode: 'read' })).toMatchObject({ playbook: { name: 'orbit.read-messages' } });
  });

  it('resolves a person by user name or name (accents and case ignored), and never guesses', () => {
    expect(resolvePerson('@Priya-Nair', PEOPLE).username).toBe('priya-nair');
    expect(resolvePerson('diego ramirez', PEOPLE).username).toBe('diego-ramirez');
    expect(resolvePerson('Lena', [...PEOPLE, ...PEOPLE]).username).toBe('lena-fischer');
    expect(() => resolvePerson('Nobody Atall', PEOPLE)).toThrow('nobody called "Nobody Atall" was found on Orbit');
    expect(() => resolvePerson('e', PEOPLE)).toThrow(/could be .*give the user name/);
  });
});

describe('end to end against the simulated Orbit', () => {
  useLiveWorker();

  it('reads my own posts (last N, reposts aside, one post for a format without a list) and someone else’s; reposts one', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'My posts org');
    const site = await siteAs(live, contexts, org.organizationId, 'orbit', '/');
    await publishPost(site, 'First of two new posts: the roadmap is out.');
    await publishPost(site, 'Second of two new posts: we are hiring a designer.');

    // A repost is the user's activity too, but not a post they wrote.
    const repostFormat = { reposted: 'boolean', alreadyReposted: 'boolean', author: 'string', reposts: 'integer', url: 'url' };
    const reposted = await completed(org, 'orbit.repost-post', "Repost Marcus Webb's latest post", repostFormat);
    expect(reposted).toMatchObject({ reposted: true, alreadyReposted: false, author: 'Marcus Webb', reposts: 98 });
    const again = await completed(org, 'orbit.repost-post', 'Repost this post', repostFormat, { startingUrl: reposted.url });
    expect(again).toMatchObject({ reposted: true, alreadyReposted: true, reposts: 98 });

    const format = {
      posts: [{ text: 'string', likes: 'integer', postedAt: 'datetime', url: 'url' }],
      count: 'integer',
      hasMore: 'boolean',
    };
    const mine = await completed(org, 'orbit.read-posts', 'Read my last 2 posts', format);
    expect(mine.posts.map((p: Json) => p.text)).toEqual([
      'Second of two new posts: we are hiring a designer.',
      'First of two new posts: the roadmap is out.',
    ]);
    expect(mine).toMatchObject({ count: 2, hasMore: true });
    const all = await completed(org, 'orbit.read-posts', 'Show my posts', { posts: ['string'] });
    expect(all.posts).toEqual([
      'Second of two new posts: we are hiring a designer.',
      'First of two new posts: the roadmap is out.',
      'Excited to share that our team just launched one-click onboarding. Grateful to everyone who tested the early versions!',
    ]);
    // The profile shows the repost among them (newest first): the playbook left it out on purpose.
    await site.goto(start('/me'));
    expect(await site.locator('#activity-section article').first().getAttribute('aria-label')).toBe(
      'Grace Goodwin reposted a post by Marcus Webb',
    );

    const one = await completed(org, 'orbit.read-posts', 'How many likes did my last post get?', { likes: 'integer', text: 'string' });
    expect(one).toEqual({ likes: 0, text: 'Second of two new posts: we are hiring a designer.' });

    const priya = await completed(org, 'orbit.read-posts', 'Show the posts by Priya Nair', {
      posts: [{ author: 'string', text: 'string' }],
      count: 'integer',
    });
    expect(priya.count).toBe(3);
    expect(priya.posts.every((p: Json) => p.author === 'Priya Nair')).toBe(true);
    expect(priya.posts[0].text).toMatch(/^We moved our nightly batch/);
    expect(priya.posts[2].text).toMatch(/^Data quality is a product/);
  });

  it('reads my follower and following counts, and who I follow and who follows me', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Follow counts org');
    const counts = await completed(org, 'orbit.read-my-profile', 'How many followers do I have?', {
      followers: 'integer',
      following: 'integer',
    });
    // 1,284 in the wider network plus Jonas Berg here; 391 plus Priya Nair and Marcus Webb.
    expect(counts).toEqual({ followers: 1285, following: 393 });
    const site = await siteAs(live, contexts, org.organizationId, 'orbit', '/me');
    expect(collapsed(await site.locator('ul[aria-label="Audience"]').innerText())).toBe('1,285 followers 393 following');

    const peopleFormat = { people: [{ name: 'string', username: 'string', profileUrl: 'url' }], count: 'integer' };
    const following = await completed(org, 'orbit.list-following', 'Who do I follow?', peopleFormat);
    expect(following.count).toBe(2);
    expect(following.people.map((p: Json) => p.username).sort()).toEqual(['marcus-webb', 'priya-nair']);
    expect(following.people.find((p: Json) => p.username === 'priya-nair')).toEqual({
      name: 'Priya Nair',
      username: 'priya-nair',
      profileUrl: start('/in/priya-nair'),
    });
    expect((await followingOn(site)).sort()).toEqual(['Marcus Webb', 'Priya Nair']);
    // A person gets there from the home page's "Following".
    await site.goto(start('/'));
    await site
      .getByRole('complementary', { name: 'Your profile summary' })
      .getByRole('link', { name: /^Following/ })
      .click();
    await site.getByRole('heading', { name: 'People you follow', level: 1 }).waitFor();

    const followers = await completed(org, 'orbit.list-following', 'Who follows me?', { names: ['string'], direction: 'string' });
    expect(followers).toEqual({ names: ['Jonas Berg'], direction: 'followers' });
    const hers = await completed(org, 'orbit.list-following', 'Who follows Priya Nair?', { names: ['string'] });
    expect(hers.names).toEqual(expect.arrayContaining(['Grace Goodwin', 'Milo Fairbanks']));
  });

  it('follows and unfollows a person by name (idempotent, confirmed, checked on the site); nobody by that name is an error, and read mode never follows', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Follow org');
    const site = await siteAs(live, contexts, org.organizationId, 'orbit', '/');
    const format = { following: 'boolean', alreadyFollowing: 'boolean', name: 'string', username: 'string', followers: 'integer' };

    // Read mode: the request is refused before anything runs, and nothing changes.
    const readOnly = await run(org, 'Start following Lena Fischer', format, { mode: 'read' });
    expect(readOnly.status).toBe('FAILED');
    expect(readOnly.method).toBeNull();
    expect(await followingOn(site)).not.toContain('Lena Fischer');

    const followed = await completed(org, 'orbit.follow-person', 'Start following Lena Fischer', format);
    expect(followed).toEqual({ following: true, alreadyFollowing: false, name: 'Lena Fischer', username: 'lena-fischer', followers: 1933 });
    expect(await followingOn(site)).toContain('Lena Fischer');
    await site.goto(start('/in/lena-fischer'));
    expect(await site.getByRole('button', { name: 'Following Lena Fischer' }).count()).toBe(1);

    // Once more: nothing changes, and the result says it was so already.
    const twice = await completed(org, 'orbit.follow-person', 'Follow @lena-fischer', format);
    expect(twice).toMatchObject({ following: true, alreadyFollowing: true, followers: 1933 });
    expect((await followingOn(site)).filter((n) => n === 'Lena Fischer')).toHaveLength(1);

    const unfollowFormat = { unfollowed: 'boolean', wasFollowing: 'boolean', name: 'string', followers: 'integer' };
    const unfollowed = await completed(org, 'orbit.unfollow-person', 'Stop following Lena Fischer', unfollowFormat);
    expect(unfollowed).toEqual({ unfollowed: true, wasFollowing: true, name: 'Lena Fischer', followers: 1932 });
    expect(await followingOn(site)).not.toContain('Lena Fischer');
    const record = await run(org, 'Stop following Lena Fischer', unfollowFormat);
    expect(expectPlaybookResult(record, unfollowFormat, 'orbit.unfollow-person')).toMatchObject({ unfollowed: true, wasFollowing: false });
    expect(record.trace.some((s: Json) => /Unfollow/.test(s.target))).toBe(false);

    const nobody = await run(org, 'Follow Nobody Atall', format);
    failed(nobody, 'PLAYBOOK_FAILED', 'nobody called "Nobody Atall" was found on Orbit');
    expect((await followingOn(site)).sort()).toEqual(['Marcus Webb', 'Priya Nair']);
  });

  it('likes the latest post of a person (once: liking again does not take it back), and from the post page; an unknown person is an error', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Like org');
    const format = { liked: 'boolean', alreadyLiked: 'boolean', author: 'string', text: 'string', likes: 'integer', url: 'url' };
    const liked = await completed(org, 'orbit.like-post', 'Like the latest post by Priya Nair', format);
    expect(liked).toMatchObject({
      liked: true,
      alreadyLiked: false,
      author: 'Priya Nair',
      likes: 213,
      text: expect.stringMatching(/^We moved our nightly batch/),
    });

    const site = await siteAs(live, contexts, org.organizationId, 'orbit', new URL(liked.url).pathname);
    const card = site.getByRole('article').first();
    expect(await card.getByRole('button', { name: 'Like', exact: true }).getAttribute('aria-pressed')).toBe('true');
    expect(collapsed(await card.innerText())).toContain('213 likes');

    const again = await completed(org, 'orbit.like-post', 'Like this post', format, { startingUrl: liked.url });
    expect(again).toMatchObject({ liked: true, alreadyLiked: true, likes: 213 });
    await site.reload();
    expect(await site.getByRole('article').first().getByRole('button', { name: 'Like', exact: true }).getAttribute('aria-pressed')).toBe(
      'true',
    );

    failed(await run(org, 'Like the latest post by Nobody Atall', format), 'PLAYBOOK_FAILED', 'nobody called "Nobody Atall"');
    failed(
      await run(org, 'Like this post', format, { parameters: { post: '72999999999999999999' } }),
      'PLAYBOOK_FAILED',
      'Orbit shows no post 72999999999999999999 to this account',
    );
  });

  it('comments on the latest post of a person, and the comment is under the post', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Comment org');
    const text = 'Congratulations on the milestone, Marcus!';
    const format = {
      commented: 'boolean',
      text: 'string',
      commentAuthor: 'string',
      commentedAt: 'datetime',
      postUrl: 'url',
      postAuthor: 'string',
      comments: 'integer',
    };
    const record = await run(org, `Comment '${text}' on Marcus Webb's latest post`, format);
    const result = expectPlaybookResult(record, format, 'orbit.comment-on-post');
    expect(result).toMatchObject({ commented: true, text, commentAuthor: 'Grace Goodwin', postAuthor: 'Marcus Webb', comments: 3 });
    expect(Math.abs(Date.parse(result.commentedAt) - Date.parse(record.completedAt))).toBeLessThan(60_000);

    const site = await siteAs(live, contexts, org.organizationId, 'orbit', new URL(result.postUrl).pathname);
    const last = site.locator('section#comments ol > li').last();
    expect(collapsed(await last.innerText())).toContain(text);
    expect(collapsed(await last.innerText())).toContain('Grace Goodwin');
  });

  it('reads notifications (read mode leaves them unread; the site marks them seen when a person opens them)', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Notifications org');
    const format = {
      notifications: [{ text: 'string', type: 'string', actor: 'string?', url: 'url', at: 'datetime', unread: 'boolean' }],
      count: 'integer',
      unreadCount: 'integer',
    };
    // Read mode: the page's own "mark as seen" request (POST /notifications/read) is not sent, and the trace says so.
    const inReadMode = async (action: string, responseFormat: Record<string, unknown>) => {
      const record = await run(org, action, responseFormat, { mode: 'read' });
      if (record.status !== 'COMPLETED') throw new Error(`expected COMPLETED, got:\n${readable(record)}`);
      expect(record.method).toBe('PLAYBOOK');
      const blocked = record.trace.filter((s: Json) => s.outcome !== 'ok');
      for (const step of blocked)
        expect(step).toMatchObject({ outcome: 'blocked', target: expect.stringMatching(/\/notifications\/read$/) });
      return { result: record.result, blocked };
    };
    const { result: first, blocked } = await inReadMode('List my notifications', format);
    expect(blocked).toHaveLength(1);
    expect(first.count).toBe(4);
    expect(first.unreadCount).toBe(2);
    expect(first.notifications[0]).toEqual({
      text: 'Priya Nair liked your post',
      type: 'like',
      actor: 'Priya Nair',
      url: start('/posts/7213100000000000000'),
      at: expect.any(String),
      unread: true,
    });
    expect(first.notifications.map((n: Json) => n.type)).toEqual(['like', 'comment', 'follow', 'profile-view']);
    expect(first.notifications[3].actor).toBe('Hannah Cole');

    const { result: unread } = await inReadMode('Do I have any new notifications?', {
      notifications: [{ text: 'string' }],
      count: 'integer',
    });
    expect(unread.count).toBe(2);

    // In read_write mode the page's own "seen" request goes out, as for anyone who opens it.
    await completed(org, 'orbit.read-notifications', 'Read my notifications', format);
    const { result: after } = await inReadMode('Read my notifications', format);
    expect(after).toMatchObject({ count: 4, unreadCount: 0 });
  });

  it('reads the inbox and the unread conversations without marking anything read', async () => {
    const org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Messages org');
    const format = {
      conversations: [
        { with: 'string', username: 'string', lastMessage: 'string', fromMe: 'boolean', unread: 'integer', conversationUrl: 'url' },
      ],
      count: 'integer',
      unreadMessages: 'integer',
    };
    const all = await completed(org, 'orbit.read-messages', 'Read my messages', format);
    expect(all).toEqual({
      conversations: [
        {
          with: 'Priya Nair',
          username: 'priya-nair',
          lastMessage: 'Perfect, I will send an invite for 3pm. Talk soon!',
          fromMe: false,
          unread: 1,
          conversationUrl: start('/messaging/priya-nair'),
        },
        {
          with: 'Jonas Berg',
          username: 'jonas-berg',
          lastMessage: 'Likewise, Jonas! Let me know when you are in town again.',
          fromMe: true,
          unread: 0,
          conversationUrl: start('/messaging/jonas-berg'),
        },
      ],
      count: 2,
      unreadMessages: 1,
    });
    const unread = await completed(org, 'orbit.read-messages', 'Do I have any unread messages?', {
      conversations: [{ with: 'string' }],
      unreadMessages: 'integer',
    });
    expect(unread).toEqual({ conversations: [{ with: 'Priya Nair' }], unreadMessages: 1 });

    // Still unread on the site: the nav badge counts it.
    const site = await siteAs(live, contexts, org.organizationId, 'orbit', '/');
    expect(
      await site.evaluate(async () => (await (await fetch('/badges', { headers: { accept: 'application/json' } })).json()).messages),
    ).toBe(1);
  });
});
