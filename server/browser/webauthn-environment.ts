import type { Browser, BrowserContext, CDPSession, Page, Request } from 'playwright-core';

/**
 * A WebAuthn environment on every page of a context, so that navigator.credentials.create() and get() always settle.
 *
 * Why: this headless Chromium has no authenticator of its own, and a WebAuthn call on a page without a DevTools
 * WebAuthn environment crashes the whole browser (SIGSEGV within a second: every live sign-in, run and check of the
 * process with it). Chromium keeps that environment per frame tree (a frame looks it up through its parents, so
 * iframes of any origin are covered by their page's); a popup or a new tab is a tree of its own and gets its own here.
 *
 * Why these authenticators: with the domain enabled and no authenticator, a call waits out the page's own timeout (up
 * to minutes). An authenticator on each transport the request may name, each able to verify its user but failing
 * to (isUserVerified: false), ends create() and get() with NotAllowedError at once (measured: 1–3 ms), whatever the
 * page asks (platform or cross-platform, resident key or not, any user-verification level, any transports hint).
 */
const REFUSING_TRANSPORTS = ['internal', 'usb', 'hybrid', 'nfc', 'ble'] as const;

const REFUSING_AUTHENTICATOR = {
  protocol: 'ctap2',
  ctap2Version: 'ctap2_1',
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: false,
  automaticPresenceSimulation: true,
} as const;

/** How long a page target may take to answer one DevTools command of the environment. */
const REPLY_TIMEOUT_MS = 5_000;

const ENVIRONMENT_COMMANDS: readonly { method: string; params: object }[] = [
  { method: 'WebAuthn.enable', params: { enableUI: false } },
  ...REFUSING_TRANSPORTS.map((transport) => ({
    method: 'WebAuthn.addVirtualAuthenticator',
    params: { options: { ...REFUSING_AUTHENTICATOR, transport } },
  })),
];

/** Each page's environment being set up; a page is used only once it is there (see openPage). */
const pagesReady = new WeakMap<Page, Promise<void>>();
/** The DevTools session of each page: it must stay attached, Chromium removes the environment when it detaches. */
const sessions = new WeakMap<Page, CDPSession>();
/** The targets (pages) of each browser that have their environment, by DevTools target id. */
const preparedTargets = new WeakMap<Browser, Set<string>>();
const browserSessions = new WeakMap<Browser, Promise<TargetPreparer>>();
const armed = new WeakSet<BrowserContext>();

/**
 * Gives every page `context` has or will have a WebAuthn environment. Called once per context where it is made
 * (BrowserManager.newContext), before any page exists, so no page of ours is ever without it.
 */
export async function armWebAuthn(context: BrowserContext): Promise<void> {
  if (armed.has(context)) return;
  armed.add(context);
  context.on('page', (page) => void webAuthnReady(page));
  for (const page of context.pages()) void webAuthnReady(page);
  // The 'page' event comes too late for a popup: Playwright reports it after its first navigation, and its document may
  // run before (measured: a popup calling create() on load crashed the browser). So every navigation waits here until
  // its page has the environment; a popup's, which Playwright cannot name yet, through the browser's own DevTools
  // session. Registered first, so it runs last (Playwright runs the newest route first): the egress guards decide
  // before it, and all it ever does is let a request go on.
  await context.route('**/*', async (route) => {
    const request = route.request();
    if (request.isNavigationRequest()) {
      const page = pageOf(request);
      const browser = context.browser();
      if (page) await webAuthnReady(page);
      else if (browser) await prepareNewTargets(browser).catch(() => undefined);
    }
    await route.fallback().catch(() => undefined);
  });
}

/** Resolves once `page` has its WebAuthn environment (or has closed: a closed page is not used anyway). */
export function webAuthnReady(page: Page): Promise<void> {
  let ready = pagesReady.get(page);
  if (!ready) {
    ready = installEnvironment(page).catch(() => undefined);
    pagesReady.set(page, ready);
  }
  return ready;
}

async function installEnvironment(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  sessions.set(page, cdp);
  // In parallel where order does not matter (measured by bench:webauthn): enabling twice is harmless.
  const [{ targetInfo }] = await Promise.all([cdp.send('Target.getTargetInfo'), cdp.send('WebAuthn.enable', { enableUI: false })]);
  const browser = page.context().browser();
  const prepared = browser ? preparedSet(browser) : new Set<string>();
  // A popup prepared while Playwright could not name it keeps that environment (its session stays attached).
  if (prepared.has(targetInfo.targetId)) return;
  prepared.add(targetInfo.targetId);
  await Promise.all(
    REFUSING_TRANSPORTS.map((transport) =>
      cdp.send('WebAuthn.addVirtualAuthenticator', { options: { ...REFUSING_AUTHENTICATOR, transport } }),
    ),
  );
}

function pageOf(request: Request): Page | null {
  try {
    return request.frame().page();
  } catch {
    // "Frame for this navigation request is not available": a popup's first navigation.
    return null;
  }
}

function preparedSet(browser: Browser): Set<string> {
  let set = preparedTargets.get(browser);
  if (!set) preparedTargets.set(browser, (set = new Set()));
  return set;
}

/** Every page target of `browser` without its environment yet gets it, through the browser's DevTools session. */
async function prepareNewTargets(browser: Browser): Promise<void> {
  let preparer = browserSessions.get(browser);
  if (!preparer) {
    preparer = TargetPreparer.open(browser);
    browserSessions.set(browser, preparer);
  }
  await (await preparer).prepareNew(preparedSet(browser));
}

/**
 * The browser-level DevTools session that prepares pages Playwright cannot name yet. Playwright's CDPSession speaks
 * only to its own target, so each page target is attached in the non-flat mode and spoken to through
 * Target.sendMessageToTarget; the attachment stays for the target's life (the environment lives as long).
 */
class TargetPreparer {
  private lastId = 0;
  private readonly replies = new Map<number, (error?: string) => void>();

  private constructor(private readonly cdp: CDPSession) {
    cdp.on('Target.receivedMessageFromTarget', (event) => {
      const reply = JSON.parse(event.message) as { id?: number; error?: { message: string } };
      const settle = reply.id === undefined ? undefined : this.replies.get(reply.id);
      settle?.(reply.error?.message);
    });
  }

  static async open(browser: Browser): Promise<TargetPreparer> {
    return new TargetPreparer(await browser.newBrowserCDPSession());
  }

  async prepareNew(prepared: Set<string>): Promise<void> {
    const { targetInfos } = await this.cdp.send('Target.getTargets');
    for (const target of targetInfos) {
      if (target.type !== 'page' || prepared.has(target.targetId)) continue;
      prepared.add(target.targetId);
      const { sessionId } = await this.cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false });
      for (const command of ENVIRONMENT_COMMANDS) await this.sendTo(sessionId, command);
    }
  }

  private sendTo(sessionId: string, command: { method: string; params: object }): Promise<void> {
    const id = ++this.lastId;
    const replied = new Promise<void>((resolve, reject) => {
      // Bounded: a target that closes mid-way never answers, and the navigation waiting on it must go on.
      const timer = setTimeout(() => this.replies.get(id)?.('the target did not answer'), REPLY_TIMEOUT_MS);
      this.replies.set(id, (error) => {
        clearTimeout(timer);
        this.replies.delete(id);
        if (error) reject(new Error(error));
        else resolve();
      });
    });
    void this.cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, ...command }) }).catch(() => {
      this.replies.get(id)?.('the target went away');
    });
    return replied;
  }
}
