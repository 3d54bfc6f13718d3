import type { BrowserContext } from 'playwright-core';

import {
  boldLastWords,
  commentBy,
  createRepository,
  expectCount,
  gone,
  holdFetches,
  issuesTab,
  newOrg,
  page,
  postFromPage,
  profileCounts,
  repoItems,
  server,
  signedIn,
  signIn,
  starRepository,
  tenantPage,
  toast,
  url,
  useForgehubBrowser,
  visible,
  yourRepositories,
} from './forgehub-support';

/**
 * ForgeHub through a real Chromium, used the way a person would: sign in with the login form, then every
 * feature, each result checked on the page that shows it. Every test is signed in to a tenant of its own
 * (a fresh organization), so tests do not see each other's repositories, stars or notifications; the first signs in
 * through the form, the others with the session the sandbox mints for user_good (what the form's sign-in sets).
 * The server, browser, page and helpers: forgehub-support.ts.
 */
jest.setTimeout(30_000);

useForgehubBrowser();

describe('ForgeHub in a browser', () => {
  it('signs in through the login form, shows the dashboard, and signs out', async () => {
    await page.goto(url('/'));
    expect(page.url()).toContain('/login'); // not signed in yet
    await signIn();
    expect(new URL(page.url()).pathname).toBe('/');
    await visible(page.getByRole('link', { name: 'Grace Goodwin' }));
    const mine = yourRepositories();
    await visible(mine.getByRole('link', { name: 'user_good/dotfiles' }));
    await visible(mine.getByRole('link', { name: 'user_good/notes' }));
    await visible(page.getByText('mlopez commented on Watch API: resume from a revision after reconnect'));

    await page.getByRole('button', { name: 'Sign out' }).click();
    await visible(page.getByRole('heading', { name: 'Sign in to ForgeHub' }));
    await page.goto(url('/stars'));
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('searches repositories and pages through them', async () => {
    await signedIn();
    await page.getByRole('navigation', { name: 'Global' }).getByRole('link', { name: 'Repositories' }).click();
    await visible(page.getByText('38 repositories'));
    await expectCount(repoItems(), 10);
    const firstPage = await repoItems().getByRole('heading').allTextContents();

    await page.getByRole('link', { name: 'Page 2' }).click();
    await page.waitForURL(/page=2/);
    expect(await page.getByRole('link', { name: 'Page 2' }).getAttribute('aria-current')).toBe('page');
    await expectCount(repoItems(), 10);
    const secondPage = await repoItems().getByRole('heading').allTextContents();
    expect(secondPage.some((t) => firstPage.includes(t))).toBe(false);

    await page.getByRole('link', { name: 'Next ›' }).click();
    await page.waitForURL(/page=3/);
    await page.getByRole('link', { name: 'Page 4' }).click();
    await page.waitForURL(/page=4/);
    await expectCount(repoItems(), 8);
    await visible(page.getByText('showing 31–38'));

    await page.getByLabel('Find a repository').fill('csv');
    await page.getByLabel('Find a repository').press('Enter');
    await page.waitForURL(/q=csv/);
    await expectCount(repoItems(), 1);
    await visible(repoItems().getByRole('link', { name: 'jchen/csv-surgeon' }));
    await visible(page.getByText('1 repository matching csv'));
    expect(await page.getByRole('navigation', { name: 'Pagination' }).count()).toBe(0);

    await page.getByLabel('Find a repository').fill('kestrel');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=kestrel/);
    await expectCount(repoItems(), 4);

    await page.getByLabel('Find a repository').fill('no-such-thing-anywhere');
    await page.getByLabel('Find a repository').press('Enter');
    await visible(page.getByRole('heading', { name: 'No repositories matched your search' }));
  });

  it('creates a repository with the visibility picked in the custom dropdown', async () => {
    await signedIn();
    await page.getByRole('navigation', { name: 'Global' }).getByRole('link', { name: 'Repositories' }).click();
    await page.getByRole('link', { name: 'New repository' }).click();
    await visible(page.getByRole('heading', { name: 'Create a new repository' }));

    // Nothing filled in: the errors are shown next to the field.
    await page.getByRole('button', { name: 'Create repository' }).click();
    await visible(page.getByText('Repository name is required.').last());
    expect(await page.getByLabel('Repository name').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Repository name').fill('lab-notebook');
    await page.getByLabel('Description').fill('Experiments, measurements and results.');
    const visibility = page.getByRole('button', { name: /Visibility/ });
    expect(await visibility.getAttribute('aria-expanded')).toBe('false');
    await visibility.click();
    const listbox = page.getByRole('listbox', { name: 'Visibility *' });
    await visible(listbox);
    expect(await visibility.getAttribute('aria-expanded')).toBe('true');
    await listbox.getByRole('option', { name: /^Private/ }).click();
    await gone(listbox);
    expect(await visibility.textContent()).toContain('Private');
    await page.getByRole('button', { name: 'Create repository' }).click();

    await page.waitForURL(url('/user_good/lab-notebook'));
    await visible(toast('Repository user_good/lab-notebook created.'));
    await visible(page.getByRole('link', { name: 'lab-notebook', exact: true }));
    await visible(page.locator('main').getByText('Private', { exact: true }));
    await visible(page.getByRole('complementary', { name: 'About' }).getByText('Experiments, measurements and results.'));
    await visible(page.getByText('This repository is empty.'));

    // It heads the repository list (most recently updated first), marked private.
    await page.getByRole('navigation', { name: 'Global' }).getByRole('link', { name: 'Repositories' }).click();
    await visible(page.getByText('39 repositories'));
    const first = repoItems().first();
    await visible(first.getByRole('link', { name: 'user_good/lab-notebook' }));
    expect(await first.textContent()).toContain('Private');
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await visible(yourRepositories().getByRole('link', { name: 'user_good/lab-notebook' }));

    // The same name again is refused; the dropdown also works from the keyboard.
    await page.goto(url('/new'));
    await page.getByLabel('Repository name').fill('Lab-Notebook');
    await page.getByRole('button', { name: /Visibility/ }).focus();
    await page.keyboard.press('ArrowDown');
    await visible(page.getByRole('listbox'));
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    expect(await page.getByRole('button', { name: /Visibility/ }).textContent()).toContain('Private');
    await page.getByRole('button', { name: 'Create repository' }).click();
    await visible(page.getByText('The repository user_good/Lab-Notebook already exists on this account.').last());
    expect(await page.getByRole('button', { name: /Visibility/ }).textContent()).toContain('Private');
  });

  it('stars and unstars a repository; the count and the stars page follow', async () => {
    await signedIn();
    await page.goto(url('/kestrel-labs/benchmarks'));
    const about = page.getByRole('complementary', { name: 'About' });
    await visible(about.getByText('77 stars'));
    await starRepository();
    await visible(about.getByText('78 stars'));
    expect(await page.getByRole('button', { name: 'Unstar' }).getAttribute('aria-pressed')).toBe('true');

    await page.getByRole('navigation', { name: 'Global' }).getByRole('link', { name: 'Stars' }).click();
    const starred = page.getByRole('list', { name: 'Starred repositories' }).getByRole('listitem');
    await expectCount(starred, 4);
    await visible(starred.first().getByRole('link', { name: 'kestrel-labs/benchmarks' }));

    await starred.filter({ hasText: 'kestrel-labs/benchmarks' }).getByRole('button', { name: 'Unstar' }).click();
    await page.waitForURL(url('/stars'));
    await expectCount(starred, 3);
    expect(await page.getByRole('link', { name: 'kestrel-labs/benchmarks' }).count()).toBe(0);

    await page.goto(url('/kestrel-labs/benchmarks'));
    await visible(page.getByRole('button', { name: 'Star', exact: true }));
    await visible(about.getByText('77 stars'));
  });

  it('opens an issue with the editor, comments, closes it after confirming, and reopens it', async () => {
    await signedIn();
    await page.goto(url('/openfoundry/pipeline-kit'));
    await issuesTab().click();
    await page.getByRole('button', { name: 'New issue' }).click();
    const dialog = page.getByRole('dialog', { name: 'New issue in openfoundry/pipeline-kit' });
    await visible(dialog);

    // A title is required: the dialog says so and stays open.
    await dialog.getByRole('button', { name: 'Submit new issue' }).click();
    await visible(dialog.getByText('Title can’t be blank.'));

    await dialog.getByLabel('Title').fill('Scheduler crashes on leap day');
    const editor = dialog.getByRole('textbox', { name: 'Description' });
    await editor.click();
    await page.keyboard.type('Backfills crash on leap day');
    await boldLastWords(dialog, 'leap day');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Run backfill --from 2024-02-28.');
    expect(await editor.innerText()).toContain('Backfills crash on **leap day**');
    await dialog.getByRole('button', { name: 'Submit new issue' }).click();

    await page.waitForURL(url('/openfoundry/pipeline-kit/issues/3'));
    await visible(toast('Issue #3 created.'));
    await visible(page.getByRole('heading', { name: 'Scheduler crashes on leap day #3' }));
    const body = commentBy('user_good').first();
    expect(await body.locator('strong').textContent()).toBe('leap day');
    await visible(body.getByText('Run backfill --from 2024-02-28.'));
    // The maintainer of the seeded project answers.
    await visible(commentBy('mlopez').getByText('Thanks for opening this, @user_good!'));

    await page.getByLabel('Add a comment').fill('Reproduced with the sample pipeline as well.');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await visible(commentBy('user_good').filter({ hasText: 'Reproduced with the sample pipeline as well.' }));
    await visible(page.getByText('2 comments'));

    // Closing asks first; Cancel leaves the issue open.
    await page.getByRole('button', { name: 'Close issue' }).click();
    const confirm = page.getByRole('dialog', { name: 'Close issue #3?' });
    await visible(confirm);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await gone(confirm);
    await visible(page.getByText('Open', { exact: true }));

    await page.getByRole('button', { name: 'Close issue' }).click();
    await confirm.getByRole('button', { name: 'Close issue' }).click();
    await visible(toast('Issue #3 closed.'));
    await visible(page.getByText('Closed', { exact: true }));
    await visible(page.getByText('user_good closed this as completed'));

    await issuesTab().click();
    const open = page.getByRole('list', { name: 'Open issues' });
    await visible(open);
    expect(await open.getByRole('link', { name: 'Scheduler crashes on leap day' }).count()).toBe(0);
    await page.getByRole('link', { name: /Closed/ }).click();
    const closed = page.getByRole('list', { name: 'Closed issues' });
    await visible(closed.getByRole('link', { name: 'Scheduler crashes on leap day' }));

    await closed.getByRole('link', { name: 'Scheduler crashes on leap day' }).click();
    await page.getByRole('button', { name: 'Reopen issue' }).click();
    await visible(toast('Issue #3 reopened.'));
    await visible(page.getByText('Open', { exact: true }));
    await visible(page.getByText('user_good reopened this'));
    await issuesTab().click();
    await visible(open.getByRole('link', { name: 'Scheduler crashes on leap day' }));
  }, 60_000); // a long flow (editor, comment, confirm dialog, reopen): 15 s quiet, over 30 s on a busy machine

  it('loads more issues on demand', async () => {
    await signedIn();
    await page.goto(url('/openfoundry/atlas/issues'));
    const items = page.getByRole('list', { name: 'Open issues' }).getByRole('listitem');
    await expectCount(items, 10);
    await visible(page.getByText('Showing 10 of 22 open issues'));
    await page.getByRole('button', { name: 'Load more' }).click();
    await expectCount(items, 20);
    await visible(page.getByText('Showing 20 of 22 open issues'));
    await page.getByRole('button', { name: 'Load more' }).click();
    await expectCount(items, 22);
    await visible(page.getByText('Showing 22 of 22 open issues'));
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    // Newest first, oldest last, no duplicates.
    const titles = await items.evaluateAll((lis) => lis.map((li) => li.querySelector('a')?.textContent ?? ''));
    expect(new Set(titles).size).toBe(22);
    expect(titles[0]).toBe('Improve the getting started guide');
    expect(titles[21]).toBe('Leader election stalls after network partition heals');

    await page.getByRole('link', { name: /Closed/ }).click();
    await expectCount(page.getByRole('list', { name: 'Closed issues' }).getByRole('listitem'), 6);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
  });

  it('shows profile counts that follow what the user does', async () => {
    await signedIn();
    await page.getByRole('link', { name: 'Grace Goodwin' }).click();
    await visible(page.getByRole('heading', { name: 'Grace Goodwin' }));
    expect(await profileCounts()).toEqual(['3 followers', '2 following', '2 repositories', '3 stars']);

    await page.goto(url('/sven/led-matrix'));
    await starRepository();
    await createRepository('profile-demo');

    await page.getByRole('link', { name: 'Grace Goodwin' }).click();
    await visible(page.getByRole('heading', { name: 'Grace Goodwin' }));
    expect(await profileCounts()).toEqual(['3 followers', '2 following', '3 repositories', '4 stars']);
    await page.getByRole('navigation', { name: 'Profile' }).getByRole('link', { name: /Stars/ }).click();
    await visible(page.getByRole('list', { name: 'Starred repositories' }).getByRole('link', { name: 'sven/led-matrix' }));

    // Someone else's profile: follow them and see their follower count change.
    await page.goto(url('/mlopez'));
    await visible(page.getByRole('heading', { name: 'Marta López' }));
    expect((await profileCounts())[0]).toBe('4 followers');
    await page.getByRole('button', { name: 'Follow' }).click();
    await visible(toast('You are now following mlopez.'));
    await visible(page.getByRole('button', { name: 'Unfollow' }));
    expect((await profileCounts())[0]).toBe('5 followers');
  });

  it('loads notifications after the page behind a spinner, marks them read, and gets new ones', async () => {
    await signedIn();
    const bell = page.getByRole('link', { name: /^Notifications/ });
    await visible(bell.getByText('2'));

    // The inbox's JSON is held until the spinner has been seen: a loaded machine could otherwise finish the whole load
    // (the site's 350 ms latency included) before the first look, and the spinner would never be seen.
    const release = await holdFetches('/notifications');
    await page.goto(url('/notifications'), { waitUntil: 'commit' });
    await visible(page.getByRole('status').filter({ hasText: 'Loading notifications…' }));
    release();
    const items = page.getByRole('list', { name: 'Notifications' }).getByRole('listitem');
    await expectCount(items, 3);
    await page.unrouteAll();
    await gone(page.getByText('Loading notifications…'));
    await visible(items.filter({ hasText: 'Watch API: resume from a revision after reconnect' }).getByText('mlopez commented'));

    await items.filter({ hasText: 'zsh prompt is slow' }).getByRole('button', { name: 'Mark as read' }).click();
    await visible(toast('Marked as read'));
    await visible(bell.getByText('1'));
    expect(await items.filter({ hasText: 'zsh prompt is slow' }).getByRole('button', { name: 'Mark as read' }).count()).toBe(0);

    await page.getByRole('navigation', { name: 'Notification filter' }).getByRole('link', { name: 'Unread' }).click();
    await expectCount(items, 1);
    await visible(items.getByText('Watch API: resume from a revision after reconnect'));

    // Opening an issue on a seeded project brings the maintainer's answer to the inbox.
    await page.goto(url('/openfoundry/atlas/issues/new'));
    await page.getByLabel('Title').fill('Snapshots fail on read-only volumes');
    await page.getByRole('textbox', { name: 'Description' }).click();
    await page.keyboard.type('atlas exits when the snapshot directory is read-only.');
    await page.getByRole('button', { name: 'Submit new issue' }).click();
    await visible(toast('Issue #29 created.'));
    await visible(bell.getByText('2'));
    await bell.click();
    await visible(items.filter({ hasText: 'Snapshots fail on read-only volumes' }).getByText('mlopez commented'));
    await expectCount(items, 4);

    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await visible(toast('All notifications marked as read'));
    await gone(bell.getByText('2'));
    await expectCount(page.getByRole('button', { name: 'Mark as read' }), 0);
  });

  it('refuses a state-changing request without the CSRF token', async () => {
    await signedIn();
    // A script on the page that posts without the token (as a cross-site form or a careless client would).
    const noToken = await postFromPage('/new', { name: 'sneaky-repo', visibility: 'public' });
    expect(noToken.status).toBe(403);
    const wrongToken = await postFromPage('/new', { _csrf: 'not-the-token', name: 'sneaky-repo', visibility: 'public' });
    expect(wrongToken.status).toBe(403);
    expect((await postFromPage('/sven/led-matrix/star', {})).status).toBe(403);
    expect((await postFromPage('/sven/led-matrix/star', {}, { 'x-csrf-token': 'forged' })).status).toBe(403);

    await page.goto(url('/repositories?q=sneaky-repo'));
    await visible(page.getByRole('heading', { name: 'No repositories matched your search' }));
    await page.goto(url('/sven/led-matrix'));
    await visible(page.getByRole('button', { name: 'Star', exact: true }));

    // The page's own token, sent the way the page's scripts send it, is accepted.
    const token = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    const ok = await postFromPage('/sven/led-matrix/star', {}, { 'x-csrf-token': token!, accept: 'application/json' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toEqual({ starred: true, stars: 48 });
  });

  it('keeps two organizations’ repositories apart', async () => {
    const [orgA, orgB] = [await newOrg(), await newOrg()];
    const contexts: BrowserContext[] = [];
    try {
      const [a, b] = [await tenantPage(orgA, contexts), await tenantPage(orgB, contexts)];
      await createRepository('tenant-a-only', a);
      await starRepository(a);

      await a.goto(url('/repositories?q=tenant-a-only'));
      await expectCount(repoItems(a), 1);
      await b.goto(url('/repositories?q=tenant-a-only'));
      await visible(b.getByRole('heading', { name: 'No repositories matched your search' }));
      const direct = await b.goto(url('/user_good/tenant-a-only'));
      expect(direct!.status()).toBe(404);
      await b.goto(url('/stars'));
      await expectCount(b.getByRole('list', { name: 'Starred repositories' }).getByRole('listitem'), 3);
      await b.goto(url('/'));
      expect(await yourRepositories(b).getByRole('link', { name: 'user_good/tenant-a-only' }).count()).toBe(0);
    } finally {
      for (const ctx of contexts) await ctx.close();
    }
  });

  it('sandbox reset removes created repositories and restores the seed content', async () => {
    const organizationId = await signedIn(await newOrg());
    await createRepository('temporary-repo');
    await page.goto(url('/repositories?q=temporary-repo'));
    await expectCount(repoItems(), 1);

    const reset = await server.services.sandbox.reset({ organizationId, environment: 'sandbox' });
    expect(reset.ok).toBe(true);

    // Same browser session, still signed in; the repository is gone and the seed is back.
    const gonePage = await page.goto(url('/user_good/temporary-repo'));
    expect(gonePage!.status()).toBe(404);
    await page.goto(url('/repositories?q=temporary-repo'));
    await visible(page.getByRole('heading', { name: 'No repositories matched your search' }));
    await page.goto(url('/repositories'));
    await visible(page.getByText('38 repositories'));
    await page.goto(url('/openfoundry/atlas/issues'));
    await visible(page.getByText('Showing 10 of 22 open issues'));
  });
});
