import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { clickToSend, collapse, pathOf, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { evaluateOneIsolated } from '../../../browser/locator-reads';
import { personParameter } from './people';
import { openTargetPost, postFromUrl, postParameter, WHICH_POST } from './post-target';

/**
 * Orbit: comment on a post. Follows ../site/pages/posts.ts: a post's page has the "Comments" section with
 * its list and the "Add a comment" box with "Post comment"; Orbit then reloads the page at #comments with
 * the new comment last. The result is the comment as the page shows it (a new item, by the user, with the
 * text). The post comes from post-target.ts.
 */
const COMMENT_MAX = 1250;

const paramsSchema = withParamAliases(
  {
    text: ['comment', 'message', 'body', 'content', 'reply'],
    post: ['postId', 'postUrl', 'url', 'id', 'link'],
    author: ['person', 'by', 'user', 'username', 'name', 'from'],
  },
  z
    .object({
      text: z
        .string()
        .trim()
        .min(1, 'the comment needs some text')
        .max(COMMENT_MAX, `Orbit comments hold at most ${COMMENT_MAX} characters`),
      post: postParameter.optional(),
      author: personParameter.optional(),
    })
    .strict()
    .refine(WHICH_POST.check, WHICH_POST.message),
);

export type OrbitCommentParams = z.infer<typeof paramsSchema>;

const FIELD_ALIASES = {
  text: ['comment', 'message', 'body', 'content', 'commentText'],
  postId: ['id', 'postKey'],
  postUrl: ['url', 'link', 'permalink'],
  postAuthor: ['author', 'postedBy', 'to'],
  commentAuthor: ['from', 'by', 'commenter'],
  commentedAt: ['date', 'time', 'timestamp', 'createdAt', 'postedAt', 'datetime', 'when'],
  commented: ['posted', 'sent', 'success', 'ok', 'done'],
  comments: ['commentCount', 'commentsCount', 'numComments'],
};

export const orbitCommentOnPost = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.comment-on-post',
  description:
    "Comments on a post on Orbit (parameters: text; post, its URL or id, or author, whose latest post) and returns the comment as the post's page shows it.",
  examples: [
    "Comment 'Congratulations!' on Priya Nair's latest post",
    'Comment on this post saying great work',
    "Reply to Marcus Webb's post with 'Amazing milestone'",
    'Leave a comment on the latest post by @lena-fischer',
    "Write a comment under Priya's last post",
    'Add a comment to this post',
  ],
  writes: true,
  fromSentence: { text: 'text', author: 'person' },
  fromStartingUrl: postFromUrl,
  resultFields: {
    commented: 'boolean - whether the comment was posted',
    text: 'string - the comment',
    commentAuthor: 'string - the user, as the comment shows them',
    commentedAt: 'datetime?',
    postId: 'string',
    postUrl: 'url',
    postAuthor: 'string - who wrote the post',
    comments: 'integer - the post comment count afterwards',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const post = await openTargetPost(ctx);
    const items = page.locator('section#comments ol > li');
    const before = await ctx.step('extract', "list of section 'Comments'", () => items.count());

    await ctx.step('type', "textbox 'Add a comment'", async () => {
      const box = page.getByRole('textbox', { name: 'Add a comment' });
      await box.fill(params.text);
      if ((await box.inputValue()) !== params.text) throw new Error('the comment box does not hold the text');
    });

    const comment = await ctx.step(
      'click',
      "button 'Post comment'",
      async () => {
        await clickToSend(page.getByRole('button', { name: 'Post comment', exact: true }));
        const found = await until<{ author: string; text: string; at: string | null } | { error: string }>(
          'the comment to appear under the post',
          async () => {
            if (pathOf(page) !== `/posts/${post.postId}`) return undefined;
            const toast = (await page.getByRole('status').allInnerTexts()).find((t) => /write a comment|went wrong|try again/i.test(t));
            if (toast) return { error: collapse(toast).replace(/\s*×$/, '') };
            if ((await items.count()) <= before) return undefined;
            return evaluateOneIsolated(items.last(), (li) => ({
              author: (li.querySelector('a[href^="/in/"]:not([tabindex="-1"])') as HTMLElement | null)?.innerText.trim() ?? '',
              text: (li.querySelector('p') as HTMLElement | null)?.innerText ?? '',
              at: li.querySelector('time')?.getAttribute('datetime') ?? null,
            }));
          },
          waitBudget(ctx),
        );
        if ('error' in found) throw new Error(`Orbit did not post the comment: ${found.error}`);
        if (collapse(found.text) !== collapse(params.text))
          throw new Error(`the newest comment reads "${collapse(found.text).slice(0, 80)}", not the text posted`);
        return found;
      },
      { writes: true },
    );

    const comments = await ctx.step('extract', 'comment count of the post', async () => {
      const stats = await page.locator('main article').first().locator('a[href$="#comments"]').innerText();
      return Number(/[\d,]+/.exec(stats)?.[0]?.replace(/,/g, '') ?? Number.NaN);
    });
    return ctx.fit(
      {
        commented: true,
        text: comment.text.trim(),
        commentAuthor: comment.author,
        commentedAt: comment.at,
        postId: post.postId,
        postUrl: post.url,
        postAuthor: post.author,
        comments: Number.isFinite(comments) ? comments : null,
      },
      FIELD_ALIASES,
    );
  },
});
