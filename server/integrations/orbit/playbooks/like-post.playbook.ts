import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { clickToSend, collapse, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { personParameter } from './people';
import { POST_FIELD_ALIASES, readPostCards } from './post-cards';
import { openTargetPost, postFromUrl, postParameter, WHICH_POST } from './post-target';

/**
 * Orbit: like a post. Follows ../site/ui.ts (postCard): each card has a "Like" toggle (aria-pressed) that
 * likes without a reload and updates the card's like count. Pressing it on a liked post would take the like
 * back, so a post liked already is left as it is (the result says so). The post comes from post-target.ts.
 */
const paramsSchema = withParamAliases(
  { post: ['postId', 'postUrl', 'url', 'id', 'link'], author: ['person', 'by', 'user', 'username', 'name', 'from'] },
  z.object({ post: postParameter.optional(), author: personParameter.optional() }).strict().refine(WHICH_POST.check, WHICH_POST.message),
);

export type OrbitLikePostParams = z.infer<typeof paramsSchema>;

export const orbitLikePost = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.like-post',
  description:
    'Likes a post on Orbit (parameters: post, its URL or id, or author, whose latest post; liked already = no change) and returns the post with its like count.',
  examples: [
    'Like the latest post by Priya Nair',
    "Like Priya's last post",
    'Like this post',
    'Like the most recent post from @marcus-webb',
    "Give Lena Fischer's newest post a like",
    'React to the post by Marcus Webb with a like',
  ],
  writes: true,
  fromSentence: { author: 'person' },
  fromStartingUrl: postFromUrl,
  resultFields: {
    liked: 'boolean - whether the user likes the post now',
    alreadyLiked: 'boolean - whether it was liked before',
    postId: 'string',
    url: 'url',
    author: 'string - who wrote the post',
    authorUsername: 'string',
    text: 'string',
    likes: 'integer - its like count afterwards',
    postedAt: 'datetime?',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    const card = await openTargetPost(ctx);
    const article = page.locator('main article').first();
    const like = article.getByRole('button', { name: 'Like', exact: true });
    const alreadyLiked = await ctx.step(
      'extract',
      "state of button 'Like'",
      async () => (await like.getAttribute('aria-pressed')) === 'true',
    );
    if (!alreadyLiked) {
      await ctx.step(
        'click',
        "button 'Like'",
        async () => {
          await clickToSend(like);
          const outcome = await until<true | { error: string }>(
            'the like to register',
            async () => {
              if ((await like.getAttribute('aria-pressed')) === 'true') return true;
              const failed = (await page.getByRole('status').allInnerTexts()).find((t) => /went wrong|try again|could not/i.test(t));
              return failed ? { error: collapse(failed).replace(/\s*×$/, '') } : undefined;
            },
            waitBudget(ctx),
          );
          if (outcome !== true) throw new Error(`Orbit did not register the like: ${outcome.error}`);
        },
        { writes: true },
      );
    }
    const after = await ctx.step('extract', 'the post after liking', async () => {
      const [read] = await readPostCards(article, new URL(ctx.provider.homeUrl).origin);
      if (!read || read.postId !== card.postId) throw new Error('the post card is gone');
      return read;
    });
    return ctx.fit(
      { ...after, liked: true, alreadyLiked },
      { ...POST_FIELD_ALIASES, liked: ['success', 'ok', 'done', 'isLiked'], alreadyLiked: ['wasLiked', 'unchanged'] },
    );
  },
});
