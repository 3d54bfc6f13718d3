import type { Router } from 'express';

import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { type Activity, fullName } from '../model';
import { forgeFor, visLabel } from '../parts';
import { ago, avatar, cx, h, icon, lang } from '../ui';

function activityLine(a: Activity): RawHtml {
  const repo = html`<a href="${`/${a.repo}`}">${a.repo}</a>`;
  const issue = a.number
    ? html`<a href="${`/${a.repo}/issues/${a.number}`}">${a.title ?? `#${a.number}`}</a> <span class="${cx('fh-muted')}">${`${a.repo}#${a.number}`}</span>`
    : '';
  const who = html`<a href="${`/${a.actor}`}"><strong>${a.actor}</strong></a>`;
  switch (a.type) {
    case 'created_repo':
      return html`${who} created a repository ${repo}`;
    case 'starred':
      return html`${who} starred ${repo}`;
    case 'opened_issue':
      return html`${who} opened an issue in ${repo}: ${issue}`;
    case 'commented':
      return html`${who} commented on ${issue}`;
    case 'closed_issue':
      return html`${who} closed ${issue}`;
    case 'reopened_issue':
      return html`${who} reopened ${issue}`;
  }
}

const ACTIVITY_ICON: Record<Activity['type'], string> = {
  created_repo: 'repo',
  starred: 'star',
  opened_issue: 'issue',
  commented: 'comment',
  closed_issue: 'closed',
  reopened_issue: 'issue',
};

export function dashboardRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/',
    h(async (req, res) => {
      const forge = forgeFor(kit, res);
      const now = kit.now();
      const mine = await forge.ownedBy(forge.me);
      const feed = (await forge.activity()).slice(0, 20);
      const explore = [];
      for (const d of (await forge.repos()).filter((d) => d.data.owner !== forge.me))
        explore.push({ d, stars: await forge.starCount(d.data) });
      explore.sort((a, b) => b.stars - a.stars);

      const item = (a: Doc<Activity>) =>
        html`<li class="${cx('fh-feed-item')}">${avatar(a.data.actor, 32)}<div><p>${icon(ACTIVITY_ICON[a.data.type], cx('fh-muted'))} ${activityLine(a.data)}</p><p class="${cx('fh-muted')} ${cx('fh-small')}">${ago(a.createdAt, now)}</p></div></li>`;

      kit.page(req, res, {
        title: 'Dashboard',
        active: 'dashboard',
        body: html`<div class="${cx('fh-grid')} ${cx('fh-grid-left')}">
<aside aria-labelledby="${cx('fh-top-repos')}">
  <div class="${cx('fh-side-head')}"><h2 id="${cx('fh-top-repos')}">Your repositories</h2><a class="${cx('fh-btn')} ${cx('fh-btn-primary')} ${cx('fh-btn-sm')}" href="/new">${icon('plus')}New</a></div>
  <label class="${cx('fh-sr')}" for="${cx('fh-dash-filter')}">Filter your repositories</label>
  <input id="${cx('fh-dash-filter')}" class="${cx('fh-input')} ${cx('fh-filter')}" type="search" placeholder="Find a repository…" aria-controls="${cx('fh-dash-repos')}" autocomplete="off">
  <ul id="${cx('fh-dash-repos')}" class="${cx('fh-list')} ${cx('fh-side-list')}">
    ${mine.map((d) => html`<li>${avatar(d.data.owner, 16)}<a href="${`/${d.data.owner}/${d.data.name}`}">${fullName(d.data)}</a>${d.data.visibility === 'private' ? visLabel(d.data) : ''}</li>`)}
  </ul>
  ${mine.length ? '' : html`<p class="${cx('fh-muted')}">You don't have any repositories yet. <a href="/new">Create one</a>.</p>`}
  <h2 class="${cx('fh-small')}" style="margin-top:24px">Explore repositories</h2>
  <ul class="${cx('fh-list')}">
    ${explore
      .slice(0, 3)
      .map(
        ({ d, stars }) =>
          html`<li class="${cx('fh-box-row')}" style="padding:10px 0"><a href="${`/${d.data.owner}/${d.data.name}`}"><strong>${fullName(d.data)}</strong></a><p class="${cx('fh-muted')} ${cx('fh-small')}" style="margin:4px 0">${d.data.description}</p><div class="${cx('fh-repo-meta')}">${icon('star')} ${stars.toLocaleString('en-US')} ${lang(d.data.language)}</div></li>`,
      )}
  </ul>
</aside>
<section aria-labelledby="${cx('fh-feed-h')}">
  <h1 id="${cx('fh-feed-h')}" style="font-size:20px;margin:0 0 8px">Recent activity</h1>
  ${feed.length ? html`<ul class="${cx('fh-list')}">${feed.map(item)}</ul>` : html`<p class="${cx('fh-muted')}">Nothing here yet. Star repositories and follow people to see what they are up to.</p>`}
</section>
</div>`,
      });
    }),
  );
}
