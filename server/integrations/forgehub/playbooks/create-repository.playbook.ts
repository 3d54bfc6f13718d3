import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { WriteRefused } from '../../../agent/playbooks/registry';
import { clickToSend, collapse, openPath, pathOf, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { readRepositoryPage, REPO_PAGE_ALIASES } from './repository-pages';

/**
 * ForgeHub: create a repository for the signed-in user. Follows ../site/pages/repositories.ts:
 * /new has the "Repository name" and "Description" boxes, a "Visibility" button opening a listbox
 * (Public / Private), the "Add a README file" checkbox and "Create repository". On success ForgeHub opens
 * the new repository's page, which the result is read from; when it refuses (name taken, invalid …) it shows
 * the form again with an alert, and the playbook fails with that alert's text.
 */
const paramsSchema = withParamAliases(
  {
    name: ['repository', 'repo', 'repoName', 'repositoryName', 'title'],
    description: ['about', 'summary', 'desc'],
    visibility: ['privacy', 'access'],
    readme: ['addReadme', 'withReadme', 'initReadme'],
  },
  z
    .object({
      name: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .regex(/^[A-Za-z0-9._-]+$/, 'repository names hold only letters, digits, hyphens, underscores and periods'),
      description: z.string().trim().max(350).optional(),
      visibility: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['public', 'private'])).optional(),
      private: z.boolean().optional(),
      readme: z.boolean().optional(),
    })
    .strict(),
);

export type ForgehubCreateRepoParams = z.infer<typeof paramsSchema>;

const LABEL = { public: 'Public', private: 'Private' } as const;

export const forgehubCreateRepository = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.create-repository',
  description:
    'Creates a repository for the signed-in ForgeHub user (parameters: name, description, visibility public|private, readme) and returns it as its new page shows it.',
  examples: [
    'Create a repository called demo',
    "Create a private repository named 'notes'",
    'Create a new private repo',
    'Make a new repository for my notes',
    'Set up a repository',
    'New repository',
    'Start a new empty repo called scratchpad',
    'Initialize a public repository with a README',
  ],
  writes: true,
  fromSentence: { name: 'name' },
  resultFields: {
    created: 'boolean - whether the repository was created',
    name: 'string',
    owner: 'string',
    fullName: 'string - owner/name',
    url: 'url',
    visibility: 'string - public or private',
    isPrivate: 'boolean',
    description: 'string?',
    stars: 'integer',
    forks: 'integer?',
    openIssues: 'integer?',
    language: 'string?',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const visibility =
      params.visibility ??
      (params.private === true
        ? 'private'
        : params.private === false
          ? 'public'
          : /\bprivate (?:repository|repo)\b/.test(ctx.action.toLowerCase())
            ? 'private'
            : 'public');
    if (params.visibility && params.private !== undefined && (params.visibility === 'private') !== params.private) {
      throw new Error('parameters.visibility and parameters.private disagree');
    }
    await openPath(ctx, '/new', 'new repository form (/new)');

    await ctx.step('type', "textbox 'Repository name'", async () => {
      const box = page.getByRole('textbox', { name: /^Repository name/ });
      await box.fill(params.name);
      if ((await box.inputValue()) !== params.name) throw new Error('the name box does not hold the name');
    });
    if (params.description) {
      await ctx.step('type', "textbox 'Description'", () => page.getByRole('textbox', { name: /^Description/ }).fill(params.description!));
    }
    await ctx.step('select', `'${LABEL[visibility]}' in listbox 'Visibility'`, async () => {
      const chooser = page.getByRole('button', { name: /^Visibility/ });
      if (collapse(await chooser.innerText()) === LABEL[visibility]) return;
      await chooser.click();
      const listbox = page.getByRole('listbox', { name: /^Visibility/ });
      await listbox.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      await listbox.getByRole('option', { name: new RegExp(`^${LABEL[visibility]}\\b`) }).click();
      await until(
        `the visibility to read '${LABEL[visibility]}'`,
        async () => collapse(await chooser.innerText()) === LABEL[visibility],
        waitBudget(ctx, 5000),
      );
    });
    if (params.readme !== undefined) {
      await ctx.step('check', "checkbox 'Add a README file'", () =>
        page.getByRole('checkbox', { name: /Add a README file/ }).setChecked(params.readme!),
      );
    }

    await ctx.step(
      'click',
      "button 'Create repository'",
      async () => {
        await clickToSend(page.getByRole('button', { name: 'Create repository', exact: true }));
        const outcome = await until<{ created: true } | { refused: string }>(
          'ForgeHub to create the repository',
          async () => {
            if (pathOf(page) !== '/new') return { created: true };
            const alert = page.getByRole('alert');
            if ((await alert.count()) > 0) return { refused: collapse(await alert.first().innerText()) };
            return undefined;
          },
          waitBudget(ctx),
        );
        if ('refused' in outcome) throw new WriteRefused(`ForgeHub did not create the repository: ${outcome.refused}`);
      },
      { writes: true },
    );

    const repo = await ctx.step('extract', 'the new repository page', async () => {
      const r = await readRepositoryPage(page);
      if (r.name.toLowerCase() !== params.name.toLowerCase())
        throw new Error(`ForgeHub opened ${r.fullName} instead of the new repository`);
      if (r.visibility !== visibility) throw new Error(`the repository was created ${r.visibility}, not ${visibility}`);
      return r;
    });
    const fields = { ...repo, created: true };
    return ctx.fit(fields, { ...REPO_PAGE_ALIASES, created: ['success', 'ok', 'done'] });
  },
});
