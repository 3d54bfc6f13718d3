import type { Request, Response, Router } from 'express';

import { html } from '../../../../sandbox/kit/html';
import type { SiteKit } from '../../../../sandbox/kit/site';
import { fullName, type Repo, type Visibility } from '../model';
import { forgeFor, repoRow } from '../parts';
import { blankslate, cx, h, icon, pagination, plural } from '../ui';

const PER_PAGE = 10;
const NAME_RE = /^[A-Za-z0-9._-]+$/;

export function repositoryRoutes(router: Router, kit: SiteKit) {
  // ---------- all repositories: search + numbered pagination ----------
  router.get(
    '/repositories',
    h(async (req, res) => {
      const forge = forgeFor(kit, res);
      const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : '';
      const terms = q.toLowerCase().split(/\s+/).filter(Boolean);
      const all = await forge.reposByUpdate();
      const hits = all.filter((d) => {
        const r = d.data;
        const hay = `${fullName(r)} ${r.description} ${r.topics.join(' ')} ${r.language ?? ''}`.toLowerCase();
        return terms.every((t) => hay.includes(t));
      });
      const pages = Math.max(1, Math.ceil(hits.length / PER_PAGE));
      const requested = Number.parseInt(String(req.query.page ?? '1'), 10);
      const page = Number.isFinite(requested) ? Math.min(Math.max(1, requested), pages) : 1;
      const slice = hits.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      const rows = [];
      for (const d of slice) rows.push(repoRow(d, await forge.starCount(d.data), kit.now()));
      const href = (p: number) =>
        `/repositories?${new URLSearchParams({ ...(q ? { q } : {}), ...(p > 1 ? { page: String(p) } : {}) }).toString()}`;
      const from = hits.length ? (page - 1) * PER_PAGE + 1 : 0;

      kit.page(req, res, {
        title: q ? `Repositories matching “${q}”` : 'Repositories',
        active: 'repositories',
        body: html`<div class="${cx('fh-pagehead')}"><h1>Repositories</h1><a class="${cx('fh-btn')} ${cx('fh-btn-primary')}" href="/new">${icon('repo')}New repository</a></div>
<form method="get" action="/repositories" role="search" class="${cx('fh-searchrow')}">
  <label class="${cx('fh-sr')}" for="${cx('fh-repo-q')}">Find a repository</label>
  <input id="${cx('fh-repo-q')}" class="${cx('fh-input')}" type="search" name="q" value="${q}" placeholder="Find a repository…" autocomplete="off">
  <button type="submit" class="${cx('fh-btn')}">Search</button>
</form>
<p class="${cx('fh-resultcount')}">${
          hits.length
            ? html`<strong>${plural(hits.length, 'repository', 'repositories')}</strong>${q ? html` matching <strong>${q}</strong>` : ''} · showing ${from}–${from + slice.length - 1}${q ? html` · <a href="/repositories">Clear search</a>` : ''}`
            : html`<strong>0 repositories</strong> matching <strong>${q}</strong> · <a href="/repositories">Clear search</a>`
        }</p>
${hits.length ? html`<ul class="${cx('fh-list')}" aria-label="Repositories">${rows}</ul>` : blankslate('No repositories matched your search', 'Try a different name, topic or language.')}
${pagination(page, pages, href)}`,
      });
    }),
  );

  // ---------- create a repository ----------
  type Form = { name: string; description: string; visibility: Visibility; readme: boolean };
  type Errors = Partial<Record<'name' | 'description' | 'visibility', string>>;

  const render = (req: Request, res: Response, form: Form, errors: Errors, status = 200) => {
    const me = kit.user(res).username;
    const err = (field: keyof Errors) =>
      errors[field] ? html`<p id="${cx(`fh-err-${field}`)}" class="${cx('fh-error')}">${errors[field]}</p>` : '';
    const invalid = (field: keyof Errors) => (errors[field] ? html` aria-invalid="true" aria-describedby="${cx(`fh-err-${field}`)}"` : '');
    const count = Object.values(errors).filter(Boolean).length;
    const visOpt = (value: Visibility, title: string, text: string) =>
      html`<li role="option" id="${cx(`fh-vis-${value}`)}" class="${cx('fh-dd-opt')}" data-value="${value}" aria-selected="${form.visibility === value ? 'true' : 'false'}">${icon('check')}${icon(value === 'private' ? 'lock' : 'repo')}<div><strong>${title}</strong><span>${text}</span></div></li>`;

    kit.page(
      req,
      res,
      {
        title: 'Create a new repository',
        active: 'new',
        body: html`<div class="${cx('fh-form')}">
<div class="${cx('fh-pagehead')}"><div><h1>Create a new repository</h1><p class="${cx('fh-muted')}" style="margin:4px 0 0">A repository contains all project files, including the revision history. Already have a project elsewhere? Import is coming soon.</p></div></div>
${count ? html`<div class="${cx('fh-error-summary')}" role="alert"><strong>${count === 1 ? 'There is a problem with your repository.' : `There are ${count} problems with your repository.`}</strong> ${Object.values(errors).join(' ')}</div>` : ''}
<form method="post" action="/new" novalidate>
  ${kit.csrfField(res)}
  <p class="${cx('fh-muted')} ${cx('fh-small')}">Required fields are marked with an asterisk (*).</p>
  <div class="${cx('fh-owner-row')} ${cx('fh-field')}">
    <div><span class="${cx('fh-field-label')}">Owner *</span><span class="${cx('fh-ownerchip')}">${icon('people')}${me}</span></div>
    <span class="${cx('fh-slash')}" aria-hidden="true">/</span>
    <div>
      <label class="${cx('fh-field-label')}" for="${cx('fh-new-name')}">Repository name *</label>
      <input id="${cx('fh-new-name')}" class="${cx('fh-input')}" name="name" value="${form.name}" maxlength="100" autocomplete="off" spellcheck="false" required${invalid('name')}>
    </div>
  </div>
  ${err('name')}
  <p class="${cx('fh-hint')}" style="margin-top:-10px;margin-bottom:18px">Great repository names are short and memorable. Letters, numbers, hyphens, underscores and periods only.</p>
  <div class="${cx('fh-field')}">
    <label class="${cx('fh-field-label')}" for="${cx('fh-new-desc')}">Description <span class="${cx('fh-muted')}">(optional)</span></label>
    <input id="${cx('fh-new-desc')}" class="${cx('fh-input')}" name="description" value="${form.description}" maxlength="350"${invalid('description')}>
    ${err('description')}
  </div>
  <hr class="${cx('fh-sep')}">
  <div class="${cx('fh-field')}">
    <span class="${cx('fh-field-label')}" id="${cx('fh-vis-label')}">Visibility *</span>
    <div class="${cx('fh-dd')}">
      <input type="hidden" name="visibility" value="${form.visibility}">
      <button type="button" class="${cx('fh-btn')} ${cx('fh-dd-btn')}" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="${`${cx('fh-vis-label')} ${cx('fh-vis-value')}`}">
        <span id="${cx('fh-vis-value')}" class="${cx('fh-dd-value')}">${form.visibility === 'private' ? 'Private' : 'Public'}</span>${icon('chevron')}
      </button>
      <ul role="listbox" class="${cx('fh-dd-list')}" aria-labelledby="${cx('fh-vis-label')}" tabindex="-1" hidden>
        ${visOpt('public', 'Public', 'Anyone on the internet can see this repository.')}
        ${visOpt('private', 'Private', 'Only you can see this repository.')}
      </ul>
    </div>
    ${err('visibility')}
  </div>
  <hr class="${cx('fh-sep')}">
  <div class="${cx('fh-field')} ${cx('fh-check')}">
    <input type="checkbox" id="${cx('fh-new-readme')}" name="readme" value="1"${form.readme ? html` checked` : ''}>
    <div><label for="${cx('fh-new-readme')}"><strong>Add a README file</strong></label><p class="${cx('fh-hint')}" style="margin:0">This is where you can write a long description for your project.</p></div>
  </div>
  <hr class="${cx('fh-sep')}">
  <button type="submit" class="${cx('fh-btn')} ${cx('fh-btn-primary')}">Create repository</button>
</form>
</div>`,
      },
      status,
    );
  };

  router.get('/new', (req, res) => render(req, res, { name: '', description: '', visibility: 'public', readme: false }, {}));

  router.post(
    '/new',
    h(async (req, res) => {
      const forge = forgeFor(kit, res);
      const form: Form = {
        name: String(req.body?.name ?? '')
          .trim()
          .slice(0, 200),
        description: String(req.body?.description ?? '')
          .trim()
          .slice(0, 1000),
        visibility: req.body?.visibility === 'private' ? 'private' : 'public',
        readme: req.body?.readme === '1' || req.body?.readme === 'on',
      };
      const errors: Errors = {};
      if (!form.name) errors.name = 'Repository name is required.';
      else if (form.name.length > 100) errors.name = 'Repository name is too long (maximum is 100 characters).';
      else if (!NAME_RE.test(form.name))
        errors.name = 'Repository names can only contain letters, numbers, hyphens (-), underscores (_) and periods (.).';
      else if (form.name === '.' || form.name === '..' || form.name.toLowerCase().endsWith('.git'))
        errors.name = `The name “${form.name}” is reserved.`;
      else if (await forge.nameTaken(forge.me, form.name))
        errors.name = `The repository ${forge.me}/${form.name} already exists on this account.`;
      if (form.description.length > 350) errors.description = 'Description is too long (maximum is 350 characters).';
      if (req.body?.visibility !== 'public' && req.body?.visibility !== 'private')
        errors.visibility = 'Choose whether the repository is public or private.';
      if (Object.keys(errors).length) return render(req, res, form, errors, 422);

      const repo: Repo = {
        owner: forge.me,
        name: form.name,
        description: form.description,
        visibility: form.visibility,
        seedStars: 0,
        forks: 0,
        topics: [],
        ...(form.readme ? { readme: `# ${form.name}\n\n${form.description || 'A new repository.'}`, language: 'Markdown' } : {}),
      };
      await forge.createRepo(repo);
      await forge.record({ actor: forge.me, type: 'created_repo', repo: fullName(repo) });
      kit.flash(res, `Repository ${fullName(repo)} created.`);
      res.redirect(303, `/${repo.owner}/${repo.name}`);
    }),
  );
}
