import type { Locator } from 'playwright-core';

import { parseCount } from '../../../agent/playbooks/shape';
import { evaluateAllIsolated } from '../../../browser/locator-reads';

/**
 * Reads Orbit post cards (../site/ui.ts postCard) the way they are built for people, without
 * the generated class names: an <article aria-label="Post by …"> (or "… reposted a post by …") whose
 * permalink is the link to /posts/<key> holding a <time datetime>, whose stats line holds the link to
 * #comments, with the post's text just before the stats and the author's /in/<username> link before that.
 */
export interface OrbitPostCard {
  postId: string;
  url: string;
  author: string;
  authorUsername: string;
  authorHeadline: string | null;
  text: string;
  visibility: 'public' | 'connections' | null;
  likes: number | null;
  comments: number | null;
  reposts: number | null;
  postedAt: string | null;
  /** Set on a repost: who reposted the post into this feed. */
  repostedBy: string | null;
}

export const POST_FIELD_ALIASES = {
  postId: ['id', 'key', 'postKey', 'activityId'],
  url: ['link', 'permalink', 'postUrl', 'href'],
  author: ['authorName', 'name', 'by', 'poster', 'postedBy', 'user', 'fullName', 'displayName'],
  authorUsername: ['username', 'handle', 'authorHandle', 'login'],
  authorHeadline: ['headline', 'authorTitle', 'title', 'occupation'],
  text: ['content', 'body', 'message', 'post', 'postText', 'caption'],
  visibility: ['audience', 'privacy', 'whoCanSee', 'sharedWith'],
  likes: ['likeCount', 'likesCount', 'numLikes', 'reactions', 'reactionCount'],
  comments: ['commentCount', 'commentsCount', 'numComments'],
  reposts: ['repostCount', 'repostsCount', 'numReposts', 'shares', 'shareCount'],
  postedAt: ['date', 'time', 'timestamp', 'createdAt', 'publishedAt', 'posted', 'datetime', 'when'],
  repostedBy: ['reposter', 'sharedBy'],
};

interface RawCard {
  href: string | null;
  datetime: string | null;
  author: string;
  authorHref: string | null;
  headline: string | null;
  text: string;
  meta: string;
  stats: string;
  label: string;
}

/** Every card under `articles` (a locator of <article> elements), in page order. */
export async function readPostCards(articles: Locator, origin: string): Promise<OrbitPostCard[]> {
  // No named inner functions in this callback: it runs in the page's document (an isolated world), and a transpiler's helpers would not.
  const raw: RawCard[] = await evaluateAllIsolated(articles, (els) =>
    els.map((el) => {
      const a = el as HTMLElement;
      const permalink = Array.from(a.querySelectorAll('a[href^="/posts/"]')).find(
        (l) => /^\/posts\/\d+$/.test(l.getAttribute('href') ?? '') && l.querySelector('time'),
      ) as HTMLElement | undefined;
      const stats = (a.querySelector('a[href$="#comments"]') as HTMLElement | null)?.parentElement ?? null;
      const textEl = (stats?.previousElementSibling as HTMLElement | null) ?? null;
      const head = (textEl?.previousElementSibling as HTMLElement | null) ?? null;
      // The avatar link before the name is out of the tab order (tabindex=-1); the name link is the author.
      const authorLinks = head ? Array.from(head.querySelectorAll('a[href^="/in/"]')) : [];
      const authorLink = (authorLinks.find((l) => l.getAttribute('tabindex') !== '-1' && (l as HTMLElement).innerText.trim() !== '') ??
        authorLinks[authorLinks.length - 1]) as HTMLElement | undefined;
      const headlineEl = (authorLink?.nextElementSibling as HTMLElement | null) ?? null;
      return {
        href: permalink?.getAttribute('href') ?? null,
        datetime: permalink?.querySelector('time')?.getAttribute('datetime') ?? null,
        author: authorLink?.innerText.trim() ?? '',
        authorHref: authorLink?.getAttribute('href') ?? null,
        headline: headlineEl ? headlineEl.innerText.trim() : null,
        text: textEl ? textEl.innerText : '',
        meta: permalink?.parentElement?.innerText ?? '',
        stats: stats?.innerText ?? '',
        label: a.getAttribute('aria-label') ?? '',
      };
    }),
  );
  return raw
    .filter((r) => r.href)
    .map((r) => {
      const count = (word: string) => {
        const m = new RegExp(`([\\d,.]+[KMB]?)\\s+${word}s?\\b`, 'i').exec(r.stats);
        return m ? parseCount(m[1]!) : null;
      };
      const vis = /\b(Public|Connections)\b/.exec(r.meta)?.[1]?.toLowerCase() as OrbitPostCard['visibility'] | undefined;
      const repost = /^(.+) reposted a post by /.exec(r.label);
      return {
        postId: r.href!.split('/')[2]!,
        url: new URL(r.href!, origin).toString(),
        author: r.author,
        authorUsername: decodeURIComponent(r.authorHref?.split('/')[2] ?? ''),
        authorHeadline: r.headline || null,
        text: r.text.replace(/\u00a0/g, ' ').trim(),
        visibility: vis ?? null,
        likes: count('like'),
        comments: count('comment'),
        reposts: count('repost'),
        postedAt: r.datetime,
        repostedBy: repost ? repost[1]! : null,
      };
    });
}
