import type { Router } from 'express';

import { html } from '../../../../sandbox/kit/html';
import type { SiteKit } from '../../../../sandbox/kit/site';
import { forgeFor, repoRow, starControl } from '../parts';
import { avatar, blankslate, cx, h, icon, lang, notFound, plural } from '../ui';

export function starsRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/stars',
    h(async (req, res) => {
      const forge = forgeFor(kit, res);
      const starred = await forge.starredBy(forge.me);
      const rows = [];
      for (const { repo } of starred) {
        const count = await forge.starCount(repo.data);
        rows.push(repoRow(repo, count, kit.now(), starControl(repo.data, true, count, kit.csrfField(res), '/stars')));
      }
      kit.page(req, res, {
        title: 'Your stars',
        active: 'stars',
        body: html`<div class="${cx('fh-pagehead')}"><h1>Your stars</h1><span class="${cx('fh-muted')}">${plural(starred.length, 'repository', 'repositories')}</span></div>
${
  starred.length
    ? html`<ul class="${cx('fh-list')}" aria-label="Starred repositories">${rows}</ul>`
    : blankslate(
        'You haven’t starred any repositories yet',
        html`Starring a repository makes it easy to find again. <a href="/repositories">Explore repositories</a>.`,
        'star',
      )
}`,
      });
    }),
  );
}

/** Profiles live at /:username, so they are mounted after every fixed path. */
export function profileRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/:username',
    h(async (req, res) => {
      const forge = forgeFor(kit, res);
      const person = await forge.person(String(req.params.username));
      if (!person) return kit.page(req, res, { title: 'Page not found', body: notFound('user') }, 404);
      const u = person.username;
      const self = u === forge.me;
      const tab = req.query.tab === 'repositories' || req.query.tab === 'stars' ? req.query.tab : 'overview';
      const repos = await forge.ownedBy(u);
      const starred = await forge.starredBy(u);
      const followers = await forge.followers(u);
      const following = await forge.following(u);
      const iFollow = followers.some((f) => f.data.follower === forge.me);
      const now = kit.now();

      const counts = [];
      for (const d of repos) counts.push({ d, stars: await forge.starCount(d.data) });
      let content;
      if (tab === 'repositories') {
        content = repos.length
          ? html`<ul class="${cx('fh-list')}" aria-label="Repositories">${counts.map(({ d, stars }) => repoRow(d, stars, now))}</ul>`
          : blankslate(`${u} doesn’t have any public repositories yet.`, '');
      } else if (tab === 'stars') {
        const rows = [];
        for (const { repo } of starred) rows.push(repoRow(repo, await forge.starCount(repo.data), now));
        content = starred.length
          ? html`<ul class="${cx('fh-list')}" aria-label="Starred repositories">${rows}</ul>`
          : blankslate(`${u} hasn’t starred any repositories yet.`, '', 'star');
      } else {
        const popular = [...counts].sort((a, b) => b.stars - a.stars).slice(0, 6);
        content = html`<h2 style="font-size:16px;font-weight:400;margin:0 0 8px">Popular repositories</h2>
${
  popular.length
    ? html`<div class="${cx('fh-cards')}">${popular.map(
        ({ d, stars }) =>
          html`<div class="${cx('fh-card')}"><div><a href="${`/${d.data.owner}/${d.data.name}`}"><strong>${d.data.name}</strong></a> <span class="${cx('fh-label')} ${cx('fh-vis')}">${d.data.visibility === 'private' ? 'Private' : 'Public'}</span></div><p>${d.data.description}</p><div class="${cx('fh-repo-meta')}">${lang(d.data.language)}<span>${icon('star')} ${stars.toLocaleString('en-US')}</span></div></div>`,
      )}</div>`
    : blankslate(`${u} doesn’t have any public repositories yet.`, '')
}`;
      }
      const tabLink = (t: string, label: string, n?: number) =>
        html`<a href="${t === 'overview' ? `/${u}` : `/${u}?tab=${t}`}"${tab === t ? html` aria-current="page"` : ''}>${label}${n === undefined ? '' : html` <span class="${cx('fh-counter')}">${n}</span>`}</a>`;

      kit.page(req, res, {
        title: `${u} (${person.name})`,
        active: self ? 'profile' : undefined,
        body: html`<div class="${cx('fh-grid')} ${cx('fh-grid-left')}">
<aside class="${cx('fh-profile-side')}" aria-label="Profile">
  ${avatar(u, 232, person.name)}
  <h1 class="${cx('fh-profile-name')}">${person.name}</h1>
  <p class="${cx('fh-profile-login')}">${u}</p>
  ${
    self
      ? ''
      : person.isOrg
        ? ''
        : html`<form method="post" action="${`/${u}/${iFollow ? 'unfollow' : 'follow'}`}">${kit.csrfField(res)}<button type="submit" class="${cx('fh-btn')}" style="width:100%;justify-content:center">${iFollow ? 'Unfollow' : 'Follow'}</button></form>`
  }
  ${person.bio ? html`<p>${person.bio}</p>` : ''}
  <dl class="${cx('fh-stats')}" aria-label="Profile counts">
    <div><dt class="${cx('fh-sr')}">Followers</dt><dd style="margin:0">${icon('people')} <strong>${followers.length}</strong> ${followers.length === 1 ? 'follower' : 'followers'}</dd></div>
    <div><dt class="${cx('fh-sr')}">Following</dt><dd style="margin:0"><strong>${following.length}</strong> following</dd></div>
    <div><dt class="${cx('fh-sr')}">Repositories</dt><dd style="margin:0"><strong>${repos.length}</strong> ${repos.length === 1 ? 'repository' : 'repositories'}</dd></div>
    <div><dt class="${cx('fh-sr')}">Stars</dt><dd style="margin:0"><strong>${starred.length}</strong> ${starred.length === 1 ? 'star' : 'stars'}</dd></div>
  </dl>
  <ul class="${cx('fh-facts')}">
    ${person.company ? html`<li>${icon('people')} ${person.company}</li>` : ''}
    ${person.location ? html`<li>${icon('location')} ${person.location}</li>` : ''}
    ${person.website ? html`<li>${icon('book')} <a href="${`https://${person.website}`}" rel="nofollow noopener">${person.website}</a></li>` : ''}
  </ul>
</aside>
<section aria-label="${`${u}'s content`}">
  <nav class="${cx('fh-tabs')}" aria-label="Profile" style="margin:0 0 16px;border-bottom:1px solid #d1d9e0">
    ${tabLink('overview', 'Overview')}${tabLink('repositories', 'Repositories', repos.length)}${tabLink('stars', 'Stars', starred.length)}
  </nav>
  ${content}
</section>
</div>`,
      });
    }),
  );

  for (const action of ['follow', 'unfollow'] as const) {
    router.post(
      `/:username/${action}`,
      h(async (req, res) => {
        const forge = forgeFor(kit, res);
        const person = await forge.person(String(req.params.username));
        if (!person) return kit.page(req, res, { title: 'Page not found', body: notFound('user') }, 404);
        if (person.username !== forge.me && !person.isOrg) {
          if (action === 'follow') await forge.follow(person.username);
          else await forge.unfollow(person.username);
        }
        kit.flash(res, action === 'follow' ? `You are now following ${person.username}.` : `You unfollowed ${person.username}.`);
        res.redirect(303, `/${person.username}`);
      }),
    );
  }
}
