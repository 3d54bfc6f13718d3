import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { collapse, listLimit, looseEnum, openPath, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { ISSUE_FIELD_ALIASES, readIssueRows } from './issue-pages';
import { repositoryFromUrl, repositoryOf, repositoryParameter } from './repository-pages';

/**
 * ForgeHub: list a repository's issues, open ones by default, newest first. Follows
 * ../site/pages/issues.ts: /<owner>/<name>/issues?state=open|closed (&q= searches the titles) shows ten,
 * "Showing n of m open issues", and "Load more" fetches the next ten; the list is "Open issues" or "Closed
 * issues". Rows are read by issue-pages.ts; the total is the page's own count.
 */
const MAX = 100;
const DEFAULT = 30;

const paramsSchema = withParamAliases(
  {
    repository: ['repo', 'repositoryName', 'fullName', 'project'],
    state: ['status', 'filter'],
    limit: ['count', 'max', 'n', 'top', 'first'],
    query: ['q', 'search', 'keyword', 'keywords', 'term'],
  },
  z
    .object({
      repository: repositoryParameter,
      state: looseEnum<['open', 'closed']>(['open', 'closed']).optional(),
      limit: listLimit(MAX).optional(),
      query: z.string().trim().max(100).optional(),
    })
    .strict(),
);

export type ForgehubListIssuesParams = z.infer<typeof paramsSchema>;

export const forgehubListIssues = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.list-issues',
  description: `Lists the issues of a ForgeHub repository, newest first (parameters: repository "owner/name", state open|closed (default open), query, limit at most ${MAX}, default ${DEFAULT}): number, title, author, labels, comments, URL, with the total.`,
  examples: [
    'List open issues in openfoundry/atlas',
    'Show the open issues of this repository',
    'Which issues in kestrel-labs/kestrel are still open?',
    'How many open issues does openfoundry/atlas have?',
    'List the 5 newest issues in openfoundry/atlas',
    'Show closed issues of this repo',
    'Find issues about raft in openfoundry/atlas',
  ],
  writes: false,
  fromSentence: { repository: 'repository', limit: 'count' },
  fromStartingUrl: repositoryFromUrl,
  resultFields: {
    issues: [
      {
        number: 'integer',
        title: 'string',
        state: 'string - open or closed',
        author: 'string',
        labels: ['string'],
        comments: 'integer',
        url: 'url',
        at: 'datetime? - when it was opened (closed, for closed issues)',
        repository: 'string - owner/name',
      },
    ],
    count: 'integer - how many were listed',
    total: 'integer - how many issues in that state the repository has (matching the query)',
    repository: 'string - owner/name',
    state: 'string - open or closed',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const { owner, name } = repositoryOf(ctx);
    const state: 'open' | 'closed' = params.state ?? (/\bclosed\b/i.test(ctx.action) ? 'closed' : 'open');
    const limit = params.limit ?? DEFAULT;
    const q = new URLSearchParams({ state, ...(params.query ? { q: params.query } : {}) });
    await openPath(ctx, `/${owner}/${name}/issues?${q.toString()}`, `${state} issues of ${owner}/${name}`, {
      notFound: `ForgeHub has no repository ${owner}/${name} that this account can see`,
    });
    const listName = state === 'open' ? 'Open issues' : 'Closed issues';
    const rows = page.getByRole('list', { name: listName }).locator(':scope > li');
    const more = page.getByRole('button', { name: 'Load more', exact: true });
    const summary = page.getByText(/^Showing \d+ of \d+ (?:open|closed) issues?$/);

    let shown = await ctx.step('extract', `list '${listName}'`, async () => {
      await page.getByRole('navigation', { name: 'Issue state' }).waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      return rows.count();
    });
    while (shown < limit && (await more.count()) > 0) {
      const had = shown;
      shown = await ctx.step('click', "button 'Load more'", async () => {
        await more.click();
        const outcome = await until<number | { error: string }>(
          'more issues to load',
          async () => {
            const n = await rows.count();
            if (n > had) return n;
            const failed = (await page.getByRole('status').allInnerTexts()).find((t) => /could not load/i.test(t));
            return failed ? { error: collapse(failed).replace(/\s*×$/, '') } : undefined;
          },
          waitBudget(ctx),
        );
        if (typeof outcome !== 'number') throw new Error(`ForgeHub did not load more issues: ${outcome.error}`);
        return outcome;
      });
    }
    const { items, total } = await ctx.step('extract', `${Math.min(shown, limit)} issues of list '${listName}'`, async () => {
      const all = await readIssueRows(rows, state, new URL(ctx.provider.homeUrl).origin);
      const counted = shown === 0 ? 0 : Number(/ of (\d+) /.exec(await summary.innerText())?.[1] ?? Number.NaN);
      return { items: all.slice(0, limit), total: Number.isFinite(counted) ? counted : null };
    });
    return ctx.fitList({
      items: items.map((i) => ({ ...i })),
      itemAliases: ISSUE_FIELD_ALIASES,
      extras: { count: items.length, total, repository: `${owner}/${name}`, state },
      extraAliases: {
        count: ['returned', 'length', 'size', 'listed'],
        total: ['totalCount', 'openIssues', 'openCount', 'issueCount', 'numIssues'],
        repository: ['repo', 'fullName', 'nameWithOwner'],
        state: ['status', 'filter'],
      },
    });
  },
});
