import type { Browser, CDPSession, Page } from 'playwright-core';

import { PAGE_ENTRIES } from '../page-code/entries';
import { callExpression } from '../page-code/page-function';
import { within } from './page-quiet';
import { REALM_KEY } from './realm-key';
import { BrowserClient, type PasskeyWindow, type VirtualCredential } from './webauthn-client';

export type { PasskeyWindow, VirtualCredential } from './webauthn-client';

/**
 * A WebAuthn environment on every page of a browser, so that navigator.credentials.create() and get() always settle.
 *
 * Why: this headless Chromium has no authenticator of its own, and a WebAuthn call on a page without a DevTools
 * WebAuthn environment crashes the whole browser (SIGSEGV within a second: every live sign-in, run and check of the
 * process with it). Chromium keeps that environment per frame tree (a frame looks it up through its parents, so
 * iframes of any origin are covered by their page's); a popup or a new tab is a tree of its own and gets its own here.
 */
const armedBrowsers = new WeakMap<Browser, Promise<BrowserClient>>();

/**
 * The most a document's first WebAuthn call waits for its environment (webauthn-gate.page.ts). It is there within
 * milliseconds; a busy machine can take longer; a page whose environment never came is refused, never crashed.
 */
const GATE_WAIT_MS = 10_000;

/** The init script every context gets before its first page: WebAuthn calls wait until the page's environment is in place. */
export function webAuthnGateScript(): string {
  return callExpression(PAGE_ENTRIES.webauthnGate, GATE_WAIT_MS, REALM_KEY);
}

/**
 * Gives every page `browser` has or will have, in every context, a WebAuthn environment before it runs anything.
 * Called once per browser where it starts (BrowserManager), before any context exists.
 *
 * How: a browser-level DevTools client auto-attaches to every page target and sends the environment the moment Chromium
 * reports it. Not a hold: Chromium lets a page run once ANY client releases it, and Playwright releases it in the batch
 * that sets the page up, so a popup whose own script calls WebAuthn as it loads could beat this; every context's init
 * script (webauthn-gate.page.ts, webAuthnGateScript) makes a document's first call wait until the environment is there.
 * One arming point per browser: no per-context route, so requests and the HTTP cache are left alone.
 */
export async function armWebAuthn(browser: Browser): Promise<void> {
  let armed = armedBrowsers.get(browser);
  if (!armed) {
    armed = BrowserClient.open(browser).then(async (client) => {
      await client.autoAttachPages();
      return client;
    });
    armedBrowsers.set(browser, armed);
  }
  await armed;
}

/** The armed client of a browser (null: a browser armWebAuthn never saw, e.g. a test's own). */
export function webAuthnClientOf(browser: Browser | null): Promise<BrowserClient> | null {
  return browser ? (armedBrowsers.get(browser) ?? null) : null;
}

/** The most releasePageSession waits for the page's answer. */
const RELEASE_WAIT_MS = 1_500;

/**
 * Ends our use of a DevTools session on a page without detaching it. Chromium drops a page's WebAuthn environment when
 * ANY session of the page detaches (one that never used WebAuthn too), and a navigator.credentials call on a page
 * without one kills the whole browser: so a session of a page that lives on ends with the page, never before. What it
 * was doing stops here (its screencast); its owner ignores its events from now on.
 */
export async function releasePageSession(session: CDPSession): Promise<void> {
  // Bounded: a page mid-navigation (a held write) answers no command until it settles; the stop reaches it then.
  await within(
    session.send('Page.stopScreencast').catch(() => undefined),
    RELEASE_WAIT_MS,
    undefined,
  );
}

/**
 * Opens a passkey window on `page` (webauthn-client.ts: the connection's device answers its WebAuthn calls, with
 * `credential` loaded for a sign-in) until the window is closed. Refused for a page of a browser we did not arm.
 */
export async function openPasskeyWindow(page: Page, credential?: VirtualCredential): Promise<PasskeyWindow> {
  const client = await webAuthnClientOf(page.context().browser());
  if (!client) throw new Error('the page’s browser has no WebAuthn environment of ours');
  const cdp = await page.context().newCDPSession(page);
  const { targetInfo } = await cdp.send('Target.getTargetInfo');
  await releasePageSession(cdp);
  return client.openWindow(targetInfo.targetId, credential);
}
