import type { Router } from 'express';

import { html } from '../../../../sandbox/kit/html';
import type { SiteKit } from '../../../../sandbox/kit/site';
import { C } from '../classes';
import { type Follow, notify, type Person, World } from '../model';
import { avatar, cls, firstName, fmt, followControl, pager, plural, postCard, safeBack } from '../ui';
import { h, isMember, notFound, USERNAME } from './common';

export const NETWORK_PAGE_SIZE = 8;

export function peopleRoutes(router: Router, kit: SiteKit) {
  router.get('/me', (_req, res) => res.redirect(303, `/in/${kit.user(res).username}`));

  router.get(
    '/in/:username',
    h(async (req, res) => {
      const username = String(req.params.username);
      const w = await World.load(kit.docs(res), kit.user(res).username);
      const person = USERNAME.test(username) ? w.people.get(username) : undefined;
      if (!person) return notFound(req, res, kit, 'This profile is not available', 'The person may have changed their profile address.');
      const csrf = kit.csrfField(res);
      const now = kit.now();
      const self = person.username === w.viewer;
      const back = `/in/${person.username}`;
      const posts = w.visiblePosts(person.username);
      const followsYou = !self && w.isFollowing(person.username, w.viewer);
      const also = [...w.people.values()]
        .filter((p) => p.username !== person.username && p.username !== w.viewer && !isMember(p.username))
        .slice(0, 4);
      const body = html`<div class="${C.profileLayout}"><div>
<section class="${C.card}" aria-label="Profile"><div class="${C.profileHead}"><div class="${C.cover}"></div>${avatar(person, 'lg')}</div>
<div class="${C.profileBody}"><h1 class="${C.profileName}">${person.name}</h1>
<p class="${C.headline}">${person.headline}</p>
<p class="${cls('muted', 'small')}">${person.location}${followsYou ? html` · <strong>Follows you</strong>` : ''}</p>
<ul class="${C.counts}" aria-label="Audience"><li>${plural(w.followerCount(person.username), 'follower')}</li><li>${fmt(w.followingCount(person.username))} following</li></ul>
<div class="${C.profileActions}">${
        self
          ? html`<a class="${cls('btn', 'btnPrimary')}" href="/">Start a post</a>`
          : html`${followControl(w, person, csrf, back)}<a class="${cls('btn', 'btnGhost')}" href="/messaging/${person.username}">Message</a>`
      }</div></div></section>
${person.about ? html`<section class="${C.card}" aria-labelledby="about-title"><div class="${C.section}"><h2 id="about-title">About</h2><p>${person.about}</p></div></section>` : ''}
<section aria-labelledby="activity" id="activity-section"><div class="${C.card}"><div class="${C.section}"><h2 id="activity">Activity</h2>
<p class="${cls('muted', 'small')}">${self ? 'Posts and reposts you shared' : `Posts and reposts from ${firstName(person.name)}`}</p></div></div>
${posts.length ? posts.map((d) => postCard(w, d, { csrf, back, now })) : html`<div class="${C.card}"><p class="${C.empty}">${self ? 'You have not posted yet.' : `${firstName(person.name)} has not posted yet.`}</p></div>`}
</section></div>
<aside class="${C.side}" aria-label="People also viewed"><div class="${cls('card', 'pad')}"><h2 class="${C.cardTitle}">People also viewed</h2><ul class="${C.suggest}">${also.map(
        (p) =>
          html`<li class="${C.suggestItem}">${avatar(p, 'sm')}<div><a class="${C.postName}" href="/in/${p.username}">${p.name}</a><div class="${cls('muted', 'small')}">${p.headline}</div></div></li>`,
      )}</ul></div></aside></div>`;
      kit.page(req, res, { title: person.name, body, active: self ? 'me' : undefined });
    }),
  );

  // Who someone follows and who follows them (people of this network; the counts also include the wider one),
  // linked from the home page's Followers / Following.
  for (const tab of ['following', 'followers'] as const) {
    router.get(
      `/in/:username/${tab}`,
      h(async (req, res) => {
        const username = String(req.params.username);
        const w = await World.load(kit.docs(res), kit.user(res).username);
        const person = USERNAME.test(username) ? w.people.get(username) : undefined;
        if (!person) return notFound(req, res, kit, 'This profile is not available', 'The person may have changed their profile address.');
        const csrf = kit.csrfField(res);
        const back = `/in/${person.username}/${tab}`;
        const self = person.username === w.viewer;
        const people = w.follows
          .filter((f) => (tab === 'following' ? f.data.follower : f.data.followee) === person.username)
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
          .map((f) => w.person(tab === 'following' ? f.data.followee : f.data.follower));
        const listName =
          tab === 'following'
            ? `People ${self ? 'you follow' : `${person.name} follows`}`
            : `${self ? 'Your' : `${person.name}'s`} followers`;
        const empty =
          tab === 'following'
            ? `${self ? 'You do not' : `${firstName(person.name)} does not`} follow anyone yet.`
            : `Nobody follows ${self ? 'you' : firstName(person.name)} yet.`;
        const tabLink = (t: typeof tab, label: string) =>
          html`<a class="${cls('navItem', t === tab && 'navActive')}" href="/in/${person.username}/${t}"${t === tab ? html` aria-current="page"` : ''}>${label}</a>`;
        const body = html`<section class="${C.card}" aria-labelledby="connections-title">
<div class="${C.pad}"><div class="${C.pageHead}"><h1 class="${C.heading}" id="connections-title">${listName}</h1>
<a class="${cls('muted', 'small')}" href="/in/${person.username}">${person.name}</a></div>
<nav class="${C.nav}" aria-label="Connections">${tabLink('followers', 'Followers')}${tabLink('following', 'Following')}</nav></div>
${people.length ? html`<ul class="${C.peopleGrid}" style="list-style:none;margin:0" aria-label="${listName}">${people.map((p) => personCard(w, p, csrf, back))}</ul>` : html`<p class="${C.empty}">${empty}</p>`}
</section>`;
        kit.page(req, res, { title: `${listName} | ${person.name}`, body, active: self ? 'me' : undefined });
      }),
    );
  }

  router.post(
    '/in/:username/follow',
    h(async (req, res) => {
      const username = String(req.params.username);
      const docs = kit.docs(res);
      const w = await World.load(docs, kit.user(res).username);
      const person = USERNAME.test(username) ? w.people.get(username) : undefined;
      if (!person || person.username === w.viewer)
        return notFound(req, res, kit, 'This profile is not available', 'You cannot follow this person.');
      const me = w.person(w.viewer);
      if (!w.following.has(person.username)) {
        await docs.insert<Follow>('follow', { follower: w.viewer, followee: person.username });
        if (isMember(person.username)) {
          await notify(docs, {
            to: person.username,
            actor: w.viewer,
            type: 'follow',
            text: `${me.name} started following you`,
            link: `/in/${w.viewer}`,
          });
        } else if (person.followsBack && !w.isFollowing(person.username, w.viewer)) {
          // Seeded people who "follow back" do so at once, and the viewer is told about it.
          await docs.insert<Follow>('follow', { follower: person.username, followee: w.viewer });
          await notify(docs, {
            to: w.viewer,
            actor: person.username,
            type: 'follow',
            text: `${person.name} followed you back`,
            link: `/in/${person.username}`,
          });
        }
      }
      kit.flash(res, `You're now following ${person.name}.`);
      res.redirect(303, safeBack(req.body?.back, `/in/${person.username}`));
    }),
  );

  router.post(
    '/in/:username/unfollow',
    h(async (req, res) => {
      const username = String(req.params.username);
      const docs = kit.docs(res);
      const w = await World.load(docs, kit.user(res).username);
      const person = USERNAME.test(username) ? w.people.get(username) : undefined;
      if (!person) return notFound(req, res, kit, 'This profile is not available', 'You cannot unfollow this person.');
      for (const f of w.follows.filter((f) => f.data.follower === w.viewer && f.data.followee === person.username)) await docs.remove(f.id);
      kit.flash(res, `You unfollowed ${person.name}.`);
      res.redirect(303, safeBack(req.body?.back, `/in/${person.username}`));
    }),
  );

  router.get(
    '/network',
    h(async (req, res) => {
      const w = await World.load(kit.docs(res), kit.user(res).username);
      const csrf = kit.csrfField(res);
      const everyone = [...w.people.values()].filter((p) => !isMember(p.username));
      const pages = Math.max(1, Math.ceil(everyone.length / NETWORK_PAGE_SIZE));
      const requested = Number.parseInt(String(req.query.page ?? '1'), 10);
      const page = Number.isFinite(requested) ? Math.min(Math.max(1, requested), pages) : 1;
      const slice = everyone.slice((page - 1) * NETWORK_PAGE_SIZE, page * NETWORK_PAGE_SIZE);
      const back = `/network?page=${page}`;
      const body = html`<section class="${C.card}" aria-labelledby="network-title">
<div class="${C.pad}"><div class="${C.pageHead}"><h1 class="${C.heading}" id="network-title">People you may know</h1>
<span class="${cls('muted', 'small')}">Showing ${(page - 1) * NETWORK_PAGE_SIZE + 1}–${(page - 1) * NETWORK_PAGE_SIZE + slice.length} of ${everyone.length} · You follow ${fmt(w.following.size)} people</span></div></div>
<ul class="${C.peopleGrid}" style="list-style:none;margin:0">${slice.map((p) => personCard(w, p, csrf, back))}</ul>
${pager(page, pages, (n) => `/network?page=${n}`)}
</section>`;
      kit.page(req, res, { title: page > 1 ? `My Network (page ${page})` : 'My Network', body, active: 'network' });
    }),
  );

  router.get(
    '/search',
    h(async (req, res) => {
      const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : '';
      const w = await World.load(kit.docs(res), kit.user(res).username);
      const csrf = kit.csrfField(res);
      const needle = q.toLowerCase();
      const people = needle ? [...w.people.values()].filter((p) => `${p.name} ${p.headline}`.toLowerCase().includes(needle)) : [];
      const posts = needle
        ? w
            .visiblePosts()
            .filter((p) => !p.data.repostOf && p.data.text.toLowerCase().includes(needle))
            .slice(0, 20)
        : [];
      const back = `/search?q=${encodeURIComponent(q)}`;
      const body = html`<section class="${C.card}" aria-labelledby="people-results"><div class="${C.pad}"><h1 class="${C.heading}" id="people-results">People matching “${q}”</h1></div>
${people.length ? html`<ul class="${C.peopleGrid}" style="list-style:none;margin:0">${people.map((p) => personCard(w, p, csrf, back))}</ul>` : html`<p class="${C.empty}">No people found.</p>`}</section>
<section aria-labelledby="post-results"><div class="${cls('card', 'pad')}"><h2 class="${C.cardTitle}" id="post-results">Posts</h2>${posts.length ? '' : html`<p class="${C.muted}">No posts found.</p>`}</div>
${posts.map((d) => postCard(w, d, { csrf, back, now: kit.now() }))}</section>`;
      kit.page(req, res, { title: q ? `${q} - Search` : 'Search', body });
    }),
  );
}

function personCard(w: World, p: Person, csrf: ReturnType<SiteKit['csrfField']>, back: string) {
  return html`<li class="${C.personCard}"><div class="${C.personCover}"></div>${avatar(p)}
<a class="${C.personName}" href="/in/${p.username}">${p.name}</a><p>${p.headline}</p>
<p class="${C.small}">${plural(w.followerCount(p.username), 'follower')}</p>
${p.username === w.viewer ? '' : followControl(w, p, csrf, back, true)}</li>`;
}
