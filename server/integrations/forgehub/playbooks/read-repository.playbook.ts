import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { openPath, pathOf, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { readRepositoryPage, REPO_PAGE_ALIASES, repositoryFromUrl, repositoryOf, repositoryParameter } from './repository-pages';

/**
 * ForgeHub: read a repository's numbers and details: its star count first (what people ask), forks, open
 * issues, description, language, visibility, and whether the user starred it. Follows ../site/pages/repo.ts
 * (the header's star control and the About box), read by repository-pages.ts. Changes nothing.
 */
const paramsSchema = withParamAliases(
  { repository: ['repo', 'repositoryName', 'fullName', 'project'] },
  z.object({ repository: repositoryParameter }).strict(),
);

export type ForgehubReadRepositoryParams = z.infer<typeof paramsSchema>;

export const forgehubReadRepository = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.read-repository',
  description:
    'Reads a ForgeHub repository (parameter: repository "owner/name"): star count, forks, open issues, description, language, visibility, whether the user starred it, URL.',
  examples: [
    'How many stars does openfoundry/atlas have?',
    "What is kestrel-labs/kestrel's star count?",
    'Get the star count of this repository',
    'How popular is openfoundry/atlas?',
    'Show the details of openfoundry/pipeline-kit',
    'What language is kestrel-labs/kestrel written in?',
    'Give me an overview of openfoundry/atlas',
  ],
  writes: false,
  fromSentence: { repository: 'repository' },
  fromStartingUrl: repositoryFromUrl,
  resultFields: {
    stars: 'integer - its star count',
    forks: 'integer?',
    openIssues: 'integer? - open issues',
    repository: 'string - owner/name',
    name: 'string',
    owner: 'string',
    description: 'string?',
    language: 'string?',
    visibility: 'string - public or private',
    isPrivate: 'boolean',
    starred: 'boolean - whether the user starred it',
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
    const repo = await ctx.step('extract', `repository ${owner}/${name} (header and About)`, () => readRepositoryPage(page));
    // `repository` is the full name here (REPO_PAGE_ALIASES gives fullName the alias "repository" too).
    return ctx.fit({ ...repo, repository: repo.fullName }, REPO_PAGE_ALIASES);
  },
});
