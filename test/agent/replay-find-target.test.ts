import type { Browser, BrowserContext, ElementHandle, Page } from 'playwright-core';

import { elementLocator, type ObservedElement, Redactor, takeSnapshot } from '../../server/agent/observation';
import { findTargets } from '../../server/agent/replay/find-target';
import { descriptorOf, type ElementDescriptor, resolveDescriptor } from '../../server/agent/replay/trajectory';
import { waitForQuiet } from '../../server/browser/page-quiet';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * A replay finds a step's element with a narrow in-page search instead of a whole snapshot. Both must name and
 * count elements alike: for every element of the full snapshot of real pages (the sandbox sites, a modal dialog,
 * names that redaction changes), the narrow search resolves its descriptor to that very element; and on a page
 * the narrow search cannot see whole (frames, shadow roots) it declines, so the replay takes the snapshot.
 */
jest.setTimeout(90_000);

let server: LiveServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startLiveServer(), startBrowser()]);
});
afterAll(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  await browser?.close();
  await server?.close();
});

async function signedIn(slug: 'orbit' | 'forgehub', username = 'user_good'): Promise<Page> {
  const org = await server.services.organizations.create(`Find ${slug} ${Date.now()}`);
  const storageState = await server.services.siteSessions.mint(
    { organizationId: org.organization.id, environment: 'sandbox' },
    slug,
    username,
  );
  const context = await browser.newContext({ storageState, viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  // Orbit fills in its nav's unread badges after load ("Messaging 1 new"), renaming two links: answered here with
  // counts, so a test can wait for the badges themselves instead of for a quiet that a loaded machine may end early.
  if (slug === 'orbit') {
    await context.route('**/badges', (route) => route.fulfill({ json: { notifications: 3, messages: 1 } }));
    badged.add(context);
  }
  // ForgeHub names its banner's Notifications link after its unread count once fetched ("Notifications (2 unread)"):
  // the same, for its one link (a loaded machine fetched it after the full snapshot, before the narrow search).
  if (slug === 'forgehub') {
    await context.route('**/notifications/count', (route) => route.fulfill({ json: { unread: 2 } }));
    forgeBadged.add(context);
  }
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

/** Contexts whose pages show Orbit's nav badges once its script has fetched them. */
const badged = new WeakSet<BrowserContext>();
/** Contexts whose pages show ForgeHub's unread count in their banner once its script has fetched it. */
const forgeBadged = new WeakSet<BrowserContext>();

/**
 * For each element of the full snapshot: the narrow search on the same page resolves the element's descriptor to
 * the same DOM node (compared through handles the test takes on the snapshot's elements). Returns how many it checked.
 */
async function expectSameTargets(page: Page, redactor = new Redactor()): Promise<number> {
  // The sites fill in some names after load (unread badges): compare the two views of a page that has settled.
  if (badged.has(page.context())) {
    for (const href of ['/messaging', '/notifications'])
      await page.locator(`nav[aria-label="Main"] a[href="${href}"]`).filter({ hasText: 'new' }).waitFor();
  }
  if (forgeBadged.has(page.context())) {
    await page.waitForFunction(() => {
      const link = document.querySelector('a[href="/notifications"]');
      return !link || (link.getAttribute('aria-label') ?? '').includes('unread');
    });
  }
  await waitForQuiet(page, { maxMs: 5_000 });
  const snapshot = await takeSnapshot(page, { redactor });
  expect(snapshot.elements.length).toBeGreaterThan(0);
  // The snapshot's elements' handles all at once: they come from the same observation, whose references stay put
  // until the next one (the narrow searches below), so the order they are taken in does not matter.
  const fullNodes = new Map<number, ElementHandle>(
    await Promise.all(snapshot.elements.map(async (el) => [el.index, (await (await elementLocator(page, el)).elementHandle())!] as const)),
  );
  // Twins (descriptors that differ only in position) share one narrow search: what it finds depends on the descriptor
  // without its position, and what it found stays addressable until the next search. Each twin is still resolved by
  // its own position and compared with its own node (a list repeats its links and buttons: ForgeHub's pages have many).
  const twins = new Map<string, { d: ElementDescriptor; el: ObservedElement }[]>();
  for (const el of snapshot.elements) {
    const d = descriptorOf(el, snapshot);
    const key = JSON.stringify({ ...d, nth: 0 });
    twins.set(key, [...(twins.get(key) ?? []), { d, el }]);
  }
  const mismatches: string[] = [];
  for (const group of twins.values()) {
    const narrow = await findTargets(page, group[0]!.d, redactor);
    for (const { d, el } of group) {
      if (!narrow) {
        mismatches.push(`${el.role} '${el.name}': the narrow search declined`);
        continue;
      }
      const found = resolveDescriptor(d, narrow);
      if (!found.ok) {
        mismatches.push(`${el.role} '${el.name}' in ${el.scope}: ${found.reason}`);
        continue;
      }
      const same = await (await elementLocator(page, found.el)).evaluate((e, h) => e === h, fullNodes.get(el.index)!);
      if (!same) mismatches.push(`${el.role} '${el.name}': another element than the full snapshot's #${el.index}`);
    }
  }
  expect(mismatches).toEqual([]);
  return snapshot.elements.length;
}

describe('finding a replay step’s element without a full snapshot', () => {
  it('finds every element of the Orbit feed and profile pages as the snapshot names them, twins by position', async () => {
    const page = await signedIn('orbit');
    await page.goto(server.siteUrl('orbit', '/'));
    expect(await expectSameTargets(page)).toBeGreaterThan(20);
    await page.goto(server.siteUrl('orbit', '/in/user_good'));
    await expectSameTargets(page);
  });

  it('finds the elements of ForgeHub pages (lists, tables, forms)', async () => {
    const page = await signedIn('forgehub');
    for (const path of ['/', '/repositories', '/kestrel-labs/kestrel']) {
      await page.goto(server.siteUrl('forgehub', path));
      await expectSameTargets(page);
    }
  });

  it('inside an open modal dialog, only the dialog’s elements, as the snapshot sees them', async () => {
    const page = await signedIn('orbit');
    await page.goto(server.siteUrl('orbit', '/'));
    await page.getByRole('button', { name: 'Start a post' }).click();
    await page.getByRole('dialog').waitFor();
    const snapshot = await takeSnapshot(page);
    expect(snapshot.modal).toBe(true);
    await expectSameTargets(page);
    // "Me" is behind the modal: neither view offers it.
    const me = await findTargets(
      page,
      { role: 'link', name: 'Me', scope: "navigation 'Main'", tag: 'a', nth: 0, count: 1 },
      new Redactor(),
    );
    expect(me?.elements).toEqual([]);
  });

  it('compares names after redaction: a parameter value on the page matches its placeholder', async () => {
    const page = await signedIn('orbit');
    await page.goto(server.siteUrl('orbit', '/in/user_good'));
    const redactor = new Redactor({ placeholders: [{ value: 'Grace Goodwin', placeholder: '{{parameters.name}}' }] });
    const snapshot = await takeSnapshot(page, { redactor });
    expect(snapshot.elements.some((e) => e.name.includes('{{parameters.name}}'))).toBe(true);
    await expectSameTargets(page, redactor);
  });

  it('declines a page with a frame or a shadow root, so the replay takes the full snapshot there', async () => {
    const page = await signedIn('orbit');
    await page.goto(server.siteUrl('orbit', '/'));
    const d = { role: 'link', name: 'Me', scope: "navigation 'Main'", tag: 'a', nth: 0, count: 1 };
    expect((await findTargets(page, d, new Redactor()))?.elements).toHaveLength(1);
    await page.evaluate(() => document.body.appendChild(document.createElement('div')).attachShadow({ mode: 'open' }));
    expect(await findTargets(page, d, new Redactor())).toBeNull();
    await page.goto(server.siteUrl('orbit', '/'));
    await page.evaluate(() => document.body.appendChild(document.createElement('iframe')));
    expect(await findTargets(page, d, new Redactor())).toBeNull();
  });
});
