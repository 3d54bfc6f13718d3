import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { clickToSend, collapse, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { type ForgeIssuePage, issueFromUrl, issueNumberParameter, openIssue, readIssuePage } from './issue-pages';
import { repositoryParameter } from './repository-pages';

/**
 * ForgeHub: close an issue. Follows ../site/pages/issues.ts: an open issue's page shows "Close issue" to its
 * author and the repository's owner; it opens the "Close issue #<n>?" confirmation, whose "Close issue"
 * button closes it (ForgeHub reloads the page with the state "Closed"). Idempotent: a closed issue is left as
 * it is. Someone who may not close it gets ForgeHub's rule as the error, not a guess.
 */
const paramsSchema = withParamAliases(
  { repository: ['repo', 'repositoryName', 'fullName', 'project'], number: ['issue', 'issueNumber', 'id', 'num'] },
  z.object({ repository: repositoryParameter, number: issueNumberParameter }).strict(),
);

export type ForgehubCloseIssueParams = z.infer<typeof paramsSchema>;

const FIELD_ALIASES = {
  repository: ['repo', 'repositoryName', 'fullName', 'nameWithOwner'],
  number: ['issueNumber', 'id', 'num', 'issueId'],
  title: ['subject', 'summary', 'issueTitle', 'name'],
  state: ['status'],
  url: ['link', 'htmlUrl', 'issueUrl', 'href'],
  closed: ['success', 'ok', 'done', 'isClosed'],
  alreadyClosed: ['wasClosed', 'unchanged'],
  author: ['openedBy', 'creator'],
};

export const forgehubCloseIssue = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.close-issue',
  description:
    'Closes an issue of a ForgeHub repository as completed (parameters: repository "owner/name", number; closed already = no change) and returns its state.',
  examples: [
    'Close issue #12 in acme/api',
    'Close issue 3',
    'Close this issue',
    'Mark issue #4 in openfoundry/atlas as done',
    'Resolve issue #7',
    'Close the issue #2 in my dotfiles repo',
  ],
  writes: true,
  fromSentence: { repository: 'repository', number: 'number' },
  fromStartingUrl: issueFromUrl,
  resultFields: {
    closed: 'boolean - whether the issue is closed now',
    alreadyClosed: 'boolean - whether it was closed before',
    repository: 'string - owner/name',
    number: 'integer',
    title: 'string',
    state: 'string - open or closed',
    author: 'string - who opened it',
    url: 'url',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const before = await openIssue(ctx, params.repository, params.number);
    let after: ForgeIssuePage = before;
    if (before.state === 'open') {
      const opener = page.getByRole('button', { name: 'Close issue', exact: true });
      const dialog = page.getByRole('dialog', { name: `Close issue #${before.number}?` });
      await ctx.step('click', "button 'Close issue'", async () => {
        if ((await opener.count()) === 0)
          throw new Error(
            `this account may not close ${before.repository}#${before.number}: only its author (${before.author}) and the repository's owner can`,
          );
        await opener.first().click();
        await dialog.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      });
      after = await ctx.step(
        'click',
        "button 'Close issue' (confirmation)",
        async () => {
          await clickToSend(dialog.getByRole('button', { name: 'Close issue', exact: true }));
          const outcome = await until<ForgeIssuePage | { refused: string }>(
            'the issue to read Closed',
            async () => {
              const refused = page.locator('main h1', { hasText: /^\s*(403|404)\s*$/ });
              if ((await refused.count()) > 0) return { refused: collapse(await page.locator('main').innerText()) };
              if ((await page.locator('main h1').count()) === 0) return undefined;
              const read = await readIssuePage(page).catch(() => null);
              return read?.state === 'closed' ? read : undefined;
            },
            waitBudget(ctx),
          );
          if ('refused' in outcome) throw new Error(`ForgeHub did not close the issue: ${outcome.refused}`);
          return outcome;
        },
        { writes: true },
      );
    }
    return ctx.fit({ ...after, closed: after.state === 'closed', alreadyClosed: before.state === 'closed' }, FIELD_ALIASES);
  },
});
