import type { Router } from 'express';

import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { fullName, type Issue, type IssueState, keyOf, type Repo } from '../model';
import { forgeFor } from '../parts';
import { ago, blankslate, cx, h, icon, pagination, plural } from '../ui';

/**
 * "Your issues" (/issues), as GitHub's global issues page: the issues the signed-in user opened anywhere
 * ("Created by you") or that were opened in repositories they own ("In your repositories"), open or closed,
 * newest first, 25 to a page.
 */
const PAGE = 25;
type Filter = 'created' | 'repositories';

function item(r: Repo, d: Doc<Issue>, comments: number, now: Date): RawHtml {
  const i = d.data;
  const href = `/${r.owner}/${r.name}/issues/${i.number}`;
  return html`<li class="${cx('fh-issue-item')}">
  ${i.state === 'open' ? icon('issue', cx('fh-io')) : icon('closed', cx('fh-ic'))}
  <div><a class="${cx('fh-muted')}" href="${`/${r.owner}/${r.name}`}">${fullName(r)}</a> <a class="${cx('fh-issue-title')}" href="${href}">${i.title}</a>${i.labels.map((l) => html` <span class="${cx('fh-label')} ${cx(`fh-lbl-${l.replace(/\s+/g, '-')}`)}">${l}</span>`)}
  <div class="${cx('fh-issue-meta')}">#${i.number} ${i.state === 'open' ? html`opened ${ago(d.createdAt, now)}` : html`closed ${ago(i.closedAt ?? d.updatedAt, now)}`} by <a href="${`/${i.author}`}" class="${cx('fh-muted')}">${i.author}</a></div></div>
  ${comments ? html`<a class="${cx('fh-issue-right')}" href="${href}" aria-label="${plural(comments, 'comment')}">${icon('comment')}${comments}</a>` : ''}
</li>`;
}

export function myIssueRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/issues',
    h(async (req, res) => {
      const forge = forgeFor(kit, res);
      const now = kit.now();
      const filter: Filter = req.query.filter === 'repositories' ? 'repositories' : 'created';
      const state: IssueState = req.query.state === 'closed' ? 'closed' : 'open';
      const me = forge.me.toLowerCase();
      const found: { repo: Repo; issue: Doc<Issue>; comments: number }[] = [];
      for (const repo of await forge.repos()) {
        const mine = repo.data.owner.toLowerCase() === me;
        const counts = await forge.commentCounts(repo.data);
        for (const issue of await forge.issues(repo.data)) {
          if (filter === 'created' ? issue.data.author.toLowerCase() === me : mine)
            found.push({ repo: repo.data, issue, comments: counts.get(issue.data.number) ?? 0 });
        }
      }
      found.sort((a, b) => b.issue.createdAt.getTime() - a.issue.createdAt.getTime() || keyOf(a.repo).localeCompare(keyOf(b.repo)));
      const list = found.filter((f) => f.issue.data.state === state);
      const pages = Math.max(1, Math.ceil(list.length / PAGE));
      const requested = Number.parseInt(String(req.query.page ?? '1'), 10);
      const page = Number.isFinite(requested) ? Math.min(Math.max(1, requested), pages) : 1;
      const slice = list.slice((page - 1) * PAGE, page * PAGE);
      const href = (o: { filter?: Filter; state?: IssueState; page?: number }) => {
        const q = new URLSearchParams({ filter: o.filter ?? filter, state: o.state ?? state });
        if (o.page && o.page > 1) q.set('page', String(o.page));
        return `/issues?${q.toString()}`;
      };
      const cur = (on: boolean) => (on ? html` aria-current="page"` : '');
      const openCount = found.length - found.filter((f) => f.issue.data.state === 'closed').length;
      kit.page(req, res, {
        title: 'Your issues',
        active: 'issues',
        body: html`<div class="${cx('fh-pagehead')}"><h1>Your issues</h1>
  <nav class="${cx('fh-states')}" aria-label="Issue filter"><a href="${href({ filter: 'created', state: 'open' })}"${cur(filter === 'created')}>Created by you</a><a href="${href({ filter: 'repositories', state: 'open' })}"${cur(filter === 'repositories')}>In your repositories</a></nav></div>
<div class="${cx('fh-box')}">
  <div class="${cx('fh-box-head')}">
    <nav class="${cx('fh-states')}" aria-label="Issue state">
      <a href="${href({ state: 'open' })}"${cur(state === 'open')}>${icon('issue')}${openCount} Open</a>
      <a href="${href({ state: 'closed' })}"${cur(state === 'closed')}>${icon('check')}${found.length - openCount} Closed</a>
    </nav>
  </div>
  ${
    slice.length
      ? html`<ul class="${cx('fh-list')}" aria-label="${`${state === 'open' ? 'Open' : 'Closed'} issues`}">${slice.map((f) => item(f.repo, f.issue, f.comments, now))}</ul>`
      : blankslate(
          state === 'open' ? 'No open issues' : 'No closed issues',
          filter === 'created' ? 'Issues you open in any repository show up here.' : 'Issues opened in your repositories show up here.',
          'issue',
        )
  }
</div>
${pagination(page, pages, (p) => href({ page: p }))}`,
      });
    }),
  );
}
