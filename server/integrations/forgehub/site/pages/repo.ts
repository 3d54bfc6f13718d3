import type { Request, Response, Router } from 'express';

import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { type Forge, fullName, type Repo } from '../model';
import { forgeFor, starControl, visLabel } from '../parts';
import { ago, backTo, blankslate, cx, h, icon, lang, notFound, plural, rich } from '../ui';

/** Loads the repository named in the URL, or answers 404 (also for someone else's private repository). */
export async function loadRepo(kit: SiteKit, req: Request, res: Response): Promise<{ forge: Forge; repo: Doc<Repo> } | null> {
  const forge = forgeFor(kit, res);
  const repo = await forge.repo(String(req.params.owner), String(req.params.repo));
  if (!repo) {
    kit.page(req, res, { title: 'Page not found', body: notFound('repository') }, 404);
    return null;
  }
  return { forge, repo };
}

/** Header shared by a repository's pages: name, visibility, star control, tabs. */
export async function repoHead(
  kit: SiteKit,
  req: Request,
  res: Response,
  forge: Forge,
  repo: Doc<Repo>,
  tab: 'code' | 'issues' | 'settings',
): Promise<RawHtml> {
  const r = repo.data;
  const base = `/${r.owner}/${r.name}`;
  const starred = !!(await forge.starOf(r));
  const count = await forge.starCount(r);
  const open = (await forge.issues(r)).filter((i) => i.data.state === 'open').length;
  const cur = (t: string) => (t === tab ? html` aria-current="page"` : '');
  return html`<div class="${cx('fh-repohead')}">
  <div class="${cx('fh-repohead-top')}">
    ${icon(r.visibility === 'private' ? 'lock' : 'repo', cx('fh-muted'))}
    <span><a href="${`/${r.owner}`}">${r.owner}</a> / <strong><a href="${base}">${r.name}</a></strong></span>
    ${visLabel(r)}
    <div class="${cx('fh-repohead-actions')}">${starControl(r, starred, count, kit.csrfField(res), req.originalUrl)}</div>
  </div>
  <nav class="${cx('fh-tabs')}" aria-label="Repository">
    <a href="${base}"${cur('code')}>${icon('book')}Code</a>
    <a href="${`${base}/issues`}"${cur('issues')}>${icon('issue')}Issues <span class="${cx('fh-counter')}">${open}</span></a>
    ${forge.owns(r) ? html`<a href="${`${base}/settings`}"${cur('settings')}>${icon('gear')}Settings</a>` : ''}
  </nav>
</div>`;
}

export function repoRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/:owner/:repo',
    h(async (req, res) => {
      const loaded = await loadRepo(kit, req, res);
      if (!loaded) return;
      const { forge, repo } = loaded;
      const r = repo.data;
      const now = kit.now();
      const issues = await forge.issues(r);
      const open = issues.filter((i) => i.data.state === 'open');
      const stars = await forge.starCount(r);
      const host = req.get('host') ?? 'forgehub.sandbox.localhost';
      const readme = r.readme
        ? html`<div class="${cx('fh-box')}"><div class="${cx('fh-box-head')}">${icon('book')}<strong>README.md</strong></div><div class="${cx('fh-readme')}">${rich(r.readme)}</div></div>`
        : html`<div class="${cx('fh-box')}"><div class="${cx('fh-box-head')}"><strong>Quick setup</strong> — if you've done this kind of thing before</div><div class="${cx('fh-readme')}">
<p>This repository is empty. Get started by cloning it or pushing an existing repository from the command line.</p>
<pre class="${cx('fh-clone')}">git clone http://${host}/${r.owner}/${r.name}.git</pre>
<pre class="${cx('fh-clone')}">git remote add origin http://${host}/${r.owner}/${r.name}.git
git branch -M main
git push -u origin main</pre></div></div>`;

      kit.page(req, res, {
        title: fullName(r),
        body: html`${await repoHead(kit, req, res, forge, repo, 'code')}
<div class="${cx('fh-grid')}">
  <div>
    ${readme}
    <h2 style="font-size:16px;margin:24px 0 8px">Recent open issues</h2>
    ${
      open.length
        ? html`<ul class="${cx('fh-box')} ${cx('fh-list')}">${open.slice(0, 5).map((i) => html`<li class="${cx('fh-issue-item')}">${icon('issue', cx('fh-io'))}<div><a class="${cx('fh-issue-title')}" href="${`/${r.owner}/${r.name}/issues/${i.data.number}`}">${i.data.title}</a><div class="${cx('fh-issue-meta')}">#${i.data.number} opened ${ago(i.createdAt, now)} by ${i.data.author}</div></div></li>`)}</ul>
         <p><a href="${`/${r.owner}/${r.name}/issues`}">View all ${plural(open.length, 'open issue')}</a></p>`
        : blankslate('No open issues', html`<a href="${`/${r.owner}/${r.name}/issues/new`}">Open the first one</a>.`, 'issue')
    }
  </div>
  <aside class="${cx('fh-about')}" aria-labelledby="${cx('fh-about-h')}">
    <h2 id="${cx('fh-about-h')}">About</h2>
    <p>${r.description || html`<span class="${cx('fh-muted')}">No description, website, or topics provided.</span>`}</p>
    ${r.topics.length ? html`<p>${r.topics.map((t) => html`<a class="${cx('fh-label')} ${cx('fh-topic')}" href="${`/repositories?q=${encodeURIComponent(t)}`}">${t}</a>`)}</p>` : ''}
    <ul class="${cx('fh-about-stats')}">
      <li>${icon('book')} Readme</li>
      <li>${icon('star')} <span><strong>${stars.toLocaleString('en-US')}</strong> ${stars === 1 ? 'star' : 'stars'}</span></li>
      <li>${icon('fork')} <span><strong>${r.forks}</strong> ${r.forks === 1 ? 'fork' : 'forks'}</span></li>
      <li>${icon('issue')} <span><strong>${open.length}</strong> open ${open.length === 1 ? 'issue' : 'issues'}</span></li>
      ${r.language ? html`<li>${lang(r.language)}</li>` : ''}
      <li>Created ${ago(repo.createdAt, now)}</li>
    </ul>
  </aside>
</div>`,
      });
    }),
  );

  for (const action of ['star', 'unstar'] as const) {
    router.post(
      `/:owner/:repo/${action}`,
      h(async (req, res) => {
        const loaded = await loadRepo(kit, req, res);
        if (!loaded) return;
        const { forge, repo } = loaded;
        if (action === 'star') {
          const already = await forge.starOf(repo.data);
          await forge.star(repo.data);
          if (!already) await forge.record({ actor: forge.me, type: 'starred', repo: fullName(repo.data) });
        } else {
          await forge.unstar(repo.data);
        }
        if ((req.get('accept') ?? '').includes('application/json')) {
          res.json({ starred: action === 'star', stars: await forgeFor(kit, res).starCount(repo.data) });
          return;
        }
        res.redirect(303, backTo(req.body?.next, `/${repo.data.owner}/${repo.data.name}`));
      }),
    );
  }
}
