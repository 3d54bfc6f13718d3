import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { clickToSend, openPath, pathOf, untilVisible, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { readRepositoryPage, repositoryFromUrl, repositoryOf, repositoryParameter } from './repository-pages';

/**
 * ForgeHub: star a repository. Follows ../site/parts.ts (starControl): a repository's page
 * has a "Star" button (aria-pressed=false) that turns into "Unstar" (aria-pressed=true) with the new count.
 * Idempotent: a repository starred already is left as it is. The result (starred, stars) is read from the
 * page afterwards. The repository comes from parameters.repository ("owner/name"), an "owner/name" in the
 * action, or the repository page the run starts on ("star this repository").
 */
const paramsSchema = withParamAliases(
  { repository: ['repo', 'repositoryName', 'fullName', 'project'] },
  z.object({ repository: repositoryParameter }).strict(),
);

export type ForgehubStarParams = z.infer<typeof paramsSchema>;

const FIELD_ALIASES = {
  repository: ['repo', 'fullName', 'repositoryName', 'nameWithOwner', 'name'],
  starred: ['isStarred', 'success', 'ok', 'done', 'starredByMe'],
  stars: ['starCount', 'starsCount', 'stargazers', 'stargazersCount', 'stargazerCount', 'count'],
  alreadyStarred: ['wasStarred', 'unchanged', 'noop'],
  url: ['link', 'htmlUrl', 'repoUrl', 'repositoryUrl', 'href'],
};

export const forgehubStarRepository = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.star-repository',
  description:
    'Stars a ForgeHub repository (parameter: repository "owner/name"; already starred = no change) and returns the star state and count.',
  examples: [
    'Star openfoundry/atlas',
    'Star this repository',
    'Star this repository and tell me its star count',
    'Go to kestrel-labs/kestrel and star it',
    'Give openfoundry/atlas a star',
    'Star the new repo',
    'Add a star to openfoundry/atlas',
    'Favourite this project',
  ],
  writes: true,
  fromStartingUrl: repositoryFromUrl,
  fromSentence: { repository: 'repository' },
  resultFields: {
    starred: 'boolean - whether the repository is starred now',
    alreadyStarred: 'boolean - whether it was starred before',
    repository: 'string - owner/name',
    stars: 'integer - its star count afterwards',
    url: 'url',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    const { owner, name } = repositoryOf(ctx);
    if (pathOf(page).toLowerCase() !== `/${owner}/${name}`.toLowerCase()) {
      await openPath(ctx, `/${owner}/${name}`, `repository ${owner}/${name}`, {
        notFound: `ForgeHub has no repository ${owner}/${name} that this account can see`,
      });
    }
    const before = await ctx.step('extract', 'star state', () => readRepositoryPage(page));
    if (!before.starred) {
      await ctx.step(
        'click',
        "button 'Star'",
        async () => {
          await clickToSend(page.getByRole('button', { name: 'Star', exact: true, pressed: false }));
          await untilVisible("button 'Unstar'", page.getByRole('button', { name: 'Unstar', exact: true, pressed: true }), waitBudget(ctx));
        },
        { writes: true },
      );
    }
    const after = await ctx.step('extract', 'star state after starring', async () => {
      const r = await readRepositoryPage(page);
      if (!r.starred) throw new Error(`${r.fullName} is still not starred`);
      return r;
    });
    const fields = { repository: after.fullName, starred: true, stars: after.stars, alreadyStarred: before.starred, url: after.url };
    return ctx.fit(fields, FIELD_ALIASES);
  },
});
