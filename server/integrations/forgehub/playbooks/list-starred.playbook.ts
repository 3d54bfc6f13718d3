import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { listLimit, openPath, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { readRepoRows, REPO_FIELD_ALIASES } from './repository-pages';

/**
 * ForgeHub: the repositories the signed-in user starred, most recent star first. Follows
 * ../site/pages/people.ts (/stars, "Your stars": the "Starred repositories" list), read by repository-pages.ts.
 */
const MAX = 100;

const paramsSchema = withParamAliases(
  { limit: ['count', 'max', 'n', 'top', 'first'] },
  z
    .object({
      limit: listLimit(MAX).optional(),
    })
    .strict(),
);

export type ForgehubListStarredParams = z.infer<typeof paramsSchema>;

export const forgehubListStarred = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.list-starred-repositories',
  description:
    'Lists the repositories the signed-in ForgeHub user starred, most recent first (parameter: limit): full name, description, stars, language, URL.',
  examples: [
    'List my starred repositories',
    'Show the repositories I starred',
    'Which repositories have I starred?',
    'What did I star on ForgeHub?',
  ],
  writes: false,
  fromSentence: { limit: 'count' },
  resultFields: {
    repositories: [
      {
        fullName: 'string - owner/name',
        name: 'string',
        owner: 'string',
        description: 'string?',
        stars: 'integer',
        language: 'string?',
        topics: ['string'],
        url: 'url',
      },
    ],
    count: 'integer - how many were listed',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    await openPath(ctx, '/stars', 'your stars (/stars)');
    const rows = await ctx.step('extract', "list 'Starred repositories'", async () => {
      await page.getByRole('heading', { name: 'Your stars', level: 1 }).waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      return readRepoRows(
        page.getByRole('list', { name: 'Starred repositories' }).locator(':scope > li'),
        new URL(ctx.provider.homeUrl).origin,
      );
    });
    const items = rows.slice(0, ctx.params.limit ?? MAX);
    return ctx.fitList({
      items: items.map((r) => ({ ...r })),
      itemAliases: REPO_FIELD_ALIASES,
      extras: { count: items.length },
      extraAliases: { count: ['total', 'length', 'size', 'returned'] },
    });
  },
});
