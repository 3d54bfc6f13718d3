import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * What the Orbit browser tests (orbit*.browser.test.ts) share: a live server and Chromium, started for the calling
 * file by `useOrbitBrowser()` (the bindings below are set once its beforeAll ran); organizations (tenants), browser
 * contexts and signed-in pages; reading the page as a person does.
 */
export let server: LiveServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

/** Starts the server and the browser for the calling test file; closes each test's contexts after it. */
export function useOrbitBrowser(): void {
  beforeAll(async () => {
    [server, browser] = await Promise.all([startLiveServer(), startBrowser()]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
}

export const orbit = (path = '/') => server.siteUrl('orbit', path);
export const pathOf = (p: Page) => {
  const u = new URL(p.url());
  return u.pathname + u.search;
};

export async function newOrg(name = 'Orbit test org') {
  return server.services.organizations.create(name);
}

export async function newContext(storageState?: Awaited<ReturnType<LiveServer['services']['siteSessions']['mint']>>) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...(storageState ? { storageState } : {}) });
  context.setDefaultTimeout(10_000);
  contexts.push(context);
  return context;
}

/** A signed-in browser for a test user in an organization's copy of Orbit. */
export async function signedIn(organizationId: string, username = 'user_good', path = '/'): Promise<Page> {
  const state = await server.services.siteSessions.mint({ organizationId, environment: 'sandbox' }, 'orbit', username);
  const page = await (await newContext(state)).newPage();
  await page.goto(orbit(path));
  return page;
}

/** What a person reads: rendered text (innerText), whitespace collapsed. */
export const text = async (l: Locator) => (await l.innerText()).replace(/\s+/g, ' ').trim();
export const toast = (p: Page, message: string | RegExp) => p.getByRole('status').filter({ hasText: message });
export const feedPost = (p: Page, hasText: string) => p.getByRole('article').filter({ hasText });
