import type { Browser, CDPSession } from 'playwright-core';

/**
 * A WebAuthn environment on every page of a browser, so that navigator.credentials.create() and get() always settle.
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

const ENVIRONMENT_COMMANDS: readonly { method: string; params: object }[] = [
  { method: 'WebAuthn.enable', params: { enableUI: false } },
  ...REFUSING_TRANSPORTS.map((transport) => ({
    method: 'WebAuthn.addVirtualAuthenticator',
    params: { options: { ...REFUSING_AUTHENTICATOR, transport } },
  })),
  // Last: a session's commands run in the order sent, so the page runs only once its environment is there.
  { method: 'Runtime.runIfWaitingForDebugger', params: {} },
];

/** How long the browser may take to answer the client's own commands. */
const REPLY_TIMEOUT_MS = 5_000;

interface ProtocolMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: { sessionId?: string };
  error?: { message: string };
}

const armedBrowsers = new WeakMap<Browser, Promise<void>>();

/**
 * Gives every page `browser` has or will have, in every context, a WebAuthn environment before it runs anything.
 * Called once per browser where it starts (BrowserManager), before any context exists.
 *
 * How: a browser-level DevTools client auto-attaches to every page target with waitForDebuggerOnStart, as DevTools
 * clients do to set a target up before it runs: Chromium holds each new page (a tab, a popup) before its first navigation
 * until every client that asked to wait lets it go, so Playwright's own auto-attach goes on side by side with this one.
 * Not held: an open('') popup's initial empty document, which its opener can script in the same task (README: the gap).
 * One arming point per browser: no per-context route, so requests and the HTTP cache are left alone.
 */
export function armWebAuthn(browser: Browser): Promise<void> {
  let armed = armedBrowsers.get(browser);
  if (!armed) {
    armed = BrowserClient.open(browser).then((client) => client.autoAttachPages());
    armedBrowsers.set(browser, armed);
  }
  return armed;
}

/**
 * A browser-level DevTools client of our own, spoken to as raw protocol text. Why not Playwright's browser CDPSession
 * directly: Chromium auto-attaches at browser level only in the flat mode (a child session is addressed by a sessionId
 * beside the command), and Playwright's CDPSession cannot address one. So that session attaches, non-flat, to the
 * browser target itself: the client inside speaks the full flat protocol through Target.sendMessageToTarget. It stays
 * for the browser's life, and so does each page's child session: Chromium removes a page's environment when the
 * session that enabled it detaches.
 */
class BrowserClient {
  private lastId = 0;
  /** Replies awaited from the client itself (not from a page's child session), by command id. */
  private readonly replies = new Map<number, (error?: string) => void>();

  private constructor(
    private readonly cdp: CDPSession,
    private readonly sessionId: string,
  ) {
    cdp.on('Target.receivedMessageFromTarget', (event) => {
      if (event.sessionId !== this.sessionId) return;
      const message = JSON.parse(event.message) as ProtocolMessage;
      if (message.method === 'Target.attachedToTarget' && message.params?.sessionId) this.prepare(message.params.sessionId);
      else if (message.id !== undefined && !message.sessionId) this.replies.get(message.id)?.(message.error?.message);
    });
  }

  static async open(browser: Browser): Promise<BrowserClient> {
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: targetInfo.targetId, flatten: false });
    return new BrowserClient(cdp, sessionId);
  }

  /** Resolves once Chromium holds and reports every new page target (the reply to setAutoAttach). */
  async autoAttachPages(): Promise<void> {
    await this.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [{ type: 'page' }],
    });
  }

  /**
   * The page's environment, then its release, sent at once without waiting for replies (the quickest, so a page a
   * script of its opener drives in the same task, open('') then create(), finds it as early as can be).
   */
  private prepare(childSessionId: string): void {
    for (const { method, params } of ENVIRONMENT_COMMANDS) this.post(method, params, childSessionId);
  }

  /** A command to the client itself, resolved with its reply (bounded: a browser that went away never answers). */
  private send(method: string, params: object): Promise<void> {
    const id = this.post(method, params);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.replies.get(id)?.('the browser did not answer'), REPLY_TIMEOUT_MS);
      this.replies.set(id, (error) => {
        clearTimeout(timer);
        this.replies.delete(id);
        if (error) reject(new Error(`${method}: ${error}`));
        else resolve();
      });
    });
  }

  /** Sends without waiting for the reply; returns the command's id. A child session that went away just drops it. */
  private post(method: string, params: object, childSessionId?: string): number {
    const id = ++this.lastId;
    const message = { id, method, params, ...(childSessionId ? { sessionId: childSessionId } : {}) };
    void this.cdp
      .send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify(message) })
      .catch(() => undefined);
    return id;
  }
}

/**
 * Ends our use of a DevTools session on a page without detaching it. Chromium drops a page's WebAuthn environment when
 * ANY session of the page detaches (one that never used WebAuthn too), and a navigator.credentials call on a page
 * without one kills the whole browser: so a session of a page that lives on ends with the page, never before. What it
 * was doing stops here (its screencast); its owner ignores its events from now on.
 */
export async function releasePageSession(session: CDPSession): Promise<void> {
  await session.send('Page.stopScreencast').catch(() => undefined);
}
