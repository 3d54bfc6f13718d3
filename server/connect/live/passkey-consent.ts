import { randomBytes } from 'node:crypto';

import type { BrowserContext, ConsoleMessage, JSHandle, Page } from 'playwright-core';

import { REALM_KEY } from '../../browser/realm-key';
import { openPasskeyWindow, type VirtualCredential } from '../../browser/webauthn-environment';

/** How long the page's create() may take once the person allowed it (the connection's device answers in ms). */
const CREATE_TIMEOUT_MS = 15_000;

/**
 * A site asks to create a passkey (navigator.credentials.create with publicKey) in a live sign-in whose organization
 * opted in (enrollPasskey): the call waits while the person decides, outside the page, whether AgentLink may keep a
 * passkey for the site.
 */
export interface PasskeyAsk {
  page: Page;
  /** The site's host, for the consent's wording. */
  host: string;
  /** The connection's device answers this create(); the credential it made, or null (the page gave up, or failed). */
  allow(): Promise<VirtualCredential | null>;
  /** create() goes on to the refusing environment and ends NotAllowedError at once. */
  decline(): Promise<void>;
}

/**
 * What holds the call: a page script (below) in front of CredentialsContainer.create, that tells us through a console
 * message carrying its resolver (a DevTools handle: no global, no binding) and waits for it. Only the hold is in the
 * page; what answers is not. The page is untrusted and may call the resolver itself, wrap console, or reach create()
 * another way: the call then meets the refusing environment (NotAllowedError), because only an Allow here opens a
 * passkey window (the connection's device) on that page, for that one call.
 */
export async function holdPasskeyCreation(context: BrowserContext, onAsk: (ask: PasskeyAsk) => void): Promise<void> {
  const token = randomBytes(12).toString('base64url');
  await context.addInitScript({ content: holdScript(token) });
  const watch = (page: Page) => page.on('console', (message) => void askFrom(page, message, token, onAsk));
  context.pages().forEach(watch);
  context.on('page', watch);
}

/** The last passkey window of each page, while it closes. */
const closings = new WeakMap<Page, Promise<void>>();

async function askFrom(page: Page, message: ConsoleMessage, token: string, onAsk: (ask: PasskeyAsk) => void): Promise<void> {
  if (message.type() !== 'debug') return;
  const [first, resolver] = message.args();
  if (!resolver || (await first.jsonValue().catch(() => null)) !== token) return;
  let decided = false;
  // Bounded, and never waiting on what the resolver returns: the page chose it, and a call that never settles must not
  // keep the passkey window open (security review).
  const go = (r: JSHandle) =>
    Promise.race([
      r
        .evaluate((resolve) => {
          (resolve as () => void)();
        })
        .catch(() => undefined),
      new Promise<void>((done) => setTimeout(done, CREATE_TIMEOUT_MS).unref()),
    ]);
  const host = hostOf(message.location().url || page.url());
  onAsk({
    page,
    host,
    allow: async () => {
      if (decided) return null;
      decided = true;
      const window = await openPasskeyWindow(page);
      let credential: VirtualCredential | null = null;
      try {
        await go(resolver);
        credential = await window.credentialAdded(CREATE_TIMEOUT_MS);
        // Kept only when made for the asking page's site: a frame of another site that raced it gets nothing kept.
        if (credential && !rpIdFits(credential.rpId, host)) credential = null;
      } finally {
        // Closed at once, for that one call only; the credential is handed on without waiting for the swap back (the
        // site moves on as soon as create() resolves, and its signed-in page must find the passkey kept).
        const closing = window.close();
        closings.set(page, closing);
        if (!credential) await closing;
      }
      return credential;
    },
    decline: async () => {
      if (decided) return;
      decided = true;
      // A window this page had is fully closed before its next call goes on: that call meets the refusing set.
      await closings.get(page);
      await go(resolver);
    },
  });
}

/** A relying party id the page at `host` may use: the host itself or a parent domain of it (WebAuthn's rule). */
function rpIdFits(rpId: string | undefined, host: string): boolean {
  if (!rpId || !host) return false;
  const id = rpId.toLowerCase();
  return host === id || host.endsWith(`.${id}`);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/**
 * The page half: create() with publicKey waits for our word, then calls the browser's own create(); everything else
 * (get(), other credential kinds) is left alone. console.debug is taken before the page's own code can replace it.
 */
function holdScript(token: string): string {
  // The token sits in the closure, not in the wrapped function's text (create.toString() would show it to the page).
  // A device's realm has its console quieted (browser/device-console.page.ts), its own console.debug kept where only
  // scripts of ours find it: the realm's toString masks, asked with the process's secret (page-code/native-masks.page.ts).
  return `(() => {
  const token = ${JSON.stringify(token)};
  const proto = CredentialsContainer.prototype;
  const own = Object.getOwnPropertyDescriptor(proto, 'create');
  const create = own.value;
  let kept = null;
  try { kept = Function.prototype.toString.call(Symbol.for(${JSON.stringify(REALM_KEY)})); } catch {}
  const debug = (kept && typeof kept === 'object' && typeof kept.consoleDebug === 'function' ? kept.consoleDebug : console.debug).bind(console);
  const wrapped = { create(...args) {
    const options = args[0];
    if (!options || !options.publicKey) return create.apply(this, args);
    const self = this;
    return new Promise((resolve) => debug(token, resolve)).then(() => create.apply(self, args));
  } }.create;
  // It reads as the built-in it wraps (its name, its length 0, its source text), as the WebAuthn gate's wrapper does.
  if (kept && typeof kept === 'object' && kept.masks) kept.masks.set(wrapped, 'function create() { [native code] }');
  Object.defineProperty(proto, 'create', { ...own, value: wrapped });
})();`;
}
