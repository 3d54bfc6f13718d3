import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { openPath, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { findPerson, openProfile, personParameter } from './people';
import { POST_FIELD_ALIASES, readPostCards } from './post-cards';

/**
 * Orbit: read the posts a person wrote, newest first: the signed-in user's own, or someone else's when the
 * request names them ("Show the posts by Priya Nair"; a "my …" playbook must not answer that with the user's
 * own). Follows ../site/pages/people.ts: /me (or the person's /in/<username>) is the profile, whose
 * "Activity" section lists the posts and reposts they shared. Only the posts they wrote are read (reposts are
 * other people's posts); each from its card (post-cards.ts).
 */
const POSTS_MAX = 50;
const POSTS_DEFAULT = 10;

const paramsSchema = withParamAliases(
  { limit: ['count', 'max', 'maxPosts', 'number', 'n', 'top', 'first', 'last'], person: ['author', 'by', 'user', 'username', 'name'] },
  z
    .object({
      person: personParameter.optional(),
      limit: z
        .preprocess(
          (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
          z.number().int().min(1).max(POSTS_MAX, `at most ${POSTS_MAX} posts are read at once`),
        )
        .optional(),
    })
    .strict(),
);

const holdsList = (node: unknown): boolean =>
  Array.isArray(node) || (typeof node === 'object' && node !== null && Object.values(node).some(holdsList));

export type OrbitReadMyPostsParams = z.infer<typeof paramsSchema>;

export const orbitReadPosts = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.read-posts',
  description: `Reads the posts a person wrote on Orbit, newest first: the signed-in user's own unless person names someone (parameters: person, limit at most ${POSTS_MAX}, default ${POSTS_DEFAULT}): text, likes, comments, reposts, time, URL.`,
  examples: [
    'Read my last 5 posts',
    'Show my posts',
    'What did I post recently?',
    'List my own posts with their likes',
    'Get my latest post',
    'How many likes did my last post get?',
    'Read the posts I wrote',
    'My posts',
    'Show the posts by Priya Nair',
    "Read Marcus Webb's latest 3 posts",
    'What has @lena-fischer posted lately?',
  ],
  writes: false,
  fromSentence: { limit: 'count', person: 'person' },
  resultFields: {
    posts: [
      {
        postId: 'string',
        url: 'url',
        text: 'string',
        visibility: 'string? - public or connections',
        likes: 'integer?',
        comments: 'integer?',
        reposts: 'integer?',
        postedAt: 'datetime?',
        author: 'string',
        authorUsername: 'string',
      },
    ],
    count: 'integer - how many posts were read',
    hasMore: 'boolean - whether they wrote more posts than were read',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    const limit = ctx.params.limit ?? POSTS_DEFAULT;
    if (ctx.params.person) await openProfile(ctx, await findPerson(ctx, ctx.params.person));
    else await openPath(ctx, '/me', 'my profile (/me)');
    const mine = await ctx.step('extract', "posts in section 'Activity'", async () => {
      const activity = page.locator('#activity-section');
      await activity.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      const username = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
      const cards = await readPostCards(activity.locator('article'), new URL(ctx.provider.homeUrl).origin);
      return cards.filter((c) => !c.repostedBy && c.authorUsername === username);
    });
    const items = mine.slice(0, limit);
    // "How many likes did my last post get?" asks for one post: a format without a list gets the newest.
    if (!holdsList(ctx.responseFormat)) {
      if (!items[0]) throw new Error(`${ctx.params.person ?? 'the signed-in user'} has not posted anything on Orbit yet`);
      return ctx.fit({ ...items[0] }, POST_FIELD_ALIASES);
    }
    return ctx.fitList({
      items: items.map((c) => ({ ...c })),
      itemAliases: POST_FIELD_ALIASES,
      extras: { count: items.length, hasMore: mine.length > limit },
      extraAliases: { count: ['total', 'numPosts', 'postCount', 'length', 'size', 'returned'], hasMore: ['more', 'moreAvailable'] },
    });
  },
});
