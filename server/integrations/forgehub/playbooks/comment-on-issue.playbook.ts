import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { clickToSend, collapse, pathOf, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { evaluateOneIsolated } from '../../../browser/locator-reads';
import { issueFromUrl, issueNumberParameter, openIssue } from './issue-pages';
import { repositoryParameter } from './repository-pages';

/**
 * ForgeHub: comment on an issue. Follows ../site/pages/issues.ts: an issue's page ends with the "Add a
 * comment" box and its "Comment" button; ForgeHub then reloads the page at the new comment (an article
 * "Comment by <user>" last in the timeline), or shows the form again with an alert when it refuses. The
 * result is the comment as the page shows it.
 */
const BODY_MAX = 65_536;

const paramsSchema = withParamAliases(
  {
    repository: ['repo', 'repositoryName', 'fullName', 'project'],
    number: ['issue', 'issueNumber', 'id', 'num'],
    text: ['comment', 'body', 'message', 'content', 'reply'],
  },
  z
    .object({
      repository: repositoryParameter,
      number: issueNumberParameter,
      text: z.string().trim().min(1, 'the comment needs some text').max(BODY_MAX, 'ForgeHub comments hold at most 65536 characters'),
    })
    .strict(),
);

export type ForgehubCommentParams = z.infer<typeof paramsSchema>;

/** Text as ForgeHub renders its Markdown (marks gone, whitespace collapsed), to recognise the comment posted. */
const plain = (text: string) => collapse(text.replace(/[`*_#>]|^\s*- /gm, ''));

const FIELD_ALIASES = {
  text: ['comment', 'body', 'message', 'content', 'commentText'],
  author: ['from', 'by', 'commenter', 'user', 'login'],
  repository: ['repo', 'repositoryName', 'fullName', 'nameWithOwner'],
  number: ['issueNumber', 'issue', 'num', 'issueId'],
  title: ['issueTitle', 'subject'],
  url: ['link', 'commentUrl', 'htmlUrl', 'href', 'permalink'],
  commented: ['posted', 'success', 'ok', 'done', 'sent'],
  comments: ['commentCount', 'commentsCount', 'numComments'],
  state: ['status', 'issueState'],
};

export const forgehubCommentOnIssue = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.comment-on-issue',
  description:
    'Comments on an issue of a ForgeHub repository (parameters: repository "owner/name", number, text) and returns the comment as the issue shows it.',
  examples: [
    "Comment 'LGTM' on issue #3",
    "Comment 'Fixed in the latest release' on issue #12 in acme/api",
    'Reply to issue #5 in openfoundry/atlas saying thanks for the report',
    'Add a comment to this issue',
    'Leave a comment on issue 7 asking for logs',
    'Write a comment on the issue #1 in my dotfiles repo',
  ],
  writes: true,
  fromSentence: { repository: 'repository', number: 'number', text: 'text' },
  fromStartingUrl: issueFromUrl,
  resultFields: {
    commented: 'boolean - whether the comment was posted',
    text: 'string - the comment',
    author: 'string - the user, as the comment shows them',
    url: 'url - the comment',
    repository: 'string - owner/name',
    number: 'integer',
    title: 'string - the issue',
    state: 'string - open or closed',
    comments: 'integer - the issue comment count afterwards',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const issue = await openIssue(ctx, params.repository, params.number);
    const comments = page.locator('main article[aria-label^="Comment by "]');
    const before = await ctx.step('extract', 'comments in the timeline', () => comments.count());

    await ctx.step('type', "textbox 'Add a comment'", async () => {
      const box = page.getByRole('textbox', { name: 'Add a comment' });
      await box.fill(params.text);
      if ((await box.inputValue()) !== params.text) throw new Error('the comment box does not hold the text');
    });

    const posted = await ctx.step(
      'click',
      "button 'Comment'",
      async () => {
        await clickToSend(page.getByRole('button', { name: 'Comment', exact: true }));
        const outcome = await until<{ id: string; author: string; text: string } | { refused: string }>(
          'the comment to appear in the timeline',
          async () => {
            const alert = page.getByRole('alert');
            if ((await alert.count()) > 0) return { refused: collapse(await alert.first().innerText()) };
            if (!/#comment-/.test(page.url()) || (await comments.count()) <= before) return undefined;
            return evaluateOneIsolated(comments.last(), (article) => ({
              id: article.parentElement?.id ?? '',
              author: (article.querySelector('header a') as HTMLElement | null)?.innerText.trim() ?? '',
              text: (article.querySelector('header')?.nextElementSibling as HTMLElement | null)?.innerText ?? '',
            }));
          },
          waitBudget(ctx),
        );
        if ('refused' in outcome) throw new Error(`ForgeHub did not post the comment: ${outcome.refused}`);
        if (plain(outcome.text) !== plain(params.text))
          throw new Error(`the newest comment reads "${collapse(outcome.text).slice(0, 80)}", not the text posted`);
        return outcome;
      },
      { writes: true },
    );

    return ctx.fit(
      {
        commented: true,
        text: posted.text.trim(),
        author: posted.author,
        url: new URL(`${pathOf(page)}#${posted.id}`, ctx.provider.homeUrl).toString(),
        repository: issue.repository,
        number: issue.number,
        title: issue.title,
        state: issue.state,
        comments: (await comments.count()) - 1,
      },
      FIELD_ALIASES,
    );
  },
});
