import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { openPath, pathOf, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { POST_FIELD_ALIASES, readPostCards } from './post-cards';

/**
 * Orbit: read the signed-in user's home feed, newest first. Follows ../site/pages/home.ts: the
 * feed shows ten posts; "Load more posts" appends the next ones (fetched) until "You're all caught up".
 * Each item is read from its card (see post-cards.ts); the result fits a responseFormat holding a list.
 */
export const FEED_MAX = 50;
const FEED_DEFAULT = 10;

const count = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z.number().int().min(1).max(FEED_MAX, `at most ${FEED_MAX} posts are read at once`),
);

const paramsSchema = withParamAliases(
  { limit: ['count', 'max', 'maxPosts', 'number', 'n', 'top', 'first'] },
  z.object({ limit: count.optional() }).strict(),
);

export type OrbitReadFeedParams = z.infer<typeof paramsSchema>;

const FEED_ALIASES = {
  count: ['total', 'numPosts', 'postCount', 'length', 'size', 'returned'],
  hasMore: ['more', 'moreAvailable', 'canLoadMore'],
};

export const orbitReadMyFeed = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.read-my-feed',
  description:
    "Reads the posts of the signed-in user's Orbit home feed, newest first (parameter: limit, at most 50, default 10): author, text, likes, comments, reposts, time, URL.",
  examples: [
    'Read my feed',
    'My feed',
    'Show me my home feed',
    "What's on my timeline?",
    'Get the latest posts from my feed',
    'Summarize the 5 latest posts in my news feed',
    'Read the 20 newest posts in my feed',
    'What are people posting in my feed?',
    'Scroll my home feed and list the posts',
    'Check my news feed for new posts',
  ],
  writes: false,
  fromSentence: { limit: 'count' },
  resultFields: {
    posts: [
      {
        postId: 'string',
        url: 'url',
        author: 'string',
        authorUsername: 'string',
        authorHeadline: 'string?',
        text: 'string',
        visibility: 'string? - public or connections',
        likes: 'integer?',
        comments: 'integer?',
        reposts: 'integer?',
        postedAt: 'datetime?',
        repostedBy: 'string? - who reposted it into the feed',
      },
    ],
    count: 'integer - how many posts were read',
    hasMore: 'boolean - whether the feed has more posts',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    const limit = ctx.params.limit ?? FEED_DEFAULT;
    const origin = new URL(ctx.provider.homeUrl).origin;
    const articles = page.locator('main article');
    const loadMore = page.getByRole('button', { name: 'Load more posts' });
    const caughtUp = page.getByText("You're all caught up");

    if (pathOf(page) !== '/' || (await page.getByRole('heading', { name: 'Home feed' }).count()) === 0)
      await openPath(ctx, '/', 'home feed (/)');
    await ctx.step('wait', 'the first posts of the feed', async () => {
      await until('the feed to show posts', async () => (await articles.count()) > 0 || (await caughtUp.count()) > 0, waitBudget(ctx));
    });

    let shown = await articles.count();
    while (shown < limit && (await loadMore.count()) > 0) {
      const had = shown;
      shown = await ctx.step('click', "button 'Load more posts'", async () => {
        await loadMore.click();
        // While it loads, the button reads "Loading…"; then the posts are appended and it reads "Load more posts"
        // again, or it is replaced by "You're all caught up" (in the same task), or a toast says it failed.
        const outcome = await until<number | { error: string }>(
          'more posts to load',
          async () => {
            const n = await articles.count();
            if (n > had || (await caughtUp.count()) > 0) return n;
            const failed = (await page.getByRole('status').allInnerTexts()).find((t) => /could not load/i.test(t));
            return failed ? { error: failed.replace(/\s*×\s*$/, '').trim() } : undefined;
          },
          waitBudget(ctx),
        );
        if (typeof outcome !== 'number') throw new Error(`Orbit did not load more posts: ${outcome.error}`);
        return outcome;
      });
    }

    const { items, hasMore } = await ctx.step('extract', `${limit} posts of the feed`, async () => {
      const cards = await readPostCards(articles, origin);
      if (cards.length === 0 && (await caughtUp.count()) === 0) throw new Error('no post could be read from the feed');
      return { items: cards.slice(0, limit), hasMore: cards.length > limit || (await loadMore.count()) > 0 };
    });
    return ctx.fitList({
      items: items.map((c) => ({ ...c })),
      itemAliases: POST_FIELD_ALIASES,
      extras: { count: items.length, hasMore },
      extraAliases: FEED_ALIASES,
    });
  },
});
