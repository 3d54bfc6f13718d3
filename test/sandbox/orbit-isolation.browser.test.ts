import { feedPost, newContext, newOrg, orbit, pathOf, server, signedIn, text, toast, useOrbitBrowser } from './orbit-support';

/**
 * Orbit through Chromium (see orbit.browser.test.ts), this file: what keeps a sandbox's data its own: state-changing
 * requests need the CSRF token, one organization (tenant) never sees another's posts, and the sandbox reset puts an
 * organization's Orbit back to its seed content.
 */
jest.setTimeout(60_000);

useOrbitBrowser();

describe('Orbit social network', () => {
  it('refuses state-changing requests without the CSRF token', async () => {
    const org = await newOrg();
    const page = await signedIn(org.organization.id);
    await page.getByRole('article').first().waitFor();

    // Requests from the page carry the session cookie, but not the token.
    const statuses = await page.evaluate(async () => {
      const like = document.querySelector('form[action$="/like"]')!.getAttribute('action')!;
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const noToken = await fetch('/posts', { method: 'POST', headers: form, body: 'text=Forged+post+without+a+token&visibility=public' });
      const noHeader = await fetch(like, { method: 'POST', headers: { accept: 'application/json' } });
      const wrong = await fetch('/posts', {
        method: 'POST',
        headers: { ...form, 'x-csrf-token': 'not-the-token' },
        body: 'text=Forged+with+a+wrong+token',
      });
      return [noToken.status, noHeader.status, wrong.status];
    });
    expect(statuses).toEqual([403, 403, 403]);

    // A plain HTML form without the _csrf field (what a cross-site page would submit) is refused too.
    await page.evaluate(() => {
      const f = document.createElement('form');
      f.method = 'post';
      f.action = '/posts';
      f.innerHTML = '<input name="text" value="Forged form post"><input name="visibility" value="public">';
      document.body.appendChild(f);
      f.submit();
    });
    await page.getByRole('heading', { name: 'Your session has expired' }).waitFor();
    await page.goto(orbit('/'));
    await page.getByRole('article').first().waitFor();

    await page.reload();
    expect(await page.getByText(/Forged/).count()).toBe(0);
    expect(await page.getByRole('article').first().getByRole('button', { name: 'Like', exact: true }).getAttribute('aria-pressed')).toBe(
      'false',
    );

    // With the page's token the same fetch is accepted (the client's own requests do exactly this).
    const ok = await page.evaluate(async () => {
      const token = document.querySelector('meta[name="csrf-token"]')!.getAttribute('content')!;
      const key = document.querySelector('form[action$="/like"]')!.getAttribute('action')!;
      return (await fetch(key, { method: 'POST', headers: { accept: 'application/json', 'x-csrf-token': token } })).status;
    });
    expect(ok).toBe(200);
  });

  it('keeps organizations apart: one tenant never sees another’s posts', async () => {
    const [a, b] = await Promise.all([newOrg('Org A'), newOrg('Org B')]);
    // Org A signs in through the login form with its signed tenant ticket (as the AgentLink widget does).
    const context = await newContext();
    const pageA = await context.newPage();
    await pageA.goto(orbit(`/login?tenant_token=${server.services.tenantTokens.issue(a.organization.id, 'orbit')}`));
    await pageA.getByLabel('Username or email').fill('user_good');
    await pageA.getByLabel('Password').fill('pass_good');
    await pageA.getByRole('button', { name: 'Sign in' }).click();
    await pageA.getByRole('button', { name: 'Start a post' }).click();
    const dialog = pageA.getByRole('dialog', { name: 'Create a post' });
    await dialog.getByRole('textbox', { name: 'Text editor for creating content' }).fill('Org A quarterly numbers are in');
    // Keyboard use of the dropdown: open, move, close with Escape (keeps Public).
    await dialog.getByRole('button', { name: /Who can see your post\?/ }).press('ArrowDown');
    await dialog.getByRole('listbox').waitFor();
    await pageA.keyboard.press('ArrowDown');
    await pageA.keyboard.press('Escape');
    await dialog.getByRole('listbox').waitFor({ state: 'hidden' });
    expect(await dialog.isVisible()).toBe(true);
    expect(await text(dialog.getByRole('button', { name: /Who can see your post\?/ }))).toContain('Public');
    await dialog.getByRole('button', { name: 'Post', exact: true }).click();
    await toast(pageA, 'Post successful.').waitFor();
    await feedPost(pageA, 'Org A quarterly numbers are in').waitFor();

    // Another member of org A sees it; org B and the public copy do not.
    const otherA = await signedIn(a.organization.id, 'user_sms');
    await feedPost(otherA, 'Org A quarterly numbers are in').waitFor();
    const pageB = await signedIn(b.organization.id);
    await pageB.getByRole('article').first().waitFor();
    expect(await feedPost(pageB, 'Org A quarterly numbers').count()).toBe(0);
    await pageB.goto(orbit('/search?q=quarterly'));
    await pageB.getByText('No posts found.').waitFor();
    await pageB.goto(orbit('/in/user_good'));
    expect(await feedPost(pageB, 'Org A quarterly numbers').count()).toBe(0);
    const publicCtx = await newContext();
    const pub = await publicCtx.newPage();
    await pub.goto(orbit('/login'));
    await pub.getByLabel('Username or email').fill('user_good');
    await pub.getByLabel('Password').fill('pass_good');
    await pub.getByRole('button', { name: 'Sign in' }).click();
    await pub.getByRole('article').first().waitFor();
    expect(await feedPost(pub, 'Org A quarterly numbers').count()).toBe(0);
  });

  it('the sandbox reset puts an organization’s Orbit back to its seed content', async () => {
    const org = await newOrg();
    const page = await signedIn(org.organization.id);
    await page.getByRole('button', { name: 'Start a post' }).click();
    await page.getByRole('textbox', { name: 'Text editor for creating content' }).fill('This post will be reset');
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await feedPost(page, 'This post will be reset').waitFor();
    const priya = feedPost(page, 'We moved our nightly batch').first();
    await priya.getByRole('button', { name: 'Like', exact: true }).click();
    await priya.getByText('213 likes').waitFor();

    const res = await fetch(`${server.baseUrl}/api/sandbox/reset`, {
      method: 'POST',
      headers: { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret },
    });
    expect(res.status).toBe(200);

    // Same session, fresh content.
    await page.reload();
    await page.getByRole('article').first().waitFor();
    expect(await feedPost(page, 'This post will be reset').count()).toBe(0);
    expect(await text(feedPost(page, 'We moved our nightly batch').first())).toContain('212 likes');
    expect(pathOf(page)).toBe('/');
  });
});
