import type { Request, Response, Router } from 'express';

import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { StepUps } from '../../../../sandbox/kit/step-up';
import { asksToStepUp, findTestUser } from '../../../../sandbox/test-users';
import { type Forge, fullName, keyOf, type Repo } from '../model';
import { cx, h, icon, notFound } from '../ui';
import { loadRepo, repoHead } from './repo';

/**
 * A repository's settings (its owner only): the Danger Zone's "Delete this repository", confirmed by typing the
 * repository's full name in a dialog, as on GitHub. For the test users whose behaviour is `step-up`, ForgeHub then
 * asks for their password first ("Confirm access", GitHub's sudo mode), per deletion: the delete waits in a step-up
 * challenge (kit/step-up.ts) that only the dialog's form, posted with the right password, can complete. Every other
 * user deletes once the name is typed.
 */
type SudoFor = { repo: string };

interface SettingsView {
  /** The name typed did not match: the delete dialog opens again with this error. */
  deleteError?: string;
  /** The delete waits for the password: the "Confirm access" dialog opens with this challenge. */
  sudo?: { challenge: string; error?: string };
}

const sudoStepUps = (kit: SiteKit) => new StepUps<SudoFor>(kit, 'forgehub', 'sudo-delete-repository');

/** Loads the repository in the URL if the viewer owns it; anyone else gets the 404 GitHub shows them. */
async function ownRepo(kit: SiteKit, req: Request, res: Response): Promise<{ forge: Forge; repo: Doc<Repo> } | null> {
  const loaded = await loadRepo(kit, req, res);
  if (!loaded) return null;
  if (!loaded.forge.owns(loaded.repo.data)) {
    kit.page(req, res, { title: 'Page not found', body: notFound('page') }, 404);
    return null;
  }
  return loaded;
}

export function settingsRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/:owner/:repo/settings',
    h(async (req, res) => {
      const loaded = await ownRepo(kit, req, res);
      if (loaded) await render(kit, req, res, loaded.forge, loaded.repo, {});
    }),
  );

  router.post(
    '/:owner/:repo/delete',
    h(async (req, res) => {
      const loaded = await ownRepo(kit, req, res);
      if (!loaded) return;
      const { forge, repo } = loaded;
      const name = fullName(repo.data);
      if (String(req.body?.verify ?? '').trim() !== name) {
        const deleteError = `To delete the repository, type ${name} exactly as shown.`;
        return render(kit, req, res, forge, repo, { deleteError }, 422);
      }
      if (asksToStepUp(forge.me)) {
        const stepUps = sudoStepUps(kit);
        const pending = req.body?.sudo ? await stepUps.take(res, req.body.sudo) : null;
        if (!pending || pending.data.repo !== keyOf(repo.data)) {
          // No confirmation yet (or an expired one): nothing is deleted, the password is asked for first.
          const challenge = await stepUps.open(res, { repo: keyOf(repo.data) });
          const error = req.body?.sudo ? 'Your confirmation expired. Enter your password again.' : undefined;
          return render(kit, req, res, forge, repo, { sudo: { challenge, ...(error ? { error } : {}) } });
        }
        if (findTestUser(forge.me)?.password !== req.body?.password) {
          const challenge = await stepUps.again(res, pending);
          if (!challenge) {
            kit.flash(res, `Too many incorrect passwords. ${name} was not deleted.`);
            return res.redirect(303, `/${name}/settings`);
          }
          return render(kit, req, res, forge, repo, { sudo: { challenge, error: 'Incorrect password.' } }, 422);
        }
      }
      await forge.deleteRepo(repo);
      kit.flash(res, `Your repository “${name}” was successfully deleted.`);
      res.redirect(303, '/');
    }),
  );
}

async function render(kit: SiteKit, req: Request, res: Response, forge: Forge, repo: Doc<Repo>, view: SettingsView, status = 200) {
  const name = fullName(repo.data);
  kit.page(
    req,
    res,
    {
      title: `Settings · ${name}`,
      body: html`${await repoHead(kit, req, res, forge, repo, 'settings')}
<div class="${cx('fh-form')}">
<div class="${cx('fh-pagehead')}"><h1>Settings</h1></div>
<section class="${cx('fh-box')}" aria-labelledby="${cx('fh-general-h')}" style="margin-bottom:24px">
  <div class="${cx('fh-box-head')}"><h2 id="${cx('fh-general-h')}" style="font-size:16px;margin:0">General</h2></div>
  <div class="${cx('fh-box-row')}"><span class="${cx('fh-field-label')}">Repository name</span>${repo.data.name}</div>
  <div class="${cx('fh-box-row')}"><span class="${cx('fh-field-label')}">Visibility</span>${repo.data.visibility === 'private' ? 'Private' : 'Public'}</div>
</section>
<section class="${cx('fh-box')} ${cx('fh-danger')}" aria-labelledby="${cx('fh-danger-h')}">
  <div class="${cx('fh-box-head')}"><h2 id="${cx('fh-danger-h')}" style="font-size:16px;margin:0">Danger Zone</h2></div>
  <div class="${cx('fh-box-row')} ${cx('fh-danger-row')}">
    <div><strong>Delete this repository</strong><p class="${cx('fh-muted')}" style="margin:2px 0 0">Once you delete a repository, there is no going back. Please be certain.</p></div>
    <button type="button" class="${cx('fh-btn')} ${cx('fh-btn-danger')} ${cx('fh-dlg-open')}" aria-haspopup="dialog" aria-controls="${cx('fh-delete-dialog')}">Delete this repository</button>
  </div>
</section>
</div>
${deleteDialog(kit, res, repo.data, view.deleteError)}
${view.sudo ? sudoDialog(kit, res, repo.data, view.sudo) : ''}`,
    },
    status,
  );
}

/** The classic confirmation: the repository's full name, typed. Opens with the page again when the name was wrong. */
function deleteDialog(kit: SiteKit, res: Response, r: Repo, error: string | undefined): RawHtml {
  const name = fullName(r);
  return html`<dialog id="${cx('fh-delete-dialog')}" class="${cx('fh-dialog')} ${cx('fh-dialog-sm')}" aria-labelledby="${cx('fh-delete-h')}" aria-describedby="${cx('fh-delete-d')}"${error ? html` data-open-on-load` : ''}>
  <div class="${cx('fh-dialog-head')}"><h2 id="${cx('fh-delete-h')}">Delete ${name}</h2><button type="button" class="${cx('fh-dialog-x')} ${cx('fh-dlg-close')}" aria-label="Close dialog">×</button></div>
  <form method="post" action="${`/${name}/delete`}">
    ${kit.csrfField(res)}
    <div class="${cx('fh-dialog-body')}">
      <p id="${cx('fh-delete-d')}" style="margin:0 0 14px">This will permanently delete the <strong>${name}</strong> repository, its issues, comments and stars. This cannot be undone.</p>
      <label class="${cx('fh-field-label')}" for="${cx('fh-delete-verify')}">To confirm, type <strong>${name}</strong> in the box below</label>
      <input id="${cx('fh-delete-verify')}" class="${cx('fh-input')}" name="verify" autocomplete="off" spellcheck="false" required autofocus${error ? html` aria-invalid="true" aria-describedby="${cx('fh-delete-err')}"` : ''}>
      ${error ? html`<p id="${cx('fh-delete-err')}" class="${cx('fh-error')}" role="alert">${error}</p>` : ''}
    </div>
    <div class="${cx('fh-dialog-foot')}">
      <button type="button" class="${cx('fh-btn')} ${cx('fh-dlg-close')}">Cancel</button>
      <button type="submit" class="${cx('fh-btn')} ${cx('fh-btn-danger')}">Delete this repository</button>
    </div>
  </form>
</dialog>`;
}

/** "Confirm access" (sudo mode): the password, for this one deletion; opens with the page that asks for it. */
function sudoDialog(kit: SiteKit, res: Response, r: Repo, sudo: { challenge: string; error?: string }): RawHtml {
  const me = kit.user(res).username;
  return html`<dialog id="${cx('fh-sudo-dialog')}" class="${cx('fh-dialog')} ${cx('fh-dialog-sm')}" aria-labelledby="${cx('fh-sudo-h')}" aria-describedby="${cx('fh-sudo-d')}" data-open-on-load>
  <div class="${cx('fh-dialog-head')}"><h2 id="${cx('fh-sudo-h')}">${icon('lock')} Confirm access</h2><button type="button" class="${cx('fh-dialog-x')} ${cx('fh-dlg-close')}" aria-label="Close dialog">×</button></div>
  <form method="post" action="${`/${fullName(r)}/delete`}">
    ${kit.csrfField(res)}<input type="hidden" name="verify" value="${fullName(r)}"><input type="hidden" name="sudo" value="${sudo.challenge}">
    <div class="${cx('fh-dialog-body')}">
      <p id="${cx('fh-sudo-d')}" style="margin:0 0 14px">Deleting a repository is a sensitive action. Signed in as <strong>@${me}</strong>: confirm your password to delete <strong>${fullName(r)}</strong>.</p>
      <label class="${cx('fh-field-label')}" for="${cx('fh-sudo-password')}">Password</label>
      <input id="${cx('fh-sudo-password')}" class="${cx('fh-input')}" type="password" name="password" autocomplete="current-password" required autofocus${sudo.error ? html` aria-invalid="true" aria-describedby="${cx('fh-sudo-err')}"` : ''}>
      ${sudo.error ? html`<p id="${cx('fh-sudo-err')}" class="${cx('fh-error')}" role="alert">${sudo.error}</p>` : ''}
    </div>
    <div class="${cx('fh-dialog-foot')}">
      <button type="button" class="${cx('fh-btn')} ${cx('fh-dlg-close')}">Cancel</button>
      <button type="submit" class="${cx('fh-btn')} ${cx('fh-btn-primary')}">Confirm</button>
    </div>
  </form>
</dialog>`;
}
