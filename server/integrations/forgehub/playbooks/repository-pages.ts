import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';

import type { PlaybookContext } from '../../../agent/playbooks/registry';
import { parseCount } from '../../../agent/playbooks/shape';
import { REPOSITORY_NAME } from '../../../agent/playbooks/site-helpers';
import { evaluateIsolated } from '../../../browser/isolated-world';
import { evaluateAllIsolated } from '../../../browser/locator-reads';

/**
 * Reading ForgeHub pages without its generated class names (../site/): the signed-in user
 * from the header, repository rows of the lists (/repositories, /stars, profiles), the repository named by
 * a request.
 */
export interface ForgeRepoRow {
  name: string;
  owner: string;
  fullName: string;
  description: string | null;
  visibility: 'public' | 'private';
  isPrivate: boolean;
  stars: number;
  forks: number;
  language: string | null;
  topics: string[];
  url: string;
  updatedAt: string | null;
}

export const REPO_FIELD_ALIASES = {
  name: ['repoName', 'repositoryName', 'title'],
  owner: ['ownerName', 'ownerLogin', 'user', 'account'],
  fullName: ['nameWithOwner', 'slug', 'path', 'repository', 'repo', 'ownerAndName'],
  description: ['about', 'summary', 'desc'],
  visibility: ['privacy', 'access'],
  isPrivate: ['private'],
  stars: ['starCount', 'starsCount', 'stargazers', 'stargazersCount', 'stargazerCount'],
  forks: ['forkCount', 'forksCount'],
  language: ['primaryLanguage', 'lang', 'mainLanguage'],
  topics: ['tags', 'labels', 'keywords'],
  url: ['link', 'htmlUrl', 'repoUrl', 'repositoryUrl', 'href', 'webUrl'],
  updatedAt: ['updated', 'lastUpdated', 'pushedAt', 'modifiedAt', 'lastUpdate'],
};

const FIXED_HEADER_PATHS = new Set(['/', '/repositories', '/issues', '/stars', '/notifications', '/new', '/login', '/logout']);

/** The signed-in user's username: the header's link to their own profile (/<username>), or null. */
export async function signedInUser(page: Page): Promise<string | null> {
  const hrefs = await evaluateAllIsolated(page.locator('header a[href^="/"]'), (links) => links.map((l) => l.getAttribute('href') ?? ''));
  const own = hrefs.find((h) => !FIXED_HEADER_PATHS.has(h) && /^\/[A-Za-z0-9][A-Za-z0-9_-]*$/.test(h));
  return own ? decodeURIComponent(own.slice(1)) : null;
}

/** Repository rows of a list (a locator of its <li> items), in page order. */
export async function readRepoRows(rows: Locator, origin: string): Promise<ForgeRepoRow[]> {
  // Runs in the page's document, in an isolated world: no named inner functions (a transpiler's helpers would not exist there).
  const raw = await evaluateAllIsolated(rows, (items) =>
    items.map((li) => {
      const link = li.querySelector('h3 a[href^="/"]') as HTMLElement | null;
      const h3 = link?.closest('h3') ?? null;
      const body = h3?.parentElement ?? null;
      const time = body?.querySelector('time') ?? null;
      const meta = time?.closest('span')?.parentElement ?? null;
      return {
        href: link?.getAttribute('href') ?? null,
        fullName: link?.innerText.trim() ?? '',
        labels: h3 ? Array.from(h3.querySelectorAll('span')).map((s) => (s as HTMLElement).innerText.trim()) : [],
        description: body
          ? ((Array.from(body.children).find((c) => c.tagName === 'P') as HTMLElement | undefined)?.innerText.trim() ?? null)
          : null,
        topics: body
          ? Array.from(body.querySelectorAll('a[href^="/repositories?q="]')).map((a) => (a as HTMLElement).innerText.trim())
          : [],
        meta: meta
          ? Array.from(meta.children)
              .filter((c) => c.tagName === 'SPAN')
              .map((s) => (s as HTMLElement).innerText.trim())
          : [],
        updatedAt: time?.getAttribute('datetime') ?? null,
      };
    }),
  );
  return raw
    .filter((r) => r.href && REPOSITORY_NAME.test(r.fullName))
    .map((r) => {
      const [owner, name] = r.fullName.split('/') as [string, string];
      const numbers = r.meta.filter((t) => /^[\d,.]+[kKmM]?$/.test(t)).map((t) => parseCount(t) ?? 0);
      const language = r.meta.find((t) => t && !/^[\d,.]+[kKmM]?$/.test(t) && !/^Updated\b/.test(t)) ?? null;
      const isPrivate = r.labels.includes('Private');
      return {
        name,
        owner,
        fullName: r.fullName,
        description: r.description || null,
        visibility: isPrivate ? ('private' as const) : ('public' as const),
        isPrivate,
        stars: numbers[0] ?? 0,
        forks: numbers[1] ?? 0,
        language,
        topics: r.topics,
        url: new URL(r.href!, origin).toString(),
        updatedAt: r.updatedAt,
      };
    });
}

/** Top-level paths of ForgeHub that are not owners. */
const NOT_OWNERS = new Set(['repositories', 'stars', 'notifications', 'new', 'login', 'logout', 'settings', 'issues']);

/**
 * The repository whose page a URL shows (/<owner>/<name>/…): an action started there is about it
 * ("star this repository"). The playbooks' fromStartingUrl; explicit parameters and the action come first.
 */
export function repositoryFromUrl(url: URL): { repository?: string } {
  const m = /^\/([A-Za-z0-9][A-Za-z0-9_-]*)\/([A-Za-z0-9._-]+)(?:\/|$)/.exec(decodeURIComponent(url.pathname));
  if (!m || NOT_OWNERS.has(m[1]!.toLowerCase())) return {};
  return { repository: `${m[1]}/${m[2]!.replace(/\.git$/, '')}` };
}

/** The "owner/name" parameter (the schema checked its shape) as its two parts. */
export function repositoryOf(ctx: PlaybookContext<{ repository: string }>): { owner: string; name: string } {
  const [owner, name] = ctx.params.repository.replace(/\.git$/, '').split('/') as [string, string];
  return { owner, name };
}

/** The repository parameter of the playbooks that act on one repository. */
export const repositoryParameter = z
  .string()
  .trim()
  .regex(REPOSITORY_NAME, 'give the repository as "owner/name" (in parameters, in the action, or start on its page)');

export interface ForgeRepoPage {
  name: string;
  owner: string;
  fullName: string;
  url: string;
  visibility: 'public' | 'private';
  isPrivate: boolean;
  description: string | null;
  stars: number;
  forks: number | null;
  openIssues: number | null;
  language: string | null;
  starred: boolean;
}

export const REPO_PAGE_ALIASES = {
  ...REPO_FIELD_ALIASES,
  openIssues: ['issues', 'openIssueCount', 'openIssuesCount', 'issueCount'],
  starred: ['isStarred', 'starredByMe', 'viewerHasStarred', 'hasStarred'],
};

/** A repository's own page (/<owner>/<name>): its header (name, visibility, star button and count) and About box. */
export async function readRepositoryPage(page: Page): Promise<ForgeRepoPage> {
  await page.getByRole('navigation', { name: 'Repository' }).waitFor({ state: 'visible' });
  // Runs in the page's document, in an isolated world: no named inner functions (a transpiler's helpers would not exist there).
  const raw = await evaluateIsolated(
    page,
    () => {
      const form =
        Array.from(document.querySelectorAll('main form')).find((f) => /\/(un)?star$/.test(f.getAttribute('action') ?? '')) ?? null;
      const top = form?.parentElement?.parentElement ?? null;
      const about =
        Array.from(document.querySelectorAll('main aside')).find((a) =>
          /^About\b/.test((a.querySelector('h2') as HTMLElement | null)?.innerText.trim() ?? ''),
        ) ?? null;
      return {
        heads: top
          ? Array.from(top.children)
              .filter((c) => c.tagName === 'SPAN')
              .map((s) => (s as HTMLElement).innerText.trim())
          : [],
        pressed: form?.querySelector('button')?.getAttribute('aria-pressed') ?? null,
        count: form?.querySelector('span')?.textContent ?? '',
        description: (about?.querySelector('p') as HTMLElement | null)?.innerText.trim() ?? null,
        stats: about ? Array.from(about.querySelectorAll('li')).map((li) => (li as HTMLElement).innerText.trim()) : [],
      };
    },
    undefined,
  );
  const [owner, name] = decodeURIComponent(new URL(page.url()).pathname).split('/').slice(1, 3) as [string, string];
  const fullName = (raw.heads[0] ?? '').replace(/\s+/g, '');
  if (!REPOSITORY_NAME.test(fullName) || fullName.toLowerCase() !== `${owner}/${name}`.toLowerCase())
    throw new Error(`the repository header reads "${raw.heads[0] ?? ''}"`);
  const vis = raw.heads.find((t) => t === 'Public' || t === 'Private');
  if (!vis) throw new Error('the repository header shows no visibility');
  const stat = (re: RegExp) => {
    const line = raw.stats.find((s) => re.test(s));
    return line ? parseCount(line) : null;
  };
  const stars = parseCount(raw.count) ?? stat(/\bstars?$/);
  if (stars === null) throw new Error('the star count was not found');
  const language = raw.stats.find((s) => s && s !== 'Readme' && !/^Created\b/.test(s) && !/\d/.test(s)) ?? null;
  const [o, n] = fullName.split('/') as [string, string];
  return {
    name: n,
    owner: o,
    fullName,
    url: new URL(`/${o}/${n}`, page.url()).toString(),
    visibility: vis === 'Private' ? 'private' : 'public',
    isPrivate: vis === 'Private',
    description: !raw.description || raw.description === 'No description, website, or topics provided.' ? null : raw.description,
    stars,
    forks: stat(/\bforks?$/),
    openIssues: stat(/\bopen issues?$/),
    language,
    starred: raw.pressed === 'true',
  };
}
