import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { clickToSend, untilVisible, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { personParameter } from './people';
import { POST_FIELD_ALIASES, readPostCards } from './post-cards';
import { openTargetPost, postFromUrl, postParameter, WHICH_POST } from './post-target';

/**
 * Orbit: repost a post to the user's followers. Follows ../site/ui.ts (postCard): each card has a "Repost"
 * button that turns into "Undo repost" once the user reposted it (a form post; Orbit reloads the page).
 * Pressing it on a post reposted already would take the repost back, so such a post is left as it is (the
 * result says so). The post comes from post-target.ts.
 */
const paramsSchema = withParamAliases(
  { post: ['postId', 'postUrl', 'url', 'id', 'link'], author: ['person', 'by', 'user', 'username', 'name', 'from'] },
  z.object({ post: postParameter.optional(), author: personParameter.optional() }).strict().refine(WHICH_POST.check, WHICH_POST.message),
);

export type OrbitRepostParams = z.infer<typeof paramsSchema>;

export const orbitRepostPost = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.repost-post',
  description:
    'Reposts a post to the signed-in user’s followers on Orbit (parameters: post, its URL or id, or author, whose latest post; reposted already = no change) and returns the post with its repost count.',
  examples: [
    "Repost Marcus Webb's latest post",
    'Repost this post',
    'Share the post by Marcus with my network',
    "Reshare Priya's last post with my followers",
    'Repost the most recent post from @lena-fischer',
  ],
  writes: true,
  fromSentence: { author: 'person' },
  fromStartingUrl: postFromUrl,
  resultFields: {
    reposted: 'boolean - whether the user has reposted it now',
    alreadyReposted: 'boolean - whether it was reposted before',
    postId: 'string',
    url: 'url',
    author: 'string - who wrote the post',
    authorUsername: 'string',
    text: 'string',
    reposts: 'integer - its repost count afterwards',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    const card = await openTargetPost(ctx);
    const article = page.locator('main article').first();
    const repost = article.getByRole('button', { name: 'Repost', exact: true });
    const undo = article.getByRole('button', { name: 'Undo repost', exact: true });
    const alreadyReposted = await ctx.step('extract', "button 'Repost' or 'Undo repost'", async () => {
      if ((await undo.count()) > 0) return true;
      if ((await repost.count()) > 0) return false;
      throw new Error('the post has no Repost button');
    });
    if (!alreadyReposted) {
      await ctx.step(
        'click',
        "button 'Repost'",
        async () => {
          await clickToSend(repost);
          await untilVisible("button 'Undo repost'", undo, waitBudget(ctx));
        },
        { writes: true },
      );
    }
    const after = await ctx.step('extract', 'the post after reposting', async () => {
      const [read] = await readPostCards(page.locator('main article').first(), new URL(ctx.provider.homeUrl).origin);
      if (!read || read.postId !== card.postId) throw new Error('the post card is gone');
      return read;
    });
    return ctx.fit(
      { ...after, reposted: true, alreadyReposted },
      { ...POST_FIELD_ALIASES, reposted: ['shared', 'success', 'ok', 'done'], alreadyReposted: ['wasReposted', 'unchanged'] },
    );
  },
});
