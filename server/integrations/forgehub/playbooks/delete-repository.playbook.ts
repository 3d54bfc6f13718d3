import type { Page } from 'playwright-core';
import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { type PlaybookContext, WriteRefused } from '../../../agent/playbooks/registry';
import {
  askPerson,
  clickToSend,
  collapse,
  openPath,
  pathOf,
  until,
  waitBudget,
  withParamAliases,
} from '../../../agent/playbooks/site-helpers';
import { evaluateIsolated } from '../../../browser/isolated-world';
import { signedInUser } from './repository-pages';

/**
 * ForgeHub: delete a repository of the signed-in user. Follows ../site/pages/settings.ts: the repository's
 * Settings (its owner only) has a "Danger Zone" with "Delete this repository", which opens the "Delete <owner/name>"
 * dialog; the name typed into "To confirm, type <owner/name> in the box below" enables its own "Delete this
 * repository" button, and ForgeHub then lands on the dashboard with "Your repository “…” was successfully deleted."
 *
 * ForgeHub may ask for the account's password first ("Confirm access", GitHub's sudo mode; sandbox: user_stepup).
 * Only the person types it: the run pauses for them (ctx.needsUser), even when the connection holds the password for
 * silent sign-in (a playbook never types stored credentials into a page of the site's choosing). The repository is
 * never taken from the starting URL: an action that destroys names what it destroys.
 */
const REPOSITORY = /^(?:[A-Za-z0-9][A-Za-z0-9_-]{0,38}\/)?[A-Za-z0-9._-]{1,100}$/;

const paramsSchema = withParamAliases(
  {
    repository: ['repo', 'repositoryName', 'fullName', 'project', 'name'],
    owner: ['ownerName', 'account', 'login', 'username'],
  },
  z
    .object({
      repository: z.string().trim().regex(REPOSITORY, 'give the repository as "owner/name", or its name for one of your own'),
      owner: z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/, 'an owner is a ForgeHub user name')
        .optional(),
    })
    .strict()
    .refine((p) => !p.owner || !p.repository.includes('/') || p.repository.split('/')[0]!.toLowerCase() === p.owner.toLowerCase(), {
      message: 'the repository names another owner than parameters.owner',
      path: ['owner'],
    }),
);

export type ForgehubDeleteRepoParams = z.infer<typeof paramsSchema>;

const FIELD_ALIASES = {
  deleted: ['success', 'ok', 'done', 'removed', 'isDeleted'],
  repository: ['repo', 'fullName', 'nameWithOwner', 'repositoryName'],
  owner: ['ownerName', 'ownerLogin', 'account'],
  name: ['repoName', 'shortName'],
};

const deletedToast = (page: Page) => page.getByRole('status').filter({ hasText: 'was successfully deleted' });

/** Whether ForgeHub answers 404 for the repository now (asked from the page, with its session). */
async function gone(page: Page, path: string): Promise<boolean> {
  return (await evaluateIsolated(page, async (p) => (await fetch(p, { credentials: 'same-origin' })).status, path)) === 404;
}

/** Owner and name: from "owner/name", parameters.owner, or the signed-in user (the header's own profile link). */
async function whichRepository(ctx: PlaybookContext<ForgehubDeleteRepoParams>): Promise<{ owner: string; name: string }> {
  const [first, second] = ctx.params.repository.replace(/\.git$/, '').split('/') as [string, string | undefined];
  if (second) return { owner: first, name: second };
  if (ctx.params.owner) return { owner: ctx.params.owner, name: first };
  let me = await signedInUser(ctx.page).catch(() => null);
  if (!me) {
    await openPath(ctx, '/', 'dashboard (/)');
    me = await ctx.step('extract', 'the signed-in user (header)', async () => {
      const user = await signedInUser(ctx.page);
      if (!user) throw new Error('the header shows no signed-in user');
      return user;
    });
  }
  return { owner: me, name: first };
}

export const forgehubDeleteRepository = definePlaybook({
  providerSlug: 'forgehub',
  name: 'forgehub.delete-repository',
  description:
    'Deletes a ForgeHub repository the signed-in user owns, for good (parameter: repository "owner/name", or its name for one of your own); ForgeHub may ask the user to confirm their password first.',
  examples: [
    'Delete my repository hello-world',
    'Delete the repository acme/legacy-api',
    'Remove the repo called old-experiments',
    'Remove my repository scratchpad from ForgeHub',
    'Permanently delete the repo demo-app',
    'Erase my old repository for good',
    'Delete repo user_good/throwaway',
  ],
  writes: true,
  // "Delete my repository hello-world": a hyphenated name reads like a user name (the person slot).
  fromSentence: { repository: ['repository', 'name', 'person'] },
  resultFields: {
    deleted: 'boolean - whether the repository was deleted',
    repository: 'string - owner/name of the deleted repository',
    owner: 'string',
    name: 'string',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    const { owner, name } = await whichRepository(ctx);
    const base = `/${owner}/${name}`;
    if (pathOf(page).toLowerCase() !== `${base}/settings`.toLowerCase()) {
      await openPath(ctx, `${base}/settings`, `settings of repository ${owner}/${name}`, {
        notFound: `ForgeHub has no repository ${owner}/${name} that this account owns (only its owner can delete it)`,
      });
    }

    const dialog = page.getByRole('dialog', { name: /^Delete / });
    await ctx.step('click', "button 'Delete this repository' in region 'Danger Zone'", async () => {
      await page.getByRole('region', { name: 'Danger Zone' }).getByRole('button', { name: 'Delete this repository' }).click();
      await dialog.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
    });

    // What ForgeHub asks to be typed is the repository's full name as it spells it (case included).
    const fullName = await ctx.step('type', "textbox 'To confirm, type … in the box below'", async () => {
      const asked = collapse(await dialog.locator('label strong').first().innerText());
      if (asked.toLowerCase() !== `${owner}/${name}`.toLowerCase())
        throw new Error(`the dialog asks to type "${asked}", not ${owner}/${name}`);
      const box = dialog.getByRole('textbox', { name: /^To confirm, type/ });
      await box.fill(asked);
      if ((await box.inputValue()) !== asked) throw new Error('the confirmation box does not hold the name');
      return asked;
    });

    const sudo = page.getByRole('dialog', { name: 'Confirm access' });
    const clicked = await ctx.step(
      'click',
      "button 'Delete this repository' in dialog",
      async () => {
        await clickToSend(dialog.getByRole('button', { name: 'Delete this repository' }));
        const outcome = await until<'deleted' | 'sudo' | { refused: string }>(
          'ForgeHub to delete the repository (or to ask to confirm access)',
          async () => {
            if ((await deletedToast(page).count()) > 0) return 'deleted';
            if (await sudo.isVisible()) return 'sudo';
            const alert = page.getByRole('dialog').getByRole('alert');
            if ((await alert.count()) > 0) return { refused: collapse(await alert.first().innerText()) };
            return undefined;
          },
          waitBudget(ctx),
        );
        if (typeof outcome === 'object') throw new WriteRefused(`ForgeHub did not delete ${fullName}: ${outcome.refused}`);
        return outcome;
      },
      // Asked to confirm access, ForgeHub has deleted nothing yet: the person's password does (below).
      { writes: (outcome) => outcome === 'deleted' },
    );

    if (clicked === 'sudo') {
      await askPerson(ctx, 'password asked by ForgeHub (Confirm access)', {
        reason: 'OTHER',
        message:
          `ForgeHub asks you to confirm your password before it deletes ${fullName}. ` +
          'Enter your ForgeHub password in the “Confirm access” box, then press Confirm.',
        done: async () => (await deletedToast(page).count()) > 0,
      });
      await ctx.step(
        'extract',
        'the deletion, once access was confirmed',
        async () => {
          await until(
            'ForgeHub to delete the repository after the password',
            async () => (await deletedToast(page).count()) > 0 || (!(await sudo.isVisible()) && (await gone(page, base))),
            waitBudget(ctx, 5000),
          ).catch(async (err: unknown) => {
            // Still asking: the password was not (or not rightly) entered, and nothing was deleted.
            if (await sudo.isVisible().catch(() => false))
              throw new WriteRefused(`ForgeHub did not delete ${fullName}: it still asks to confirm access`);
            throw err;
          });
        },
        { writes: true },
      );
    }

    await ctx.step('extract', `repository ${fullName} is gone`, async () => {
      if (!(await gone(page, base))) throw new Error(`ForgeHub still shows ${fullName}`);
    });
    const [o, n] = fullName.split('/') as [string, string];
    return ctx.fit({ deleted: true, repository: fullName, owner: o, name: n }, FIELD_ALIASES);
  },
});
