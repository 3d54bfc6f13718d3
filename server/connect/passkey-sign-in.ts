import type { BrowserContext, Locator, Page } from 'playwright-core';

import { deviceIdentity } from '../browser/device-identity';
import type { DeviceProfile } from '../browser/device-profile';
import { captureSession } from '../browser/session-capture';
import { boundSession } from '../browser/session-format';
import { openPasskeyWindow, type PasskeyWindow, type VirtualCredential } from '../browser/webauthn-environment';
import type { Environment } from '../config';
import { EgressPolicy } from '../egress/egress-policy';
import { type ContextSource, openFencedContext, openPage } from '../egress/fenced-context';
import type { RequestSigner } from '../egress/request-signing';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import type { ProviderDefinition } from '../providers/catalogue';
import { isProviderLoginPage } from '../providers/provider';
import { isSignedIn } from './live/signed-in';
import { anyMatch, locate, type StorageState } from './login-engine';

/**
 * Signing in with a connection's own passkey, unattended (issue 37: silent renewal). The provider's login page opens
 * as a password sign-in's does (the connection's device and exit, fenced to the provider); a passkey window loads the
 * connection's credential into that one page only (webauthn-client.ts), the site's passkey control is pressed, and the
 * page is watched until it shows the signed-in state the password sign-in waits for. The window closes on every path,
 * so the credential leaves the browser with it; the credential after the sign-in (its sign count moved on) goes back to
 * the caller to be sealed again.
 *
 * Bound to its origin: the credential is loaded only on a page of the provider's sign-in domains whose host is the
 * credential's RP ID or under it; a credential for another site is refused before any page opens. The browser's own
 * RP ID check stays on top of that (a frame of another origin gets no assertion).
 */
export interface PasskeySignInInput {
  provider: ProviderDefinition;
  organizationId: string;
  environment: Environment;
  /** The connection's credential, opened from the vault for this sign-in only. */
  credential: VirtualCredential;
  device: DeviceProfile | null;
  exitProxy?: UpstreamProxy | null;
  /** Web Bot Auth, as the connection's other visits are signed (null: the organization or the provider did not opt in). */
  signer?: RequestSigner | null;
}

export type PasskeySignInOutcome =
  /** `credential`: as the device holds it after signing in (the sign count the site saw last). */
  | { kind: 'success'; storageState: StorageState; credential: VirtualCredential }
  /** Not tried, or the site did not sign in with it: another way (the stored password) may still work. */
  | { kind: 'refused'; reason: string }
  /** The page or the browser could not be reached. `reason` is ours, never page content. */
  | { kind: 'unavailable'; reason: string };

/**
 * Without a declared control: a button or link named like the usual ones ("Sign in with a passkey", "Use a passkey",
 * "Log in with passkey", "Passkey"), the words sites use today (Google, GitHub, Amazon, PayPal).
 */
const PASSKEY_CONTROL_NAME = /^\s*(?:(?:sign|log) ?in with|continue with|use)?\s*(?:a |your )?passkeys?\s*$/i;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const refused = (reason: string): PasskeySignInOutcome => ({ kind: 'refused', reason });
const unavailable = (reason: string): PasskeySignInOutcome => ({ kind: 'unavailable', reason });

/** Whether a page of `host` may use a credential of `rpId`: the host itself, or a domain it is under (WebAuthn's rule). */
export function rpIdFits(rpId: string | undefined, host: string): boolean {
  if (!rpId) return false;
  const r = rpId.toLowerCase();
  const h = host.toLowerCase();
  // A suffix must be a domain, not a bare label ("com"): the browser refuses a public suffix, and so do we.
  return h === r || (r.includes('.') && h.endsWith(`.${r}`));
}

export async function signInWithPasskey(
  browsers: ContextSource,
  input: PasskeySignInInput,
  stepTimeoutMs: number,
): Promise<PasskeySignInOutcome> {
  const { provider, credential } = input;
  const signInPolicy = EgressPolicy.forSignIn(provider, provider.environment);
  const startUrl = provider.loginStartUrl?.(provider.loginUrl, input) ?? provider.loginUrl;
  if (!rpIdFits(credential.rpId, new URL(provider.loginUrl).hostname)) {
    return refused(`the passkey is for ${credential.rpId ?? 'no site'}, not for ${provider.name}'s sign-in page`);
  }
  if (!signInPolicy.checkUrl(startUrl).ok) return unavailable('the sign-in page is outside the provider’s domains');
  let context: BrowserContext;
  try {
    context = await openFencedContext(browsers, {
      policy: signInPolicy,
      onBlocked: () => undefined,
      ...(input.device
        ? { identity: deviceIdentity(input.device) }
        : { options: { viewport: { width: 1280, height: 900 }, locale: 'en-US' } }),
      ...(input.exitProxy ? { upstreamProxy: input.exitProxy } : {}),
      ...(input.signer ? { signer: input.signer } : {}),
    });
  } catch {
    return unavailable('the browser could not start');
  }
  let window = null as PasskeyWindow | null; // (set in a callback: no narrowing to null)
  try {
    const page = await openPage(context);
    page.setDefaultTimeout(stepTimeoutMs);
    page.setDefaultNavigationTimeout(stepTimeoutMs);
    let status: number | undefined;
    try {
      status = (await page.goto(startUrl, { waitUntil: 'domcontentloaded' }))?.status();
    } catch {
      return unavailable('the sign-in page could not be reached');
    }
    if (status !== undefined && status >= 500) return unavailable(`the sign-in page answered HTTP ${status}`);
    // Checked where the credential goes in, after every redirect: the page the window opens on must be the RP's.
    const onItsSite = () => {
      const here = safeUrl(page.url());
      return !!here && signInPolicy.checkUrl(here.href).ok && rpIdFits(credential.rpId, here.hostname);
    };
    if (!onItsSite()) return refused('the sign-in page is not on the passkey’s site');
    const control = passkeyControl(page, provider);
    // The window opens while the page draws its control (measured: a few hundred ms saved); it is closed on every path.
    const [shown] = await Promise.all([
      control.waitFor({ state: 'visible' }).then(
        () => true,
        () => false,
      ),
      openPasskeyWindow(page, credential).then((w) => (window = w)),
    ]);
    if (!shown) return refused('the sign-in page shows no passkey control');
    if (!onItsSite()) return refused('the sign-in page is not on the passkey’s site');
    const alertsBefore = await visibleAlerts(page);
    await control.click();
    const outcome = await signedInOrNot(page, provider, signInPolicy, alertsBefore, stepTimeoutMs);
    if (outcome) return outcome;
    // What the connection's device holds now: the credential with the sign count the site just saw.
    const held = (await window!.credentials()).find((c) => c.credentialId === credential.credentialId);
    const after: VirtualCredential = held ? { ...credential, signCount: held.signCount } : credential;
    await window!.close();
    window = null;
    const { session } = boundSession(await captureSession(context, (origin) => signInPolicy.checkUrl(origin).ok));
    if (!session) return unavailable('the provider keeps more in the browser than a connection can store');
    return { kind: 'success', storageState: session, credential: after };
  } catch (err) {
    return unavailable(
      `the sign-in page did not behave as expected (${err instanceof Error && err.name !== 'Error' ? err.name : 'error'})`,
    );
  } finally {
    await window?.close().catch(() => undefined);
    await context.close().catch(() => undefined);
  }
}

/** The declared control, or one named like a passkey sign-in (a button first, then a link). */
function passkeyControl(page: Page, provider: ProviderDefinition): Locator {
  if (provider.passkeySignIn) return locate(page, provider.passkeySignIn);
  return page
    .getByRole('button', { name: PASSKEY_CONTROL_NAME })
    .or(page.getByRole('link', { name: PASSKEY_CONTROL_NAME }))
    .first();
}

/**
 * Watches the page until it shows the signed-in state (the recipe's success signals, as the password sign-in waits
 * for; without a recipe, the provider's signedIn declaration): null then. A new alert on the sign-in page (the site
 * refused the passkey), a page outside the provider, or the step's time ends it sooner, as a refusal.
 */
async function signedInOrNot(
  page: Page,
  provider: ProviderDefinition,
  policy: EgressPolicy,
  alertsBefore: number,
  stepTimeoutMs: number,
): Promise<PasskeySignInOutcome | null> {
  const deadline = Date.now() + stepTimeoutMs;
  for (;;) {
    const url = safeUrl(page.url());
    if (!url || !policy.checkUrl(url.href).ok) return refused('the provider sent the browser outside its domains');
    const done = provider.login ? await anyMatch(page, provider.login.success) : await isSignedIn(page, provider);
    if (done) return null;
    if (isProviderLoginPage(provider, url) && (await visibleAlerts(page)) > alertsBefore) {
      return refused('the provider did not accept the passkey');
    }
    if (Date.now() > deadline) return refused('the provider did not sign in with the passkey in time');
    await sleep(50);
  }
}

/** How many alerts with text the page shows (a site says "not accepted" in one). */
async function visibleAlerts(page: Page): Promise<number> {
  try {
    // A role locator leaves out hidden elements: a site's empty, hidden status line is not counted.
    return await page.getByRole('alert').filter({ hasText: /\S/ }).count();
  } catch {
    return 0; // the document changed while we looked
  }
}

function safeUrl(href: string): URL | null {
  try {
    return new URL(href);
  } catch {
    return null;
  }
}
