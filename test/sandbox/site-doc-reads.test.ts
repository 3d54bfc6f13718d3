import request from 'supertest';

import { describeEachStore, type TestApp } from '../support/app';
import { createOrg } from '../support/helpers';

/**
 * A sandbox site's page reads the lists it shows together as one statement (site-app.ts: the lists asked for in the
 * same tick are batched), never from a cache: what a request wrote, its next read sees.
 */
describeEachStore('sandbox site document reads', (t: TestApp) => {
  const HOST = 'orbit.sandbox.localhost';

  async function signedInCookie(): Promise<string> {
    const org = await createOrg(t);
    const state = await t.services.siteSessions.mint({ organizationId: org.organizationId, environment: 'sandbox' }, 'orbit', 'user_good');
    return state.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  }

  function countReads() {
    const repo = t.store.repos.sandboxDocs;
    const batched = jest.spyOn(repo, 'listKinds');
    const single = jest.spyOn(repo, 'list');
    return {
      counts: () => ({
        statements: batched.mock.calls.length + single.mock.calls.length,
        kinds: batched.mock.calls.map((c) => [...c[2]].sort()),
      }),
      restore: () => {
        batched.mockRestore();
        single.mockRestore();
      },
    };
  }

  it('reads the feed page’s lists (people, posts, comments, follows) in one statement, and shows them', async () => {
    const cookie = await signedInCookie();
    await request(t.app).get('/').set('Host', HOST).set('Cookie', cookie).expect(200); // the tenant's copy seeded
    const reads = countReads();
    try {
      const res = await request(t.app).get('/').set('Host', HOST).set('Cookie', cookie).expect(200);
      expect(res.text).toMatch(/<article/);
      const { statements, kinds } = reads.counts();
      expect(kinds[0]).toEqual(['comment', 'follow', 'person', 'post']);
      // The feed's World in one; the unread counts the layout shows after it in at most two more.
      expect(statements).toBeLessThanOrEqual(3);
    } finally {
      reads.restore();
    }
  });

  it('shows a write in the next read (lists are batched, never cached)', async () => {
    const cookie = await signedInCookie();
    const home = await request(t.app).get('/').set('Host', HOST).set('Cookie', cookie).expect(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home.text)?.[1];
    expect(csrf).toBeDefined();
    const text = `A post written and read back ${Date.now()}`;
    const posted = await request(t.app).post('/posts').set('Host', HOST).set('Cookie', cookie).type('form').send({ _csrf: csrf, text });
    expect(posted.status).toBeLessThan(400);
    const after = await request(t.app).get('/').set('Host', HOST).set('Cookie', cookie).expect(200);
    expect(after.text).toContain(text);
  });
});
