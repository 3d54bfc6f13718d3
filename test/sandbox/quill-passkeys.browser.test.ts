import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';

import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * Quill, the sandbox's passkey site, driven like a person with a device that has a platform authenticator: a plain
 * Chromium with a DevTools virtual authenticator (what a real laptop's would answer). The offer after the password
 * (Add a passkey / Not now), "Sign in with a passkey", the passwordless account, and removal at the site.
 */
jest.setTimeout(90_000);

let server: LiveServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startLiveServer(), startBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const quill = (path = '/') => server.siteUrl('quill', path);
const pathOf = (p: Page) => new URL(p.url()).pathname;

/** A person's browser: its own context and a platform authenticator that verifies its user. */
async function device(): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string }> {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      ctap2Version: 'ctap2_1',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page, cdp, authenticatorId };
}

async function submitPassword(p: Page, username: string) {
  await p.goto(quill('/login'));
  await p.getByLabel('Username or email').fill(username);
  await p.getByLabel('Password').fill('pass_good');
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.waitForLoadState();
}

async function signOut(p: Page) {
  await p.getByRole('button', { name: 'Sign out' }).click();
  await p.waitForURL(/\/login$/);
}

describe('Quill, the sandbox site with passkeys', () => {
  it('offers a passkey after the password, signs in with it, and stops taking it once removed at the site', async () => {
    const { context, page, cdp, authenticatorId } = await device();
    await submitPassword(page, 'user_passkey');
    await page.getByRole('heading', { name: 'Sign in faster with a passkey' }).waitFor();
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(/\/notes$/);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ rpId: 'quill.sandbox.localhost', isResidentCredential: true });

    // Signed out, the passkey alone signs in: no username, no password.
    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(/\/notes$/);
    expect(await page.getByText('Pia Keyes').isVisible()).toBe(true);

    // A device without that passkey gets nowhere with the button.
    const other = await device();
    await other.page.goto(quill('/login'));
    await other.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await other.page.getByRole('alert').filter({ hasText: 'No passkey signed you in (NotAllowedError)' }).waitFor();
    await other.context.close();

    // Removed in Settings › Passkeys, the site no longer takes it.
    await page.goto(quill('/settings/passkeys'));
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('alert').filter({ hasText: 'This passkey is not registered with Quill.' }).waitFor();
    expect(pathOf(page)).toBe('/login');
    await context.close();
  });

  it('lets the person say Not now; a passkey-first account then goes passwordless: only its passkey signs in', async () => {
    const { context, page } = await device();
    await submitPassword(page, 'user_passkey_first');
    await page.getByRole('button', { name: 'Not now' }).click();
    await page.waitForURL(/\/notes$/);
    await signOut(page);

    await submitPassword(page, 'user_passkey_first');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(/\/notes$/);
    await signOut(page);

    await submitPassword(page, 'user_passkey_first');
    await page.getByRole('alert').filter({ hasText: 'This account signs in with a passkey' }).waitFor();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(/\/notes$/);
    expect(await page.getByText('Percy Keyfirst').isVisible()).toBe(true);
    await context.close();
  });

  it('refuses a wrong password and a registration without the password step', async () => {
    const { context, page } = await device();
    await submitPassword(page, 'user_nobody');
    await page.getByRole('alert').filter({ hasText: 'Incorrect username or password.' }).waitFor();
    const answer = await page.evaluate(async () => {
      const r = await fetch('/passkeys/register/options', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return { status: r.status, body: await r.json() };
    });
    expect(answer).toEqual({ status: 400, body: { error: 'Sign in with your password first.' } });
    await context.close();
  });
});
