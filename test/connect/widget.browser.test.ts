import fs from 'node:fs';
import path from 'node:path';

import type { Page } from 'playwright-core';

import type { AgentLinkMetadata } from '../../contract/link-messages';
import { FORGEHUB_PROVIDER_ID } from '../../server/integrations/forgehub/forgehub.provider';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { watchScreens } from '../support/screen-watch';
import { closeWidgetPopup } from '../support/widget-popup';
import {
  api,
  clock,
  createLinkToken,
  elsewhereOrigin,
  expect_,
  expectNoHorizontalScroll,
  freshTotp,
  heading,
  openerOrigin,
  org,
  page,
  SCREENSHOTS,
  server,
  sessionsOf,
  signIn,
  throughConsentAndPicker,
  tokenRecord,
  useWidgetBrowser,
} from './widget-support';

/**
 * The hosted connect widget, driven in Chromium like a person would: consent → provider picker → the
 * provider's login (through AgentLink's login engine) → code step → success, opened directly at
 * /link?token=… and as a popup of an app on another origin (the SDK protocol of contract/link-messages.ts),
 * plus its error screens, a keyboard-only pass and a phone-width layout. The server, the app's pages on other
 * origins and the steps through the widget: widget-support.ts.
 */
jest.setTimeout(60_000);

useWidgetBrowser();

describe('connect widget opened at /link?token=…', () => {
  let usedToken: string;

  it('user_good: consent names the organization, the picker searches, the login connects; everything is recorded', async () => {
    usedToken = await createLinkToken();
    await page.goto(api(`/link?token=${usedToken}`));
    await heading(page, `${org.name} uses AgentLink to connect your account`).waitFor();
    // The token leaves the address bar at once; the page has the product's look (logos), not raw JSON.
    expect(page.url()).toBe(api('/link'));
    expect(await page.getByText('When you connect, Acme Assistant will be able to:').isVisible()).toBe(true);
    expect(await page.getByRole('progressbar', { name: 'Connection progress' }).getAttribute('aria-valuetext')).toBe('Review access');
    await page.getByRole('button', { name: 'Continue' }).click();

    await heading(page, 'Select your account provider').waitFor();
    const providers = page.getByRole('list', { name: 'Providers' }).getByRole('button');
    // Orbit, ForgeHub, Lumen (the sandbox provider without a recipe, signed in through the live view) and Quill (passkeys).
    expect(await providers.count()).toBe(4);
    expect(await page.locator('.al-provider img[src^="data:image/svg+xml"]').count()).toBe(4);
    await page.getByLabel('Search providers').fill('forge');
    await expect_(async () => (await providers.count()) === 1);
    expect(await providers.first().textContent()).toContain('ForgeHub');
    await page.getByLabel('Search providers').fill('nothing like this');
    await page.getByText('No providers match “nothing like this”.').waitFor();
    await page.getByLabel('Search providers').fill('');
    await providers.filter({ hasText: 'Orbit' }).click();

    await heading(page, 'Sign in to Orbit').waitFor();
    await signIn(page, 'user_good');
    await heading(page, 'Connected!').waitFor();
    await page.getByText('Your Orbit account is now connected to Acme Assistant.').waitFor();
    await page.getByText('You can close this window.').waitFor();

    const token = await tokenRecord(usedToken);
    expect(token.usedAt).not.toBeNull();
    const [session] = await sessionsOf(usedToken);
    expect(session).toMatchObject({
      status: 'SUCCEEDED',
      providerId: ORBIT_PROVIDER_ID,
      connectionId: token.connectionId,
      errorCode: null,
      attempts: 1,
    });
    const connection = await server.services.store.repos.connections.findById(token.connectionId!);
    expect(connection).toMatchObject({
      status: 'ACTIVE',
      providerId: ORBIT_PROVIDER_ID,
      clientUserId: 'end-user-1',
      sealedCredentials: null,
    });
    expect(connection!.sealedSession).toMatch(/^v1\./);
  });

  it('an already used link token gets its own error screen, with no retry', async () => {
    await page.goto(api(`/link?token=${usedToken}`));
    await heading(page, 'This link was already used').waitFor();
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Close window' }).waitFor();
    const sessions = await sessionsOf(usedToken);
    expect(sessions.map((s) => `${s.status} ${s.errorCode}`).sort()).toEqual(['FAILED LINK_TOKEN_ALREADY_USED', 'SUCCEEDED null']);
  });

  it('user_mfa with a provider fixed by the link token: no picker, a code step that shows a wrong code and takes the right one', async () => {
    const linkToken = await createLinkToken({ providerId: FORGEHUB_PROVIDER_ID });
    await page.goto(api(`/link?token=${linkToken}`));
    await heading(page, `${org.name} uses AgentLink to connect your ForgeHub account`).waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    await heading(page, 'Sign in to ForgeHub').waitFor();
    expect(await page.getByRole('button', { name: 'Choose a different provider' }).count()).toBe(0);
    // The sandbox says which test users exist, under the form and under the code step.
    expect(await page.locator('.al-sandbox').innerText()).toBe(
      'Sandbox: sign in as user_good / pass_good (or user_mfa, user_sms, user_locked, user_captcha).',
    );
    await signIn(page, 'user_mfa');

    await heading(page, 'Enter your authenticator code').waitFor();
    expect(await page.locator('.al-sandbox').innerText()).toContain('published TOTP secret');
    const good = await freshTotp();
    await page.getByLabel('Verification code').fill(good === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').filter({ hasText: 'ForgeHub did not accept that code' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('al-code');
    await page.getByLabel('Verification code').fill(await freshTotp());
    await page.getByRole('button', { name: 'Verify' }).click();
    await heading(page, 'Connected!').waitFor();
    const [session] = await sessionsOf(linkToken);
    expect(session).toMatchObject({ status: 'SUCCEEDED', providerId: FORGEHUB_PROVIDER_ID });
  });

  it('wrong password: an error screen whose retry keeps the username, then the right password connects', async () => {
    const linkToken = await createLinkToken();
    await page.goto(api(`/link?token=${linkToken}`));
    await throughConsentAndPicker(page);
    await signIn(page, 'user_good', 'not-the-password');
    await heading(page, 'Incorrect username or password').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('didn’t accept those details');
    await page.getByRole('button', { name: 'Try again' }).click();
    await heading(page, 'Sign in to Orbit').waitFor();
    expect(await page.getByLabel('Username or email').inputValue()).toBe('user_good');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('al-password');
    await page.getByLabel('Password').fill('pass_good');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading(page, 'Connected!').waitFor();
    const [session] = await sessionsOf(linkToken);
    expect(session).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
  });

  it('a locked account: its own error screen, with a different account as the way on; leaving is recorded', async () => {
    const linkToken = await createLinkToken();
    await page.goto(api(`/link?token=${linkToken}`));
    await throughConsentAndPicker(page);
    await signIn(page, 'user_locked', 'whatever');
    await heading(page, 'Your Orbit account is locked').waitFor();
    await page.getByRole('button', { name: 'Use a different account' }).waitFor();
    await page.getByRole('button', { name: 'Return to Acme Assistant' }).click();
    await heading(page, 'You can close this window').waitFor();
    await expect_(async () => (await sessionsOf(linkToken))[0].status === 'EXITED');
    expect((await sessionsOf(linkToken))[0]).toMatchObject({ status: 'EXITED', errorCode: 'ACCOUNT_LOCKED' });
  });

  it('an expired link token (30 minutes later) shows the expired screen', async () => {
    const linkToken = await createLinkToken();
    clock.advance(31 * 60_000);
    await page.goto(api(`/link?token=${linkToken}`));
    await heading(page, 'This link has expired').waitFor();
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    expect((await sessionsOf(linkToken))[0]).toMatchObject({ status: 'FAILED', errorCode: 'LINK_TOKEN_EXPIRED' });
  });

  it('a token that is not a link token shows the invalid-link screen', async () => {
    await page.goto(api('/link?token=public-sandbox-not-a-link-token'));
    await heading(page, 'This link isn’t valid').waitFor();
  });

  it('keyboard only: consent and picker by Tab and Enter, focus always on the new screen’s heading', async () => {
    const linkToken = await createLinkToken();
    await page.goto(api(`/link?token=${linkToken}`));
    await heading(page, /uses AgentLink/).waitFor();
    const focused = () =>
      page.evaluate(() => ({
        tag: document.activeElement?.tagName,
        text: document.activeElement?.textContent?.trim(),
        id: document.activeElement?.id,
      }));
    expect(await focused()).toMatchObject({ tag: 'H1' });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'BUTTON', text: 'Continue' });
    await page.keyboard.press('Enter');
    await heading(page, 'Select your account provider').waitFor();
    expect(await focused()).toMatchObject({ tag: 'H1', text: 'Select your account provider' });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'INPUT', id: 'al-search' });
    await page.keyboard.type('forge');
    await page.keyboard.press('Tab');
    expect((await focused()).text).toContain('ForgeHub');
    await page.keyboard.press('Enter');
    await heading(page, 'Sign in to ForgeHub').waitFor();
    expect(await focused()).toMatchObject({ tag: 'H1', text: 'Sign in to ForgeHub' });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ id: 'al-username' });
    await page.keyboard.type('user_good');
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ id: 'al-password' });
    await page.keyboard.type('pass_good');
    await page.keyboard.press('Enter');
    await heading(page, 'Connected!').waitFor();
  });

  it('at phone width (390×844) every screen fits without horizontal scrolling', async () => {
    const phone = await server.services.browsers.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    try {
      const p = await phone.newPage();
      const linkToken = await createLinkToken();
      await p.goto(api(`/link?token=${linkToken}`));
      const shot = async (name: string) => {
        await expectNoHorizontalScroll(p);
        const file = path.join(SCREENSHOTS, `phone-${name}.png`);
        await p.screenshot({ path: file, fullPage: true });
        expect(fs.statSync(file).size).toBeGreaterThan(5_000);
      };
      await heading(p, /uses AgentLink/).waitFor();
      await shot('1-consent');
      await p.getByRole('button', { name: 'Continue' }).click();
      await heading(p, 'Select your account provider').waitFor();
      await shot('2-picker');
      await p
        .getByRole('list', { name: 'Providers' })
        .getByRole('button', { name: /^Orbit/ })
        .click();
      await heading(p, 'Sign in to Orbit').waitFor();
      await shot('3-credentials');
      await signIn(p, 'user_sms');
      await heading(p, 'Enter the code we texted you').waitFor();
      await shot('4-code');
      await p.getByLabel('Verification code').fill('123456');
      await p.getByRole('button', { name: 'Verify' }).click();
      await heading(p, 'Connected!').waitFor();
      await shot('5-connected');
    } finally {
      await phone.close();
    }
  });
});

describe('connect widget as a popup of an app on another origin (SDK protocol)', () => {
  type Received = { origin: string; data: { type: string; eventName?: string; publicToken?: string; metadata?: AgentLinkMetadata } };
  const messages = (p: Page) => p.evaluate(() => (window as unknown as { __messages: unknown[] }).__messages) as Promise<Received[]>;

  async function openPopup(linkToken: string) {
    await page.goto(`${openerOrigin}/opener.html?backend=${encodeURIComponent(server.baseUrl)}&token=${encodeURIComponent(linkToken)}`);
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Connect an account' }).click()]);
    await heading(popup, `${org.name} uses AgentLink to connect your account`).waitFor();
    return popup;
  }

  it('ready → init → the flow → success with the public token, posted only to the app’s origin; the popup closes', async () => {
    const linkToken = await createLinkToken({ clientUserId: 'popup-user' });
    const popup = await openPopup(linkToken);
    expect(popup.url()).toBe(api('/link'));
    await throughConsentAndPicker(popup);
    const closed = popup.waitForEvent('close', { timeout: 20_000 });
    await signIn(popup, 'user_good');
    await closed;

    const received = await messages(page);
    expect(received.length).toBeGreaterThan(0);
    for (const m of received) expect(m.origin).toBe(server.baseUrl);
    expect(received[0].data).toEqual({ type: 'agentlink:ready' });
    const events = received.filter((m) => m.data.type === 'agentlink:event').map((m) => m.data.eventName);
    expect(events).toEqual(['OPEN', 'CONSENT_GIVEN', 'SELECT_PROVIDER', 'SUBMIT_CREDENTIALS', 'HANDOFF']);
    const success = received.filter((m) => m.data.type === 'agentlink:success');
    expect(success).toHaveLength(1);
    const [session] = await sessionsOf(linkToken);
    expect(success[0].data.metadata).toEqual({
      providerId: ORBIT_PROVIDER_ID,
      providerName: 'Orbit (sandbox social network)',
      clientUserId: 'popup-user',
      linkSessionId: session.id,
      connectionStatus: 'ACTIVE',
    });
    // The public token is real: the app's backend exchanges it.
    const exchanged = await fetch(api('/api/connections/public_token/exchange'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret },
      body: JSON.stringify({ publicToken: success[0].data.publicToken }),
    });
    expect(exchanged.status).toBe(200);
    expect(((await exchanged.json()) as { connectionId: string }).connectionId).toBe(session.connectionId);
  });

  it('the success goes to the origin that sent init and nowhere else: after the opener navigates away, nothing reaches the new page', async () => {
    const linkToken = await createLinkToken({ clientUserId: 'popup-user-2' });
    const popup = await openPopup(linkToken);
    await page.goto(`${elsewhereOrigin}/elsewhere.html`);
    await throughConsentAndPicker(popup);
    // The popup closes 900 ms after "Connected!": the popup's page reports that screen itself (a poll can miss it).
    const seen = await watchScreens(popup, { heading: 'Connected!' });
    const closed = popup.waitForEvent('close', { timeout: 20_000 });
    await signIn(popup, 'user_good');
    await closed;
    expect(seen.heading).toBe(true);
    expect(await messages(page)).toEqual([]);
    expect((await sessionsOf(linkToken))[0].status).toBe('SUCCEEDED');
  });

  it('closing the widget sends agentlink:exit with USER_CLOSED and records the exit', async () => {
    const linkToken = await createLinkToken();
    const popup = await openPopup(linkToken);
    await closeWidgetPopup(popup);
    const exit = (await messages(page)).filter((m) => m.data.type === 'agentlink:exit');
    expect(exit).toHaveLength(1);
    expect(exit[0]).toMatchObject({ origin: server.baseUrl, data: { error: { code: 'USER_CLOSED' } } });
    await expect_(async () => (await sessionsOf(linkToken))[0].status === 'EXITED');
    expect((await sessionsOf(linkToken))[0]).toMatchObject({ status: 'EXITED', errorCode: 'USER_CLOSED' });
  });
});
