import { html, raw, type RawHtml } from '../../../sandbox/kit/html';
import type { Doc } from '../../../sandbox/kit/site';
import { C } from './classes';
import type { Person, Post, Visibility, World } from './model';

export const fmt = (n: number) => n.toLocaleString('en-US');
export const plural = (n: number, one: string, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`;
export const firstName = (name: string) => name.split(' ')[0] ?? name;

const cls = (...names: (keyof typeof C | false | undefined)[]) =>
  names
    .filter(Boolean)
    .map((n) => C[n as keyof typeof C])
    .join(' ');
export { cls };

export function initials(name: string) {
  const parts = name
    .replace(/[^\p{L}\s-]/gu, '')
    .split(/[\s-]+/)
    .filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts.length > 1 ? parts[parts.length - 1][0] : '')).toUpperCase();
}

export function avatar(p: Person, size: 'sm' | 'md' | 'lg' = 'md'): RawHtml {
  return html`<span class="${cls('avatar', size === 'sm' && 'avatarSm', size === 'lg' && 'avatarLg')}" style="background:${p.color}" aria-hidden="true">${initials(p.name)}</span>`;
}

export function ago(date: Date, now: Date): string {
  const s = Math.max(0, Math.floor((now.getTime() - date.getTime()) / 1000));
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  if (s < 7 * 86400) return `${Math.floor(s / 86400)}d`;
  if (s < 5 * 7 * 86400) return `${Math.floor(s / (7 * 86400))}w`;
  return date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

export function timeTag(date: Date, now: Date): RawHtml {
  return html`<time datetime="${date.toISOString()}" title="${date.toUTCString()}">${ago(date, now)}</time>`;
}

const ICONS = {
  home: '<path d="M12 3 2 11h3v10h6v-6h2v6h6V11h3z"/>',
  network:
    '<path d="M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm7 0a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM1 20c0-3.3 3.6-6 8-6s8 2.7 8 6v1H1zm17.5-6.9c2.6.4 4.5 2.1 4.5 4.4V20h-4.5c0-2.6-1-4.8-3-6.2.9-.4 1.9-.7 3-.7z"/>',
  messaging: '<path d="M20 3H4a2 2 0 0 0-2 2v15l4-4h14a2 2 0 0 0 2-2V5a2 2 0 0 0-2-2zM7 9h10v2H7zm0 3h7v2H7z"/>',
  notifications:
    '<path d="M12 22a2.5 2.5 0 0 0 2.5-2.5h-5A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5-6.7V3.5a2 2 0 0 0-4 0v.8A7 7 0 0 0 5 11v5l-2 2v1h18v-1z"/>',
  me: '<path d="M12 12a5 5 0 1 0 0-10 5 5 0 0 0 0 10zm0 2c-5 0-9 2.5-9 6v2h18v-2c0-3.5-4-6-9-6z"/>',
  like: '<path d="M2 21h4V9H2zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3a1.5 1.5 0 0 0-.5-1L13.2 1 6.6 7.6A2 2 0 0 0 6 9v10a2 2 0 0 0 2 2h9a2 2 0 0 0 1.8-1.2l3-7.1.2-.7z"/>',
  comment: '<path d="M7 9h10v1.5H7zm0 3h7v1.5H7zM20 3H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h3v3.5L12.7 19H20a2 2 0 0 0 2-2V5a2 2 0 0 0-2-2z"/>',
  repost: '<path d="M7 7h10v3l4-4-4-4v3H5v6h2zm10 10H7v-3l-4 4 4 4v-3h12v-6h-2z"/>',
  globe:
    '<path d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm6.9 6h-3a15.7 15.7 0 0 0-1.3-3.9A8 8 0 0 1 18.9 8zM12 4c.8 1.2 1.5 2.5 1.9 4h-3.8c.4-1.5 1.1-2.8 1.9-4zM4.3 14a8.2 8.2 0 0 1 0-4h3.4a16.6 16.6 0 0 0 0 4zm.8 2h3a15.7 15.7 0 0 0 1.3 3.9A8 8 0 0 1 5.1 16zm3-8h-3a8 8 0 0 1 4.3-3.9C7.9 5.3 7.5 6.6 7.1 8zM12 20c-.8-1.2-1.5-2.5-1.9-4h3.8c-.4 1.5-1.1 2.8-1.9 4zm2.3-6H9.7a14.7 14.7 0 0 1 0-4h4.6a14.7 14.7 0 0 1 0 4zm.3 5.9c.6-1.2 1-2.5 1.3-3.9h3a8 8 0 0 1-4.3 3.9zm1.7-5.9a16.6 16.6 0 0 0 0-4h3.4a8.2 8.2 0 0 1 0 4z"/>',
  people:
    '<path d="M8 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zm8 0a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM1 19c0-2.8 3.1-5 7-5s7 2.2 7 5v1H1zm15-5c3 0 7 1.4 7 4v2h-6v-1c0-2-.4-3.6-1-5z"/>',
};
export type IconName = keyof typeof ICONS;
export const icon = (name: IconName, className?: string) =>
  raw(`<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"${className ? ` class="${className}"` : ''}>${ICONS[name]}</svg>`);

export function visibilityLabel(v: Visibility): RawHtml {
  return v === 'connections'
    ? html`<span class="${C.vis}">${icon('people')}<span>Connections</span></span>`
    : html`<span class="${C.vis}">${icon('globe')}<span>Public</span></span>`;
}

export interface CardOpts {
  csrf: RawHtml;
  /** Where the like/repost forms come back to without JavaScript. */
  back: string;
  now: Date;
}

/** A post as it appears in feeds and on its own page (a repost shows the original with a "reposted" line). */
export function postCard(w: World, doc: Doc<Post>, o: CardOpts): RawHtml {
  const reposter = doc.data.repostOf ? w.person(doc.data.author) : null;
  const post = doc.data.repostOf ? w.byKey.get(doc.data.repostOf) : doc;
  if (!post) return html``;
  const p = post.data;
  const author = w.person(p.author);
  const liked = w.likedByViewer(post);
  const reposted = w.repostedByViewer(post);
  const likes = w.likeCount(post);
  const comments = w.commentCount(post);
  const reposts = w.repostCount(post);
  const label = reposter ? `${reposter.name} reposted a post by ${author.name}` : `Post by ${author.name}`;
  return html`<article class="${C.post}" aria-label="${label}">
${reposter ? html`<div class="${C.repostHead}">${icon('repost', C.navIcon)} <a href="/in/${reposter.username}">${reposter.username === w.viewer ? 'You' : reposter.name}</a> reposted this · ${timeTag(doc.createdAt, o.now)}</div>` : ''}
<div class="${C.postHead}"><a href="/in/${author.username}" tabindex="-1">${avatar(author)}</a>
<div class="${C.postWho}"><a class="${C.postName}" href="/in/${author.username}">${author.name}</a>
<div class="${cls('muted', 'small')}">${author.headline}</div>
<div class="${C.postMeta}"><a href="/posts/${p.key}" class="${C.muted}">${timeTag(post.createdAt, o.now)}</a><span aria-hidden="true">·</span>${visibilityLabel(p.visibility)}</div></div></div>
<div class="${C.postText}">${p.text}</div>
<div class="${C.postStats}"><span class="${C.likeCount}">${plural(likes, 'like')}</span><span aria-hidden="true">·</span><a href="/posts/${p.key}#comments">${plural(comments, 'comment')}</a><span aria-hidden="true">·</span><span>${plural(reposts, 'repost')}</span></div>
<div class="${C.postActions}">
<form method="post" action="/posts/${p.key}/like" class="${C.likeForm}">${o.csrf}<input type="hidden" name="back" value="${o.back}"><button type="submit" class="${cls('action', liked && 'pressed')}" aria-pressed="${liked ? 'true' : 'false'}">${icon('like')}<span>Like</span></button></form>
<a class="${C.action}" href="/posts/${p.key}#comment">${icon('comment')}<span>Comment</span></a>
<form method="post" action="/posts/${p.key}/repost" class="${C.repostForm}">${o.csrf}<input type="hidden" name="back" value="${o.back}"><button type="submit" class="${cls('action', reposted && 'pressed')}">${icon('repost')}<span>${reposted ? 'Undo repost' : 'Repost'}</span></button></form>
</div>
</article>`;
}

const slugId = (prefix: string, username: string) => `${prefix}-${username.replace(/[^a-zA-Z0-9_-]/g, '')}`;

/** Follow button, or "Following" with a confirmation dialog before unfollowing. */
export function followControl(w: World, person: Person, csrf: RawHtml, back: string, small = false): RawHtml {
  if (person.username === w.viewer) return html``;
  if (!w.following.has(person.username)) {
    return html`<form method="post" action="/in/${person.username}/follow">${csrf}<input type="hidden" name="back" value="${back}"><button type="submit" class="${cls('btn', 'btnPrimary', small && 'btnSm')}" aria-label="Follow ${person.name}">+ Follow</button></form>`;
  }
  const id = slugId('unfollow', person.username);
  return html`<button type="button" class="${cls('btn', 'btnGhost', small && 'btnSm', 'dlgOpen')}" aria-haspopup="dialog" aria-controls="${id}" aria-label="Following ${person.name}">✓ Following</button>
<div class="${C.dialog}" id="${id}" role="alertdialog" aria-modal="true" aria-labelledby="${id}-t" aria-describedby="${id}-d" hidden>
<div class="${C.dialogHead}"><h2 id="${id}-t">Unfollow ${person.name}?</h2><button type="button" class="${C.dialogClose}" aria-label="Dismiss">×</button></div>
<div class="${C.dialogBody}"><p class="${C.confirmText}" id="${id}-d">You'll stop seeing ${firstName(person.name)}'s posts in your feed. ${firstName(person.name)} won't be notified that you unfollowed.</p></div>
<div class="${C.dialogFoot}"><button type="button" class="${cls('btn', 'btnGhost')}" data-dismiss="dialog">Cancel</button>
<form method="post" action="/in/${person.username}/unfollow">${csrf}<input type="hidden" name="back" value="${back}"><button type="submit" class="${cls('btn', 'btnPrimary')}">Unfollow</button></form></div>
</div>`;
}

/** Numbered pagination (Previous 1 2 3 Next). */
export function pager(page: number, pages: number, href: (n: number) => string): RawHtml {
  if (pages <= 1) return html``;
  const items: RawHtml[] = [];
  items.push(
    page > 1
      ? html`<a class="${C.pagerLink}" href="${href(page - 1)}" rel="prev">‹ Previous</a>`
      : html`<span class="${cls('pagerLink', 'pagerDisabled')}" aria-disabled="true">‹ Previous</span>`,
  );
  for (let n = 1; n <= pages; n++) {
    items.push(
      n === page
        ? html`<a class="${cls('pagerLink', 'pagerCurrent')}" href="${href(n)}" aria-current="page" aria-label="Page ${n}">${n}</a>`
        : html`<a class="${C.pagerLink}" href="${href(n)}" aria-label="Page ${n}">${n}</a>`,
    );
  }
  items.push(
    page < pages
      ? html`<a class="${C.pagerLink}" href="${href(page + 1)}" rel="next">Next ›</a>`
      : html`<span class="${cls('pagerLink', 'pagerDisabled')}" aria-disabled="true">Next ›</span>`,
  );
  return html`<nav class="${C.pager}" aria-label="Pagination">${items}</nav>`;
}

/** Only local paths, so a form's "back" field cannot send a person elsewhere. */
export function safeBack(v: unknown, fallback: string): string {
  return typeof v === 'string' && /^\/(?!\/)[^\s\\]*$/.test(v) && v.length < 300 ? v : fallback;
}
