import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';

import type { PlaybookContext } from '../../../agent/playbooks/registry';
import { collapse, pathOf, until, waitBudget } from '../../../agent/playbooks/site-helpers';
import { evaluateAllIsolated, evaluateOneIsolated } from '../../../browser/locator-reads';
import { repositoryFromUrl } from './repository-pages';

/**
 * Reading ForgeHub's issues without its generated class names (../site/pages/issues.ts, my-issues.ts):
 * the rows of an issue list, one issue's page, and the issue a request names (its repository and number,
 * from the parameters, the action, or the page the request starts on).
 */
export interface ForgeIssueRow {
  repository: string;
  number: number;
  title: string;
  state: 'open' | 'closed';
  author: string;
  labels: string[];
  comments: number;
  url: string;
  /** When it was opened (open issues) or closed (closed ones), as the row's time shows it. */
  at: string | null;
}

export const ISSUE_FIELD_ALIASES = {
  repository: ['repo', 'repositoryName', 'fullName', 'nameWithOwner'],
  number: ['issueNumber', 'id', 'num', 'issueId'],
  title: ['subject', 'summary', 'issueTitle', 'name'],
  state: ['status'],
  author: ['user', 'openedBy', 'creator', 'login', 'by'],
  labels: ['tags'],
  comments: ['commentCount', 'commentsCount', 'numComments'],
  url: ['link', 'htmlUrl', 'issueUrl', 'href'],
  at: ['date', 'time', 'timestamp', 'createdAt', 'openedAt', 'updatedAt', 'when'],
};

/** An issue number: 12, "12" or "#12". */
export const issueNumberParameter = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*#?\d{1,9}\s*$/.test(v) ? Number(v.trim().replace(/^#/, '')) : v),
  z.number({ required_error: 'say which issue: its number (#12)' }).int().min(1, 'issue numbers start at 1'),
);

/** The issue a URL shows (/<owner>/<name>/issues/<number>), or just its repository: an action started there is about it. */
export function issueFromUrl(url: URL): { repository?: string; number?: number } {
  const m = /^\/[^/]+\/[^/]+\/issues\/(\d{1,9})\/?$/.exec(decodeURIComponent(url.pathname));
  return { ...repositoryFromUrl(url), ...(m ? { number: Number(m[1]) } : {}) };
}

/** Rows of an issue list (a locator of its <li> items), in page order; `state` is the list's (Open / Closed issues). */
export async function readIssueRows(rows: Locator, state: 'open' | 'closed', origin: string): Promise<ForgeIssueRow[]> {
  // Runs in the page's document, in an isolated world: no named inner functions (a transpiler's helpers would not exist there).
  const raw = await evaluateAllIsolated(rows, (items) =>
    items.map((li) => {
      const links = Array.from(li.querySelectorAll('a[href*="/issues/"]')) as HTMLElement[];
      const title = links.find((a) => a.innerText.trim() && !a.getAttribute('aria-label')) ?? null;
      const counter = links.find((a) => /comment/.test(a.getAttribute('aria-label') ?? '')) ?? null;
      const meta = title?.parentElement?.lastElementChild as HTMLElement | null;
      return {
        href: title?.getAttribute('href') ?? '',
        title: title?.innerText ?? '',
        labels: title?.parentElement
          ? (Array.from(title.parentElement.children).filter((c) => c.tagName === 'SPAN') as HTMLElement[]).map((s) => s.innerText.trim())
          : [],
        author: (meta?.querySelector('a[href^="/"]') as HTMLElement | null)?.innerText.trim() ?? '',
        at: meta?.querySelector('time')?.getAttribute('datetime') ?? null,
        comments: counter?.getAttribute('aria-label') ?? '',
      };
    }),
  );
  return raw
    .map((r) => {
      const m = /^\/([^/]+)\/([^/]+)\/issues\/(\d+)$/.exec(r.href);
      if (!m) return null;
      return {
        repository: `${m[1]}/${m[2]}`,
        number: Number(m[3]),
        title: collapse(r.title),
        state,
        author: r.author,
        labels: r.labels.filter(Boolean),
        comments: Number(/\d+/.exec(r.comments)?.[0] ?? 0),
        url: new URL(r.href, origin).toString(),
        at: r.at,
      };
    })
    .filter((r): r is ForgeIssueRow => r !== null);
}

export interface ForgeIssuePage {
  repository: string;
  number: number;
  title: string;
  state: 'open' | 'closed';
  author: string;
  createdAt: string | null;
  comments: number;
  url: string;
}

/** One issue's page: heading (title, #number), state, author, time and comment count. */
export async function readIssuePage(page: Page): Promise<ForgeIssuePage> {
  const h1 = page.locator('main h1').first();
  await h1.waitFor({ state: 'visible' });
  // Runs in the page's document, in an isolated world: no named inner functions.
  const read = await evaluateOneIsolated(h1, (el) => {
    const sub = el.nextElementSibling as HTMLElement | null;
    return {
      heading: (el as HTMLElement).innerText,
      numberText: (el.querySelector('span') as HTMLElement | null)?.innerText ?? '',
      state: (sub?.querySelector('span') as HTMLElement | null)?.innerText.trim() ?? '',
      author: (sub?.querySelector('a strong') as HTMLElement | null)?.innerText.trim() ?? '',
      createdAt: sub?.querySelector('time')?.getAttribute('datetime') ?? null,
      line: (sub?.children[1] as HTMLElement | undefined)?.innerText ?? '',
    };
  });
  const m = /^\/([^/]+)\/([^/]+)\/issues\/(\d+)$/.exec(pathOf(page));
  const number = Number(read.numberText.trim().replace(/^#/, ''));
  if (!m || Number(m[3]) !== number) throw new Error(`the issue page shows ${read.numberText || 'no number'}`);
  return {
    repository: `${m[1]}/${m[2]}`,
    number,
    title: collapse(read.heading.replace(read.numberText, '')),
    state: /^closed$/i.test(read.state) ? 'closed' : 'open',
    author: read.author,
    createdAt: read.createdAt,
    comments: Number(/(\d+) comments?/.exec(read.line)?.[1] ?? 0),
    url: new URL(pathOf(page), page.url()).toString(),
  };
}

/** Opens an issue's page (a clear error when ForgeHub has no such repository or issue for this account). */
export async function openIssue(ctx: PlaybookContext<unknown>, repository: string, number: number): Promise<ForgeIssuePage> {
  const path = `/${repository}/issues/${number}`;
  if (pathOf(ctx.page).toLowerCase() !== path.toLowerCase()) {
    await ctx.step('navigate', `issue #${number} of ${repository}`, async () => {
      const r = await ctx.page.goto(new URL(path, ctx.provider.homeUrl).toString(), { waitUntil: 'domcontentloaded' });
      if (r && r.status() === 404) {
        // ForgeHub's 404 page names what it did not find ("… not the repository / issue you are looking for").
        const text = collapse(await ctx.page.locator('main').innerText());
        throw new Error(
          /\brepository\b/.test(text)
            ? `ForgeHub has no repository ${repository} that this account can see`
            : `${repository} has no issue #${number}`,
        );
      }
      if (r && r.status() >= 400) throw new Error(`${path} answered HTTP ${r.status()}`);
    });
  }
  return ctx.step('extract', `issue #${number} (heading and state)`, () => readIssuePage(ctx.page));
}

/** Follows a list's "Next ›" link (Pagination navigation) when there is one; false at the last page. */
export async function nextPage(ctx: PlaybookContext<unknown>, target: string): Promise<boolean> {
  const next = ctx.page.getByRole('navigation', { name: 'Pagination' }).locator('a[rel="next"]');
  if ((await next.count()) === 0) return false;
  const from = ctx.page.url();
  await ctx.step('click', target, async () => {
    await next.click();
    await until('the next page', async () => ctx.page.url() !== from, waitBudget(ctx));
    await ctx.page.waitForLoadState('domcontentloaded');
  });
  return true;
}
