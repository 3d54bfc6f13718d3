import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { openPath, pathOf, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { type ForgeRepoRow, readRepoRows, REPO_FIELD_ALIASES, signedInUser } from './repository-pages';

/**
 * ForgeHub: list the repositories the signed-in user owns. Follows ../site/pages/repositories.ts:
 * /repositories searches every repository the user can see (all words must match the name, description,
 * topics or language) and pages them ten at a time ("Next ›" in the "Pagination" navigation). The search
 * is narrowed with the username (owner/name contains it) plus the optional query, every page is read, and
 * only rows owned by the user are kept, until `limit`.
 */
const LIST_MAX = 100;

const paramsSchema = withParamAliases(
  {
    limit: ['count', 'max', 'n', 'first', 'top'],
    query: ['q', 'search', 'filter', 'keyword', 'keywords', 'term'],
    visibility: ['type', 'privacy'],
  },
  z
    .object({
      limit: z
        .preprocess((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v), z.number().int().min(1).max(LIST_MAX))
        .optional(),
      query: z.string().trim().max(100).optional(),
      visibility: z
        .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['public', 'private', 'all']))
        .optional(),
    })
    .strict(),
);

export type ForgehubListReposParams = z.infer<typeof paramsSchema>;

const EXTRA_ALIASES = {
  count: ['total', 'length', 'size', 'numRepositories', 'repositoryCount', 'returned'],
  owner: ['username', 'user', 'login', 'me'],
};

export const forgehubListMyRepositories = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.list-my-repositories',
  description:
    'Lists the repositories the signed-in ForgeHub user owns (parameters: limit, query, visibility public|private|all): name, full name, description, visibility, stars, forks, language, topics, URL, last update.',
  examples: [
    'List my repositories',
    'Show my repos',
    'my repositories',
    'What are my ForgeHub repositories?',
    'Get my private repositories with their star counts',
    'Find the repositories I own',
    'List my first 5 public repositories',
    'Which repositories do I own?',
    'How many repositories do I have?',
  ],
  writes: false,
  fromSentence: { limit: 'count' },
  resultFields: {
    repositories: [
      {
        name: 'string',
        owner: 'string',
        fullName: 'string - owner/name',
        description: 'string?',
        visibility: 'string - public or private',
        isPrivate: 'boolean',
        stars: 'integer',
        forks: 'integer',
        language: 'string?',
        topics: ['string'],
        url: 'url',
        updatedAt: 'datetime?',
      },
    ],
    count: 'integer - how many were listed',
    owner: 'string - the signed-in user',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const origin = new URL(ctx.provider.homeUrl).origin;
    const limit = params.limit ?? LIST_MAX;
    const visibility =
      params.visibility ??
      /\bmy (?:own )?(?:forgehub )?(public|private) (?:repositories|repos)\b/i.exec(ctx.action)?.[1]?.toLowerCase() ??
      'all';

    let me = await signedInUser(page).catch(() => null);
    if (!me) {
      await openPath(ctx, '/', 'dashboard (/)');
      me = await ctx.step('extract', 'signed-in user (header)', async () => {
        const u = await signedInUser(page);
        if (!u) throw new Error('the header does not show who is signed in');
        return u;
      });
    }

    const q = [me, params.query ?? ''].join(' ').trim();
    await openPath(ctx, `/repositories?q=${encodeURIComponent(q)}`, `repositories matching "${q}"`);
    const rows = page.getByRole('list', { name: 'Repositories' }).locator('li');
    const next = page.getByRole('navigation', { name: 'Pagination' }).locator('a[rel="next"]');
    const items: ForgeRepoRow[] = [];
    for (let pageNo = 1; pageNo <= 50; pageNo++) {
      const read = await ctx.step('extract', `repositories on page ${pageNo}`, () => readRepoRows(rows, origin));
      for (const r of read) {
        if (r.owner.toLowerCase() !== me.toLowerCase()) continue;
        if (visibility !== 'all' && r.visibility !== visibility) continue;
        items.push(r);
      }
      if (items.length >= limit || (await next.count()) === 0) break;
      const from = page.url();
      await ctx.step('click', "link 'Next ›' (pagination)", async () => {
        await next.click();
        await until('the next page of repositories', async () => page.url() !== from && pathOf(page) === '/repositories', waitBudget(ctx));
        await page.waitForLoadState('domcontentloaded');
      });
    }
    const shown = items.slice(0, limit);
    return ctx.fitList({
      items: shown.map((r) => ({ ...r })),
      itemAliases: REPO_FIELD_ALIASES,
      extras: { count: shown.length, owner: me },
      extraAliases: EXTRA_ALIASES,
    });
  },
});
