import type { Request, Response, Router } from 'express';

import { html } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { C } from '../classes';
import { type Comment, newPostKey, notify, type Post, World } from '../model';
import { avatar, cls, firstName, followControl, plural, postCard, safeBack, timeTag } from '../ui';
import { h, isMember, notFound, POST_KEY, text, wantsJson } from './common';

/** The post a request addresses, if the viewer may see it. */
async function loadPost(req: Request, res: Response, kit: SiteKit): Promise<{ w: World; post: Doc<Post> } | null> {
  const key = String(req.params.key);
  if (!POST_KEY.test(key)) return null;
  const w = await World.load(kit.docs(res), kit.user(res).username);
  const post = w.byKey.get(key);
  if (!post || post.data.repostOf || !w.canSee(post)) return null;
  return { w, post };
}

const missing = (req: Request, res: Response, kit: SiteKit) =>
  notFound(
    req,
    res,
    kit,
    'This post cannot be displayed',
    'It may have been deleted, or its author shares it with their connections only.',
  );

export function postRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/posts/:key',
    h(async (req, res) => {
      const found = await loadPost(req, res, kit);
      if (!found) return missing(req, res, kit);
      const { w, post } = found;
      const csrf = kit.csrfField(res);
      const now = kit.now();
      const author = w.person(post.data.author);
      const comments = w.commentsOf(post.data.key);
      const back = `/posts/${post.data.key}`;
      const body = html`<div class="${C.profileLayout}"><div>
<h1 class="${C.srOnly}">Post by ${author.name}</h1>
${postCard(w, post, { csrf, back, now })}
<section class="${C.card}" id="comments" aria-labelledby="comments-title">
<div class="${C.pad}"><h2 class="${C.cardTitle}" id="comments-title">Comments</h2>
${comments.length === 0 ? html`<p class="${C.muted}">No comments yet. Start the conversation.</p>` : ''}</div>
<ol class="${C.comments}">${comments.map((c) => {
        const p = w.person(c.data.author);
        return html`<li class="${C.comment}">${avatar(p, 'sm')}<div class="${C.commentBody}"><a class="${C.postName}" href="/in/${p.username}">${p.name}</a>
<span class="${cls('muted', 'small')}"> · ${p.headline} · ${timeTag(c.createdAt, now)}</span><p>${c.data.text}</p>
${c.data.likedByAuthor ? html`<span class="${C.likedByAuthor}">♥ Liked by ${author.name}</span>` : ''}</div></li>`;
      })}</ol>
<form method="post" action="/posts/${post.data.key}/comments" class="${C.commentForm}">${csrf}
<div class="${C.field}"><label for="comment">Add a comment</label><textarea class="${C.textarea}" id="comment" name="text" maxlength="1250" required placeholder="What are your thoughts?"></textarea></div>
<button type="submit" class="${cls('btn', 'btnPrimary', 'btnSm')}">Post comment</button></form>
</section></div>
<aside class="${C.side}" aria-label="About the author"><div class="${cls('card', 'meCard')}"><div class="${C.cover}"></div>${avatar(author)}
<a class="${C.meName}" href="/in/${author.username}">${author.name}</a><p class="${cls('muted', 'small')}" style="margin:4px 12px">${author.headline}</p>
<p class="${cls('muted', 'small')}">${plural(w.followerCount(author.username), 'follower')}</p>
<div style="padding:0 16px 16px">${followControl(w, author, csrf, back, true)}</div></div></aside></div>`;
      kit.page(req, res, { title: `${author.name} on Orbit`, body });
    }),
  );

  router.post(
    '/posts/:key/like',
    h(async (req, res) => {
      const found = await loadPost(req, res, kit);
      if (!found) return wantsJson(req) ? void res.status(404).json({ error: 'post not found' }) : missing(req, res, kit);
      const { w, post } = found;
      const docs = kit.docs(res);
      const liked = !post.data.likes.includes(w.viewer);
      const likes = liked ? [...post.data.likes, w.viewer] : post.data.likes.filter((u) => u !== w.viewer);
      await docs.update<Post>(post.id, { ...post.data, likes });
      if (liked && isMember(post.data.author)) {
        await notify(docs, {
          to: post.data.author,
          actor: w.viewer,
          type: 'like',
          text: `${w.person(w.viewer).name} liked your post`,
          link: `/posts/${post.data.key}`,
        });
      }
      const count = post.data.baseLikes + likes.length;
      if (wantsJson(req)) return void res.json({ liked, likes: count, label: plural(count, 'like') });
      res.redirect(303, safeBack(req.body?.back, `/posts/${post.data.key}`));
    }),
  );

  router.post(
    '/posts/:key/repost',
    h(async (req, res) => {
      const found = await loadPost(req, res, kit);
      if (!found) return missing(req, res, kit);
      const { w, post } = found;
      const docs = kit.docs(res);
      const mine = w.repostsOf(post.data.key).filter((r) => r.data.author === w.viewer);
      if (mine.length > 0) {
        for (const r of mine) await docs.remove(r.id);
        kit.flash(res, 'Repost removed.');
      } else {
        await docs.insert<Post>('post', {
          key: newPostKey(),
          author: w.viewer,
          text: '',
          visibility: post.data.visibility,
          likes: [],
          baseLikes: 0,
          baseReposts: 0,
          repostOf: post.data.key,
        });
        if (isMember(post.data.author)) {
          await notify(docs, {
            to: post.data.author,
            actor: w.viewer,
            type: 'repost',
            text: `${w.person(w.viewer).name} reposted your post`,
            link: `/posts/${post.data.key}`,
          });
        }
        kit.flash(res, `Reposted ${firstName(w.person(post.data.author).name)}'s post to your followers.`);
      }
      res.redirect(303, safeBack(req.body?.back, `/posts/${post.data.key}`));
    }),
  );

  router.post(
    '/posts/:key/comments',
    h(async (req, res) => {
      const found = await loadPost(req, res, kit);
      if (!found) return missing(req, res, kit);
      const { w, post } = found;
      const docs = kit.docs(res);
      const body = text(req.body?.text, 1250);
      const back = `/posts/${post.data.key}`;
      if (!body) {
        kit.flash(res, 'Write a comment first.');
        return res.redirect(303, `${back}#comment`);
      }
      const author = w.person(post.data.author);
      const me = w.person(w.viewer);
      // Some seeded people like the comments left on their posts, right away (as if they were online).
      const likedByAuthor = !isMember(author.username) && !!author.likesComments && author.username !== w.viewer;
      await docs.insert<Comment>('comment', {
        postKey: post.data.key,
        author: w.viewer,
        text: body,
        ...(likedByAuthor ? { likedByAuthor } : {}),
      });
      if (likedByAuthor) {
        await notify(docs, {
          to: w.viewer,
          actor: author.username,
          type: 'like',
          text: `${author.name} liked your comment: "${body.slice(0, 80)}"`,
          link: back,
        });
      }
      if (isMember(author.username)) {
        await notify(docs, {
          to: author.username,
          actor: w.viewer,
          type: 'comment',
          text: `${me.name} commented on your post: "${body.slice(0, 80)}"`,
          link: back,
        });
      }
      kit.flash(res, 'Comment posted.');
      res.redirect(303, `${back}#comments`);
    }),
  );
}
