import type { Page } from 'playwright-core';

import { feedPost, newOrg, orbit, pathOf, signedIn, text, toast, useOrbitBrowser } from './orbit-support';

/**
 * Orbit through Chromium, the way a person uses it: compose (dialog, contenteditable editor, custom
 * visibility dropdown), like, comment, repost, follow / unfollow (confirmation dialog), profiles, direct
 * messages, notifications (fetched after load), numbered pagination, "load more", toasts. Every result is
 * checked on the page that shows it. Each test runs in its own organization (tenant), so seeded counts are
 * known; sessions are minted like the sandbox API does, except where the login form itself matters. CSRF, tenancy
 * and the sandbox reset: orbit-isolation.browser.test.ts.
 */
jest.setTimeout(60_000);

useOrbitBrowser();

/**
 * Opens Notifications from the nav. The page arrives with a busy spinner and no notifications (they are
 * fetched after load); returns the served HTML, which proves that without racing the fetch.
 */
async function openNotifications(p: Page): Promise<string> {
  const [response] = await Promise.all([
    p.waitForResponse((r) => new URL(r.url()).pathname === '/notifications' && r.request().resourceType() === 'document'),
    p.getByRole('link', { name: /Notifications/ }).click(),
  ]);
  const served = await response.text();
  expect(served).toMatch(/aria-busy="true"[^>]*><div[^>]*role="status"><span[^>]*><\/span><span>Loading notifications…<\/span>/);
  await p.getByRole('heading', { name: 'Notifications' }).waitFor();
  return served;
}

describe('Orbit social network', () => {
  it('composes a post in the dialog (contenteditable editor, Connections visibility) and shows it where it belongs', async () => {
    const org = await newOrg();
    const page = await signedIn(org.organization.id);

    // Seeded feed: ten posts, the newest first.
    await page.getByRole('article').first().waitFor();
    expect(await page.getByRole('article').count()).toBe(10);
    expect(await text(page.getByRole('article').first())).toContain('We moved our nightly batch');

    await page.getByRole('button', { name: 'Start a post' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a post' });
    await dialog.waitFor();
    const post = dialog.getByRole('button', { name: 'Post', exact: true });
    expect(await post.isDisabled()).toBe(true);

    const editor = dialog.getByRole('textbox', { name: 'Text editor for creating content' });
    await editor.click();
    await page.keyboard.type('Shipping the new onboarding flow next week.');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('Connections first, before the public launch!');
    expect(await post.isEnabled()).toBe(true);

    // The custom (non-<select>) dropdown: a button opening a listbox.
    const visibility = dialog.getByRole('button', { name: /Who can see your post\?/ });
    expect(await text(visibility)).toContain('Public');
    await visibility.click();
    await dialog.getByRole('listbox').waitFor();
    await dialog.getByRole('option', { name: /Connections/ }).click();
    await dialog.getByRole('listbox').waitFor({ state: 'hidden' });
    expect(await text(visibility)).toContain('Connections');
    expect(await visibility.getAttribute('aria-expanded')).toBe('false');

    await post.click();
    await toast(page, 'Post successful. Only your connections can see it.').waitFor();
    expect(await dialog.isVisible()).toBe(false);

    // On the feed: first, with its audience and the text as written (two lines).
    const mine = page.getByRole('article').first();
    expect(await mine.getAttribute('aria-label')).toBe('Post by Grace Goodwin');
    expect(await text(mine)).toContain('Shipping the new onboarding flow next week. Connections first, before the public launch!');
    expect(await text(mine)).toContain('Connections');
    expect(
      await mine
        .locator('div', { hasText: /^Shipping/ })
        .last()
        .innerText(),
    ).toBe('Shipping the new onboarding flow next week.\nConnections first, before the public launch!');

    // On the author's profile (via Me) and on the post's own page.
    await page.getByRole('link', { name: 'Me', exact: true }).click();
    await page.getByRole('heading', { name: 'Grace Goodwin', level: 1 }).waitFor();
    expect(pathOf(page)).toBe('/in/user_good');
    await feedPost(page, 'Shipping the new onboarding flow').waitFor();
    await feedPost(page, 'Shipping the new onboarding flow').getByRole('link', { name: 'Comment', exact: true }).click();
    await page.getByRole('heading', { name: 'Comments' }).waitFor();
    expect(pathOf(page)).toMatch(/^\/posts\/\d+$/);
    expect(await text(page.getByRole('article'))).toContain('Shipping the new onboarding flow next week.');
    const postUrl = page.url();

    // Another member who does not follow Grace cannot see a connections-only post …
    const sasha = await signedIn(org.organization.id, 'user_sms', '/in/user_good');
    await sasha.getByRole('heading', { name: 'Grace Goodwin', level: 1 }).waitFor();
    expect(await feedPost(sasha, 'Shipping the new onboarding flow').count()).toBe(0);
    await sasha.goto(postUrl);
    await sasha.getByRole('heading', { name: 'This post cannot be displayed' }).waitFor();
    // … until they follow her.
    await sasha.goto(orbit('/in/user_good'));
    await sasha.getByRole('button', { name: 'Follow Grace Goodwin' }).click();
    await toast(sasha, "You're now following Grace Goodwin.").waitFor();
    await feedPost(sasha, 'Shipping the new onboarding flow').waitFor();
    await sasha.goto(orbit('/'));
    expect(await text(sasha.getByRole('article').first())).toContain('Shipping the new onboarding flow');
  });

  it('likes, comments on and reposts a post; the counts stay after a reload and show on the post page', async () => {
    const org = await newOrg();
    const page = await signedIn(org.organization.id);
    const priya = feedPost(page, 'We moved our nightly batch').first();
    await priya.waitFor();
    expect(await text(priya)).toContain('212 likes · 2 comments · 18 reposts');

    // Like: updated in place (no reload), then persisted.
    const like = priya.getByRole('button', { name: 'Like', exact: true });
    expect(await like.getAttribute('aria-pressed')).toBe('false');
    await like.click();
    await priya.locator('button[aria-pressed="true"]').waitFor();
    await priya.getByText('213 likes').waitFor();
    await page.reload();
    expect(await text(priya)).toContain('213 likes');
    expect(await priya.getByRole('button', { name: 'Like', exact: true }).getAttribute('aria-pressed')).toBe('true');

    // Comment on the post page.
    await priya.getByRole('link', { name: 'Comment', exact: true }).click();
    await page.getByRole('heading', { name: 'Comments' }).waitFor();
    const box = page.getByLabel('Add a comment');
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
    await box.fill('Data contracts in CI are underrated. Thanks for sharing!');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await toast(page, 'Comment posted.').waitFor();
    const comments = page.getByRole('list').filter({ hasText: 'Data contracts in CI are underrated' });
    await comments.waitFor();
    const myComment = comments.getByRole('listitem').filter({ hasText: 'Thanks for sharing!' });
    expect(await text(myComment)).toContain('Grace Goodwin');
    expect(await text(myComment)).toContain('Liked by Priya Nair');
    expect(await text(page.getByRole('article'))).toContain('213 likes · 3 comments · 18 reposts');

    // Repost from the post page, then undo it.
    await page.getByRole('article').getByRole('button', { name: 'Repost', exact: true }).click();
    await toast(page, "Reposted Priya's post to your followers.").waitFor();
    expect(await text(page.getByRole('article'))).toContain('19 reposts');
    expect(await page.getByRole('article').getByRole('button', { name: 'Undo repost' }).isVisible()).toBe(true);

    // The repost leads the home feed and the reposter's activity.
    await page.getByRole('link', { name: 'Home', exact: true }).click();
    const repost = page.getByRole('article', { name: 'Grace Goodwin reposted a post by Priya Nair' });
    await repost.waitFor();
    expect(await text(repost)).toContain('You reposted this');
    expect(await text(repost)).toContain('213 likes · 3 comments · 19 reposts');
    expect(await page.getByRole('article').first().getAttribute('aria-label')).toBe('Grace Goodwin reposted a post by Priya Nair');
    await page.goto(orbit('/me'));
    await page.getByRole('article', { name: 'Grace Goodwin reposted a post by Priya Nair' }).waitFor();

    await page
      .getByRole('article', { name: 'Grace Goodwin reposted a post by Priya Nair' })
      .getByRole('button', { name: 'Undo repost' })
      .click();
    await toast(page, 'Repost removed.').waitFor();
    expect(await page.getByRole('article', { name: /reposted a post/ }).count()).toBe(0);
  });

  it('follows someone from the paginated network list; counts, follow-back notification, unfollow with confirmation', async () => {
    const org = await newOrg();
    const page = await signedIn(org.organization.id, 'user_good', '/network');
    await page.getByRole('heading', { name: 'People you may know' }).waitFor();

    // Numbered pagination.
    const pagination = page.getByRole('navigation', { name: 'Pagination' });
    expect(await pagination.getByRole('link', { name: 'Page 1' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('link', { name: 'Lena Fischer' }).count()).toBe(0);
    await pagination.getByRole('link', { name: 'Page 2' }).click();
    await page.getByRole('link', { name: 'Lena Fischer' }).waitFor();
    expect(pathOf(page)).toBe('/network?page=2');
    expect(
      await page.getByRole('navigation', { name: 'Pagination' }).getByRole('link', { name: 'Page 2' }).getAttribute('aria-current'),
    ).toBe('page');
    expect(await text(page.getByText(/^Showing/))).toContain('Showing 9–16 of 24');
    await page.getByRole('link', { name: 'Next ›' }).click();
    await page.waitForURL(/page=3/);
    await page.getByRole('link', { name: 'Priya Nair' }).waitFor();
    await page.getByRole('link', { name: '‹ Previous' }).click();
    await page.getByRole('link', { name: 'Lena Fischer' }).waitFor();

    await page.getByRole('button', { name: 'Follow Lena Fischer' }).click();
    await toast(page, "You're now following Lena Fischer.").waitFor();
    expect(pathOf(page)).toBe('/network?page=2');
    await page.getByRole('button', { name: 'Following Lena Fischer' }).waitFor();

    // Her profile: one more follower, and she followed back.
    await page.getByRole('link', { name: 'Lena Fischer' }).click();
    await page.getByRole('heading', { name: 'Lena Fischer', level: 1 }).waitFor();
    const audience = page.getByRole('list', { name: 'Audience' });
    expect(await text(audience)).toBe('1,933 followers 389 following');
    expect(await page.getByText('Follows you').isVisible()).toBe(true);

    // My profile counts include her.
    await page.getByRole('link', { name: 'Me', exact: true }).click();
    await page.getByRole('heading', { name: 'Grace Goodwin', level: 1 }).waitFor();
    expect(await text(page.getByRole('list', { name: 'Audience' }))).toBe('1,286 followers 394 following');

    // The notification arrives after the page's spinner.
    const served = await openNotifications(page);
    expect(served).not.toContain('followed you back');
    const list = page.getByRole('list', { name: 'Notifications' });
    await list.waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Loading notifications…' }).count()).toBe(0);
    expect(await text(list.getByRole('listitem').first())).toContain('Lena Fischer followed you back');

    // Unfollow: a confirmation dialog first; Cancel keeps following.
    await page.goto(orbit('/in/lena-fischer'));
    await page.getByRole('button', { name: 'Following Lena Fischer' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Unfollow Lena Fischer?' });
    await confirm.waitFor();
    expect(await text(confirm)).toContain("You'll stop seeing Lena's posts in your feed.");
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await text(page.getByRole('list', { name: 'Audience' }))).toContain('1,933 followers');

    await page.getByRole('button', { name: 'Following Lena Fischer' }).click();
    await confirm.getByRole('button', { name: 'Unfollow' }).click();
    await toast(page, 'You unfollowed Lena Fischer.').waitFor();
    expect(await text(page.getByRole('list', { name: 'Audience' }))).toBe('1,932 followers 389 following');
    expect(await page.getByRole('button', { name: 'Follow Lena Fischer' }).isVisible()).toBe(true);
  });

  it('sends direct messages and shows them in the thread and the conversation list', async () => {
    const org = await newOrg();
    const page = await signedIn(org.organization.id);

    // A seeded unread message shows as a badge until the conversation is opened.
    const messaging = page.getByRole('link', { name: /Messaging/ });
    await messaging.filter({ hasText: '1 new' }).waitFor();
    await messaging.click();
    const conversations = page.getByRole('list', { name: 'Conversations' });
    await conversations.waitFor();
    expect(await text(conversations.getByRole('listitem').first())).toContain('Priya Nair');
    await conversations.getByRole('link', { name: /Priya Nair/ }).click();
    await page.getByRole('region', { name: 'Conversation with Priya Nair' }).waitFor();
    expect(await text(page.getByRole('list', { name: 'Messages' }))).toContain('Perfect, I will send an invite for 3pm.');
    await page
      .getByRole('link', { name: /Messaging/ })
      .filter({ hasText: 'new' })
      .waitFor({ state: 'detached' });

    // A new conversation from a profile's Message button.
    await page.goto(orbit('/in/noah-kim'));
    await page.getByRole('link', { name: 'Message' }).click();
    const thread = page.getByRole('region', { name: 'Conversation with Noah Kim' });
    await thread.waitFor();
    expect(await text(thread)).toContain('This is the beginning of your conversation with Noah Kim.');
    await page.getByLabel('Write a message').fill('Hi Noah, loved your post about native dialogs!');
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .getByRole('list', { name: 'Messages' })
      .getByRole('listitem')
      .filter({ hasText: 'loved your post about native dialogs' })
      .waitFor();
    expect(await text(page.getByRole('list', { name: 'Messages' }).getByRole('listitem').last())).toContain('Grace Goodwin');

    // Enter sends too (Shift+Enter would add a line).
    await page.getByLabel('Write a message').fill('Are you going to the conference in May?');
    await page.getByLabel('Write a message').press('Enter');
    await page.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ hasText: 'conference in May' }).waitFor();

    await page.getByRole('link', { name: /Messaging/ }).click();
    await page.getByRole('heading', { name: 'Select a conversation' }).waitFor();
    const first = page.getByRole('list', { name: 'Conversations' }).getByRole('listitem').first();
    expect(await text(first)).toContain('Noah Kim');
    expect(await text(first)).toContain('You: Are you going to the conference in May?');

    // The other side sees it too when the recipient is a member (user_sms, same organization).
    await page.getByRole('button', { name: 'New message' }).click();
    const picker = page.getByRole('dialog', { name: 'New message' });
    await picker.getByRole('textbox', { name: 'Type a name' }).fill('sasha');
    await picker.getByRole('link', { name: /Sasha Mendes/ }).click();
    await page.getByLabel('Write a message').fill('Hello Sasha!');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ hasText: 'Hello Sasha!' }).waitFor();
    const sasha = await signedIn(org.organization.id, 'user_sms', '/messaging');
    const latest = sasha.getByRole('list', { name: 'Conversations' }).getByRole('listitem').first();
    expect(await text(latest)).toContain('Grace Goodwin');
    expect(await text(latest)).toContain('Hello Sasha!');
    expect(await text(latest)).toContain('1 unread');
  });

  it('shows notifications after a loading spinner, including likes and comments by other members', async () => {
    const org = await newOrg();
    // Sasha likes and comments on Grace's seeded post.
    const sasha = await signedIn(org.organization.id, 'user_sms', '/in/user_good');
    const gracePost = feedPost(sasha, 'one-click onboarding');
    await gracePost.getByRole('button', { name: 'Like', exact: true }).click();
    await gracePost.locator('button[aria-pressed="true"]').waitFor();
    await gracePost.getByRole('link', { name: 'Comment', exact: true }).click();
    await sasha.getByLabel('Add a comment').fill('Congrats on the launch!');
    await sasha.getByRole('button', { name: 'Post comment' }).click();
    await toast(sasha, 'Comment posted.').waitFor();

    const page = await signedIn(org.organization.id, 'user_good', '/');
    await page
      .getByRole('link', { name: /Notifications/ })
      .filter({ hasText: '4 new' })
      .waitFor();
    const served = await openNotifications(page);
    expect(served).not.toContain('Sasha Mendes');
    const list = page.getByRole('list', { name: 'Notifications' });
    await list.waitFor();
    expect(await page.getByText('Loading notifications…').count()).toBe(0);
    const items = list.getByRole('listitem');
    expect(await text(items.nth(0))).toContain('Sasha Mendes commented on your post: "Congrats on the launch!"');
    expect(await text(items.nth(1))).toContain('Sasha Mendes liked your post');
    expect(await text(items.nth(0))).toContain('Unread');
    // Seeded ones follow, older.
    expect(await text(list)).toContain('Jonas Berg started following you');
    expect(await items.count()).toBe(6);

    // Opening the page marks them read: the badge goes away and a reload shows them as read.
    await page
      .getByRole('link', { name: /Notifications/ })
      .filter({ hasText: 'new' })
      .waitFor({ state: 'detached' });
    await page.reload();
    await list.waitFor();
    expect(await text(list)).not.toContain('Unread');

    // A notification leads to the post.
    await items.filter({ hasText: 'Congrats on the launch!' }).getByRole('link').click();
    await page.getByRole('heading', { name: 'Comments' }).waitFor();
    expect(await text(page.getByRole('list').filter({ hasText: 'Congrats on the launch!' }).getByRole('listitem').last())).toContain(
      'Sasha Mendes',
    );
  });

  it('loads older posts with "Load more" until the feed is caught up', async () => {
    const org = await newOrg();
    const page = await signedIn(org.organization.id);
    await page.getByRole('article').first().waitFor();
    expect(await page.getByRole('article').count()).toBe(10);
    expect(await page.getByText('CSS container queries').count()).toBe(0);

    const more = page.getByRole('button', { name: 'Load more posts' });
    await more.click();
    await page.getByRole('article').nth(19).waitFor();
    expect(await page.getByRole('article').count()).toBe(20);
    await more.click();
    await page.getByRole('article').nth(29).waitFor();
    await more.click();
    await page.getByRole('article').nth(39).waitFor();
    await more.click();
    await page.getByText("You're all caught up").waitFor();
    expect(await more.count()).toBe(0);
    // 42 seeded posts (one per sandbox test user among them); one is shared with Kenji's connections only (Grace does not follow him).
    expect(await page.getByRole('article').count()).toBe(41);
    expect(await page.getByText('CSS container queries').isVisible()).toBe(true);
    expect(await page.getByText('Reading group this week').count()).toBe(0);
    // Connections-only posts of people she follows are there.
    expect(await page.getByText('Board update for friends of Tidewater').count()).toBe(1);
    // Loaded posts work like the first ones.
    const old = feedPost(page, 'CSS container queries');
    await old.getByRole('button', { name: 'Like', exact: true }).click();
    await old.getByText('207 likes').waitFor();
  });
});
