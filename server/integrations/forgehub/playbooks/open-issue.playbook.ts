import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { WriteRefused } from '../../../agent/playbooks/registry';
import { clickToSend, collapse, openPath, pathOf, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { evaluateOneIsolated } from '../../../browser/locator-reads';
import { repositoryFromUrl, repositoryOf, repositoryParameter } from './repository-pages';

/**
 * ForgeHub: open an issue in a repository. Follows ../site/pages/issues.ts: the issue list
 * (/<owner>/<name>/issues) has a "New issue" button opening a dialog with a "Title" box, a contenteditable
 * "Description" editor and "Submit new issue"; ForgeHub then opens the new issue's page, which the result
 * is read from (number, title, state, author). A refusal (the form again, with an alert) fails the playbook
 * with ForgeHub's message. The repository comes from parameters.repository ("owner/name"), an "owner/name"
 * in the action, or the repository page the run starts on ("… in this repository").
 */
const paramsSchema = withParamAliases(
  {
    repository: ['repo', 'repositoryName', 'fullName', 'project'],
    title: ['subject', 'summary', 'issueTitle', 'name'],
    body: ['description', 'text', 'content', 'details', 'message', 'issueBody'],
  },
  z
    .object({
      repository: repositoryParameter,
      title: z.string().trim().min(1, 'the issue needs a title').max(256, 'ForgeHub issue titles hold at most 256 characters'),
      body: z.string().max(65_536).optional(),
    })
    .strict(),
);

export type ForgehubOpenIssueParams = z.infer<typeof paramsSchema>;

const FIELD_ALIASES = {
  number: ['issueNumber', 'id', 'num', 'issueId'],
  title: ['subject', 'summary', 'issueTitle', 'name'],
  url: ['link', 'htmlUrl', 'issueUrl', 'href'],
  state: ['status'],
  author: ['user', 'openedBy', 'creator', 'login'],
  body: ['description', 'text', 'content', 'details'],
  repository: ['repo', 'repositoryName', 'fullName', 'nameWithOwner'],
  createdAt: ['openedAt', 'created', 'date', 'timestamp', 'time'],
  opened: ['created', 'success', 'ok', 'done'],
};

export const forgehubOpenIssue = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.open-issue',
  description:
    'Opens an issue in a ForgeHub repository (parameters: repository "owner/name", title, body) and returns it as its page shows it: number, title, URL, state.',
  examples: [
    'Open an issue in openfoundry/atlas',
    'Open an issue titled "Crash on start" in openfoundry/atlas',
    'Create a new issue',
    'Create an issue in the new repo',
    'Open an issue in my repository dotfiles',
    'File a bug report for csv-surgeon',
    'Report a bug',
    'Submit a feature request',
    'Raise a ticket about the broken build',
    'New issue',
  ],
  writes: true,
  fromStartingUrl: repositoryFromUrl,
  fromSentence: { repository: 'repository', title: ['name', 'text'] },
  resultFields: {
    opened: 'boolean - whether the issue was opened',
    number: 'integer',
    title: 'string',
    url: 'url',
    state: 'string - open or closed',
    author: 'string',
    body: 'string?',
    repository: 'string - owner/name',
    createdAt: 'datetime?',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const { owner, name } = repositoryOf(ctx);
    const base = `/${owner}/${name}`;
    await openPath(ctx, `${base}/issues`, `issues of ${owner}/${name}`, {
      notFound: `ForgeHub has no repository ${owner}/${name} that this account can see`,
    });

    const dialog = page.getByRole('dialog', { name: /^New issue in / });
    await ctx.step('click', "button 'New issue'", async () => {
      await page.getByRole('button', { name: 'New issue', exact: true }).click();
      await dialog.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
    });
    await ctx.step('type', "textbox 'Title'", async () => {
      const box = dialog.getByRole('textbox', { name: 'Title', exact: true });
      await box.fill(params.title);
      if ((await box.inputValue()) !== params.title) throw new Error('the title box does not hold the title');
    });
    const body = params.body?.trim();
    if (body) {
      await ctx.step('type', "textbox 'Description' (editor)", async () => {
        const editor = dialog.getByRole('textbox', { name: 'Description', exact: true });
        await editor.fill(body);
        const typed = collapse(await editor.innerText());
        if (typed !== collapse(body)) throw new Error(`the editor holds "${typed.slice(0, 80)}" instead of the description`);
      });
    }

    const number = await ctx.step(
      'click',
      "button 'Submit new issue'",
      async () => {
        await clickToSend(dialog.getByRole('button', { name: 'Submit new issue' }));
        const outcome = await until<{ number: number } | { refused: string }>(
          'ForgeHub to open the issue',
          async () => {
            const m = /^\/[^/]+\/[^/]+\/issues\/(\d+)$/.exec(pathOf(page));
            if (m) return { number: Number(m[1]) };
            const alert = page.getByRole('alert');
            if ((await alert.count()) > 0) return { refused: collapse(await alert.first().innerText()) };
            return undefined;
          },
          waitBudget(ctx),
        );
        if ('refused' in outcome) throw new WriteRefused(`ForgeHub did not open the issue: ${outcome.refused}`);
        return outcome.number;
      },
      { writes: true },
    );

    const issue = await ctx.step('extract', `issue #${number}`, async () => {
      const h1 = page.locator('main h1').first();
      await h1.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      // Runs in the page's document, in an isolated world: no named inner functions (a transpiler's helpers would not exist there).
      const read = await evaluateOneIsolated(h1, (el) => {
        const sub = el.nextElementSibling as HTMLElement | null;
        const first = document.querySelector('main article[aria-label^="Comment by "]') as HTMLElement | null;
        const bodyEl = first?.querySelector('header')?.nextElementSibling as HTMLElement | null;
        return {
          heading: (el as HTMLElement).innerText,
          numberText: (el.querySelector('span') as HTMLElement | null)?.innerText ?? '',
          state: (sub?.querySelector('span') as HTMLElement | null)?.innerText.trim() ?? '',
          author: (sub?.querySelector('a strong') as HTMLElement | null)?.innerText.trim() ?? '',
          createdAt: sub?.querySelector('time')?.getAttribute('datetime') ?? null,
          body: bodyEl?.innerText ?? '',
          fullName: (document.querySelector('main a[href$="/issues"][aria-current="page"]')?.getAttribute('href') ?? '')
            .replace(/\/issues$/, '')
            .slice(1),
        };
      });
      const title = collapse(read.heading.replace(read.numberText, ''));
      if (read.numberText.trim() !== `#${number}`) throw new Error(`the issue page shows ${read.numberText || 'no number'}`);
      if (title !== collapse(params.title)) throw new Error(`the issue page shows the title "${title.slice(0, 80)}"`);
      return { ...read, title };
    });

    const fields = {
      number,
      title: issue.title,
      url: new URL(pathOf(page), ctx.provider.homeUrl).toString(),
      state: issue.state.toLowerCase(),
      author: issue.author,
      body: body ? issue.body.trim() : null,
      repository: issue.fullName || `${owner}/${name}`,
      createdAt: issue.createdAt,
      opened: true,
    };
    return ctx.fit(fields, FIELD_ALIASES);
  },
});
