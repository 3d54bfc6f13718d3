import { z } from 'zod';

import type { PlaybookContext } from '../../../agent/playbooks/registry';
import { openPath, pathOf, waitBudget } from '../../../agent/playbooks/site-helpers';
import { findPerson, openProfile } from './people';
import { type OrbitPostCard, readPostCards } from './post-cards';

/**
 * The post a request is about, for the playbooks that act on one (like, comment): given by its URL or id
 * (`post`), by the page the request starts on (/posts/<id>), or as someone's latest post (`author`: the
 * newest post they wrote, reposts aside, as their profile's Activity lists it).
 */
const POST_KEY = /^\d{10,25}$/;

/** A post's id, or its URL (…/posts/<id>), normalised to the id. */
export const postParameter = z.preprocess(
  (v) => {
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    if (typeof v !== 'string') return v;
    const m = /\/posts\/(\d{10,25})(?:[/?#]|$)/.exec(v.trim());
    return m ? m[1] : v.trim();
  },
  z.string().regex(POST_KEY, 'give the post as its URL (…/posts/<id>) or its id'),
);

export interface PostTargetParams {
  post?: string;
  author?: string;
}

/** Refinement of a schema holding `post` and `author`: one of the two says which post. */
export const WHICH_POST = {
  check: (p: PostTargetParams) => !!p.post || !!p.author,
  message: {
    message: "say which post: parameters.post (its URL or id) or parameters.author (whose latest post), or start on the post's page",
    path: ['post'],
  },
};

/** The post a page URL shows (/posts/<id>): an action started there is about it. */
export function postFromUrl(url: URL): { post?: string } {
  const m = /^\/posts\/(\d{10,25})\/?$/.exec(url.pathname);
  return m ? { post: m[1] } : {};
}

/** Opens the post the parameters name and reads its card (the page's only post). */
export async function openTargetPost(ctx: PlaybookContext<PostTargetParams>): Promise<OrbitPostCard> {
  const { page, params } = ctx;
  const origin = new URL(ctx.provider.homeUrl).origin;
  let key = params.post;
  if (!key) {
    const person = await findPerson(ctx, params.author!);
    await openProfile(ctx, person);
    key = await ctx.step('extract', `the latest post by ${person.name} (section 'Activity')`, async () => {
      const cards = await readPostCards(page.locator('#activity-section article'), origin);
      const latest = cards.find((c) => !c.repostedBy && c.authorUsername === person.username);
      if (!latest) throw new Error(`${person.name} has no post this account can see`);
      return latest.postId;
    });
  }
  if (pathOf(page) !== `/posts/${key}`) {
    await openPath(ctx, `/posts/${key}`, `post ${key}`, { notFound: `Orbit shows no post ${key} to this account` });
  }
  return ctx.step('extract', 'the post (its card)', async () => {
    const article = page.locator('main article').first();
    await article.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
    const [card] = await readPostCards(article, origin);
    if (!card || card.postId !== key) throw new Error(`the page does not show post ${key}`);
    return card;
  });
}
