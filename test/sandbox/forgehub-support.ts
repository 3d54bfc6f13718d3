import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * What forgehub.browser.test.ts uses: a live server and Chromium, started for the file by `useForgehubBrowser()`,
 * and a fresh browser context and page per test (the bindings below are set by its hooks); tenants (a fresh
 * organization per test), signing in through the form or by a minted session, the steps a person takes more than
 * once (creating a repository, opening the issues tab), and reading the page as a person does.
 */
export let server: LiveServer;
export let browser: Browser;
export let context: BrowserContext;
export let page: Page;
let orgCounter = 0;

/** Starts the server and the browser for the calling test file; opens a context and a page for each test. */
export function useForgehubBrowser(): void {
  beforeAll(async () => {
    [server, browser] = await Promise.all([startLiveServer(), startBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(5_000);
    page = await context.newPage();
  });
  afterEach(async () => {
    await context?.close();
  });
}

export const url = (path = '/') => server.siteUrl('forgehub', path);

/** A fresh tenant for a test (organization ids only name the tenant; most tests need no organization record). */
const freshOrgId = () => `org_fh_${Date.now().toString(36)}_${++orgCounter}`;

export async function newOrg() {
  const created = await server.services.organizations.create(`ForgeHub test org ${++orgCounter}`);
  return created.organization.id;
}

/** Signs in as user_good through the site's own login form, into a fresh organization's tenant. */
export async function signIn() {
  // The signed ticket the login engine uses (a bare tenant name is not accepted).
  await page.goto(url(`/login?tenant_token=${server.services.tenantTokens.issue(freshOrgId(), 'forgehub')}`));
  await page.getByLabel('Username or email').fill('user_good');
  await page.getByLabel('Password').fill('pass_good');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Recent activity' }).waitFor();
}

/**
 * Signed in as user_good into a fresh organization's tenant by the session the sandbox mints (the cookie the login
 * form sets), then on the dashboard: for the tests that are not about signing in (the first test proves the form).
 */
export async function signedIn(organizationId?: string) {
  const org = organizationId ?? freshOrgId();
  const { cookies } = await server.services.siteSessions.mint({ organizationId: org, environment: 'sandbox' }, 'forgehub', 'user_good');
  await context.addCookies(cookies);
  await page.goto(url('/'));
  await page.getByRole('heading', { name: 'Recent activity' }).waitFor();
  return org;
}

/** A page of its own (a context the caller closes, pushed to `contexts`) signed in as user_good in an organization. */
export async function tenantPage(organizationId: string, contexts: BrowserContext[]): Promise<Page> {
  const storageState = await server.services.siteSessions.mint({ organizationId, environment: 'sandbox' }, 'forgehub', 'user_good');
  const ctx = await browser.newContext({ storageState });
  ctx.setDefaultTimeout(5_000);
  contexts.push(ctx);
  return ctx.newPage();
}

/** Polls until the locator matches exactly n elements. */
export async function expectCount(locator: Locator, n: number, timeout = 20_000) {
  const until = Date.now() + timeout;
  let count = await locator.count();
  while (count !== n && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    count = await locator.count();
  }
  expect(count).toBe(n);
}
export const visible = (locator: Locator) => locator.first().waitFor({ state: 'visible' });
export const gone = (locator: Locator) => locator.first().waitFor({ state: 'hidden' });
export const toast = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
export const repoItems = (p: Page = page) => p.getByRole('list', { name: 'Repositories' }).getByRole('listitem');
/** The dashboard's list of the user's repositories. */
export const yourRepositories = (p: Page = page) => p.getByRole('complementary', { name: 'Your repositories' });
/** A profile's counts (followers, following, repositories, stars) as read, whitespace collapsed. */
export const profileCounts = async () => (await page.getByRole('definition').allTextContents()).map((t) => t.trim().replace(/\s+/g, ' '));
/** An issue's comments (its description the first) by a user. */
export const commentBy = (username: string) => page.getByRole('article', { name: `Comment by ${username}` });
/** The Issues tab of a repository's navigation. */
export const issuesTab = () => page.getByRole('navigation', { name: 'Repository' }).getByRole('link', { name: /Issues/ });

/** Creates a repository of user_good's with the New repository form (its defaults), and waits for its page. */
export async function createRepository(name: string, p: Page = page) {
  await p.goto(url('/new'));
  await p.getByLabel('Repository name').fill(name);
  await p.getByRole('button', { name: 'Create repository' }).click();
  await p.waitForURL(url(`/user_good/${name}`));
}

/** Stars the repository the page shows, and waits until the button says Unstar. */
export async function starRepository(p: Page = page) {
  await p.getByRole('button', { name: 'Star', exact: true }).click();
  await visible(p.getByRole('button', { name: 'Unstar' }));
}

/** In an editor (of the dialog) with the caret after `words`: selects them, makes them bold, and goes to the end of the line. */
export async function boldLastWords(dialog: Locator, words: string) {
  for (let i = 0; i < words.length; i++) await page.keyboard.press('Shift+ArrowLeft');
  await dialog.getByRole('toolbar', { name: 'Text formatting' }).getByRole('button', { name: 'Bold' }).click();
  await page.keyboard.press('End');
}

/** Holds the page's fetch() requests to a path until the returned release is called (documents go through). */
export async function holdFetches(pathname: string): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    (u) => u.pathname === pathname,
    async (route) => {
      if (route.request().resourceType() === 'fetch') await held;
      await route.continue();
    },
  );
  return release;
}

/** A form POST sent by a script on the page (headers of the caller's choosing), not followed if redirected. */
export const postFromPage = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  page.evaluate(
    async ([p, b, h]) => {
      const r = await fetch(p, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...h },
        body: new URLSearchParams(b).toString(),
        redirect: 'manual',
      });
      return { status: r.status, text: await r.text() };
    },
    [path, body, headers] as const,
  );
