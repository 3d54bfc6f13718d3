import type { Router } from 'express';

import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { C } from '../classes';
import { newPostKey, type Post, type Visibility, World } from '../model';
import { avatar, cls, fmt, followControl, postCard } from '../ui';
import { h, isMember, text } from './common';

export const FEED_PAGE_SIZE = 10;

/** Cursor of a feed item: creation time and id, matching the feed's newest-first order. */
const cursorOf = (d: Doc<Post>) => `${d.createdAt.getTime()}.${d.id}`;
function after(items: Doc<Post>[], cursor: string | undefined): Doc<Post>[] {
  if (!cursor) return items;
  const m = /^(\d{1,16})\.([A-Za-z0-9_]{1,64})$/.exec(cursor);
  if (!m) return [];
  const t = Number(m[1]);
  const id = m[2];
  return items.filter((d) => d.createdAt.getTime() < t || (d.createdAt.getTime() === t && d.id < id));
}

function feedPage(w: World, cursor: string | undefined) {
  const rest = after(w.visiblePosts(), cursor);
  const items = rest.slice(0, FEED_PAGE_SIZE);
  const next = rest.length > FEED_PAGE_SIZE ? `/feed/more?before=${encodeURIComponent(cursorOf(items[items.length - 1]))}` : null;
  return { items, next };
}

function composeDialog(w: World, csrf: RawHtml): RawHtml {
  const me = w.person(w.viewer);
  return html`<div class="${C.dialog}" id="compose" role="dialog" aria-modal="true" aria-labelledby="compose-title" hidden>
<form method="post" action="/posts" class="${C.composeForm}">${csrf}
<div class="${C.dialogHead}">${avatar(me, 'sm')}<div><h2 id="compose-title">Create a post</h2><div class="${cls('muted', 'small')}">${me.name}</div></div>
<button type="button" class="${C.dialogClose}" aria-label="Dismiss">×</button></div>
<div class="${C.dialogBody}">
<div class="${C.dd}">
<span class="${C.ddLabel}" id="vis-label">Who can see your post?</span>
<button type="button" class="${C.ddButton}" aria-haspopup="listbox" aria-expanded="false" aria-controls="vis-list" aria-labelledby="vis-label vis-value"><span id="vis-value">Public</span> ▾</button>
<ul class="${C.ddList}" id="vis-list" role="listbox" aria-labelledby="vis-label" tabindex="-1" hidden>
<li class="${C.ddOption}" id="vis-opt-public" role="option" aria-selected="true" data-value="public"><span>Public</span><small>Anyone on or off Orbit</small></li>
<li class="${C.ddOption}" id="vis-opt-connections" role="option" aria-selected="false" data-value="connections"><span>Connections</span><small>Only people who follow you</small></li>
</ul>
<input type="hidden" name="visibility" value="public">
</div>
<div class="${C.editor}" contenteditable="true" role="textbox" aria-multiline="true" aria-label="Text editor for creating content" data-placeholder="What do you want to talk about?" autofocus></div>
<input type="hidden" name="text" value="">
</div>
<div class="${C.dialogFoot}"><span class="${C.counter}" aria-live="polite">0 / 3000</span><button type="submit" class="${cls('btn', 'btnPrimary')}" disabled>Post</button></div>
</form>
</div>`;
}

export function homeRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/',
    h(async (req, res) => {
      const docs = kit.docs(res);
      const w = await World.load(docs, kit.user(res).username);
      const me = w.person(w.viewer);
      const csrf = kit.csrfField(res);
      const now = kit.now();
      const { items, next } = feedPage(w, undefined);
      const suggestions = [...w.people.values()]
        .filter((p) => p.username !== w.viewer && !w.following.has(p.username) && !isMember(p.username))
        .slice(0, 3);
      const myPosts = w.posts.filter((p) => p.data.author === w.viewer).length;
      const body = html`<div class="${C.home}">
<aside class="${C.side}" aria-label="Your profile summary"><div class="${cls('card', 'meCard')}"><div class="${C.cover}"></div>${avatar(me)}
<a class="${C.meName}" href="/in/${me.username}">${me.name}</a><p class="${cls('muted', 'small')}" style="margin:4px 12px 12px">${me.headline}</p>
<div class="${C.meStats}"><a class="${C.stat}" href="/in/${me.username}/followers"><span>Followers</span><b>${fmt(w.followerCount(me.username))}</b></a>
<a class="${C.stat}" href="/in/${me.username}/following"><span>Following</span><b>${fmt(w.followingCount(me.username))}</b></a>
<a class="${C.stat}" href="/in/${me.username}#activity"><span>Your posts</span><b>${fmt(myPosts)}</b></a></div></div></aside>
<div>
<h1 class="${C.srOnly}">Home feed</h1>
<section class="${cls('card', 'pad')}" aria-label="Create a post"><div class="${C.composeBox}">${avatar(me)}
<button type="button" class="${cls('composeTrigger', 'dlgOpen')}" aria-haspopup="dialog" aria-controls="compose">Start a post</button></div></section>
${composeDialog(w, csrf)}
<div class="${C.feed}">${items.map((d) => postCard(w, d, { csrf, back: '/', now }))}</div>
${next ? html`<div class="${C.loadMoreWrap}"><button type="button" class="${cls('btn', 'btnGhost', 'loadMore')}" data-src="${next}">Load more posts</button></div>` : html`<p class="${C.caughtUp}">You're all caught up</p>`}
</div>
<aside class="${C.side}" aria-label="Suggestions"><div class="${cls('card', 'pad')}"><h2 class="${C.cardTitle}">Add to your feed</h2>
<ul class="${C.suggest}">${suggestions.map(
        (p) =>
          html`<li class="${C.suggestItem}">${avatar(p, 'sm')}<div><a class="${C.postName}" href="/in/${p.username}">${p.name}</a><div class="${cls('muted', 'small')}">${p.headline}</div>${followControl(w, p, csrf, '/', true)}</div></li>`,
      )}</ul>
<a href="/network">View all recommendations →</a></div>
<p class="${C.footer}">Orbit Corporation © 2026 · Sandbox environment</p></aside>
</div>`;
      kit.page(req, res, { title: 'Feed', body, active: 'home' });
    }),
  );

  router.get(
    '/feed/more',
    h(async (req, res) => {
      const w = await World.load(kit.docs(res), kit.user(res).username);
      const before = typeof req.query.before === 'string' ? req.query.before : '';
      const { items, next } = feedPage(w, before || undefined);
      const csrf = kit.csrfField(res);
      const now = kit.now();
      res.json({ html: html`${items.map((d) => postCard(w, d, { csrf, back: '/', now }))}`.value, next });
    }),
  );

  router.post(
    '/posts',
    h(async (req, res) => {
      const body = text(req.body?.text, 3000);
      const visibility: Visibility = req.body?.visibility === 'connections' ? 'connections' : 'public';
      if (!body) {
        kit.flash(res, 'Your post is empty. Write something first.');
        return res.redirect(303, '/');
      }
      await kit.docs(res).insert<Post>('post', {
        key: newPostKey(),
        author: kit.user(res).username,
        text: body,
        visibility,
        likes: [],
        baseLikes: 0,
        baseReposts: 0,
        baseComments: 0,
      });
      kit.flash(res, visibility === 'connections' ? 'Post successful. Only your connections can see it.' : 'Post successful.');
      res.redirect(303, '/');
    }),
  );
}
