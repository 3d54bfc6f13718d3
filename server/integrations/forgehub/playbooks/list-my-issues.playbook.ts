import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { listLimit, looseEnum, openPath, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { type ForgeIssueRow, ISSUE_FIELD_ALIASES, nextPage, readIssueRows } from './issue-pages';

/**
 * ForgeHub: the signed-in user's issues, newest first: the ones they opened anywhere, or (scope
 * "repositories") the ones opened in repositories they own. Follows ../site/pages/my-issues.ts: /issues
 * ("Your issues") with the filter (created / repositories) and state (open / closed) in its query, 25 rows a
 * page and "Next ›" in the "Pagination" navigation. State "all" reads both lists.
 */
const MAX = 100;

const paramsSchema = withParamAliases(
  {
    state: ['status'],
    scope: ['filter', 'which', 'where'],
    limit: ['count', 'max', 'n', 'top', 'first'],
  },
  z
    .object({
      state: looseEnum<['open', 'closed', 'all']>(['open', 'closed', 'all']).optional(),
      scope: looseEnum<['created', 'repositories']>(['created', 'repositories']).optional(),
      limit: listLimit(MAX).optional(),
    })
    .strict(),
);

export type ForgehubListMyIssuesParams = z.infer<typeof paramsSchema>;

/** "… in my repositories", "issues on my repos", "opened against my projects": the other list. */
const IN_MY_REPOSITORIES = /\b(?:in|on|against|of|for)\s+my\s+(?:own\s+)?(?:repositories|repos|projects)\b/i;

export const forgehubListMyIssues = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.list-my-issues',
  description: `Lists the signed-in ForgeHub user's issues, newest first: the ones they opened, or (scope: repositories) those opened in their repositories (parameters: state open|closed|all (default open), scope, limit at most ${MAX}): repository, number, title, state, author, labels, comments, URL.`,
  examples: [
    'List my issues',
    'Show my open issues',
    'What issues did I open?',
    'Which of my issues are closed?',
    'Show the issues I created on ForgeHub',
    'List the issues opened in my repositories',
    'Are there new issues on my repos?',
  ],
  writes: false,
  fromSentence: { limit: 'count' },
  resultFields: {
    issues: [
      {
        repository: 'string - owner/name',
        number: 'integer',
        title: 'string',
        state: 'string - open or closed',
        author: 'string',
        labels: ['string'],
        comments: 'integer',
        url: 'url',
        at: 'datetime? - when it was opened (closed, for closed issues)',
      },
    ],
    count: 'integer - how many were listed',
    scope: 'string - created or repositories',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const scope = params.scope ?? (IN_MY_REPOSITORIES.test(ctx.action) ? 'repositories' : 'created');
    const state: 'open' | 'closed' | 'all' =
      params.state ?? (/\bclosed\b/i.test(ctx.action) ? 'closed' : /\ball\b/i.test(ctx.action) ? 'all' : 'open');
    const limit = params.limit ?? MAX;
    const origin = new URL(ctx.provider.homeUrl).origin;
    const items: ForgeIssueRow[] = [];
    for (const s of state === 'all' ? (['open', 'closed'] as const) : [state]) {
      await openPath(
        ctx,
        `/issues?filter=${scope}&state=${s}`,
        `your ${s} issues (${scope === 'created' ? 'created by you' : 'in your repositories'})`,
      );
      const listName = s === 'open' ? 'Open issues' : 'Closed issues';
      for (let pageNo = 1; pageNo <= 20 && items.length < limit; pageNo++) {
        const read = await ctx.step('extract', `list '${listName}' (page ${pageNo})`, async () => {
          await page.getByRole('navigation', { name: 'Issue state' }).waitFor({ state: 'visible', timeout: waitBudget(ctx) });
          return readIssueRows(page.getByRole('list', { name: listName }).locator(':scope > li'), s, origin);
        });
        items.push(...read);
        if (items.length >= limit || !(await nextPage(ctx, "link 'Next ›' (pagination)"))) break;
      }
    }
    // Both lists are newest first on their own; together, by when each was opened or closed.
    if (state === 'all') items.sort((a, b) => Date.parse(b.at ?? '') - Date.parse(a.at ?? '') || 0);
    const shown = items.slice(0, limit);
    return ctx.fitList({
      items: shown.map((i) => ({ ...i })),
      itemAliases: ISSUE_FIELD_ALIASES,
      extras: { count: shown.length, scope },
      extraAliases: { count: ['total', 'length', 'size', 'returned'], scope: ['filter'] },
    });
  },
});
