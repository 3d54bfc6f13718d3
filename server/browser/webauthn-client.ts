import type { Browser, CDPSession } from 'playwright-core';

/**
 * Why these authenticators: with the domain enabled and no authenticator, a call waits out the page's own timeout (up
 * to minutes). An authenticator on each transport the request may name, each able to verify its user but failing
 * to (isUserVerified: false), ends create() and get() with NotAllowedError at once (measured: 1–3 ms), whatever the
 * page asks (platform or cross-platform, resident key or not, any user-verification level, any transports hint).
 */
/**
 * The internal (platform) one last: a page's first WebAuthn call waits until a user-verifying platform authenticator is
 * there (webauthn-gate.page.ts), and a session's commands run in order, so by then every other one is there too (a
 * cross-platform create() that came between two of them resolved on the partial set).
 */
const TRANSPORTS = ['usb', 'hybrid', 'nfc', 'ble', 'internal'] as const;
type Transport = (typeof TRANSPORTS)[number];

const AUTHENTICATOR = { protocol: 'ctap2', ctap2Version: 'ctap2_1', hasResidentKey: true, hasUserVerification: true } as const;
const REFUSING = { ...AUTHENTICATOR, isUserVerified: false, automaticPresenceSimulation: true } as const;
/**
 * While a passkey window is open, the other transports wait (no presence ever comes) instead of refusing: a refusing
 * authenticator answering first would end the call before the connection's own could (measured: the first answer wins).
 */
const WAITING = { ...AUTHENTICATOR, isUserVerified: false, automaticPresenceSimulation: false } as const;
/** The connection's device: a platform authenticator that holds resident keys and verifies its user. */
const CONNECTION_DEVICE = { ...AUTHENTICATOR, transport: 'internal', isUserVerified: true, automaticPresenceSimulation: true } as const;

/** How long the browser may take to answer the client's own commands. */
const REPLY_TIMEOUT_MS = 5_000;

/** A credential as the DevTools WebAuthn domain gives and takes it (privateKey: base64 PKCS#8). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
  userName?: string;
  userDisplayName?: string;
}

interface ProtocolMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown> & { sessionId?: string; targetInfo?: { targetId: string }; targetId?: string };
  result?: Record<string, unknown>;
  error?: { message: string };
}

type Reply = (error: string | undefined, result: Record<string, unknown>) => void;

/** A page the client prepared: its child session and the authenticators it holds now, by transport. */
interface PreparedPage {
  sessionId: string;
  authenticators: Map<Transport, Promise<string>>;
  /** One window at a time per page: a second waits for the first to close. */
  busy: Promise<void>;
}

/**
 * A browser-level DevTools client of our own, spoken to as raw protocol text. Why not Playwright's browser CDPSession
 * directly: Chromium auto-attaches at browser level only in the flat mode (a child session is addressed by a sessionId
 * beside the command), and Playwright's CDPSession cannot address one. So that session attaches, non-flat, to the
 * browser target itself: the client inside speaks the full flat protocol through Target.sendMessageToTarget. It stays
 * for the browser's life, and so does each page's child session: Chromium removes a page's environment when the
 * session that enabled it detaches.
 */
export class BrowserClient {
  private lastId = 0;
  private readonly replies = new Map<number, Reply>();
  private readonly pages = new Map<string, PreparedPage>();
  /** Events of child sessions, by session id (the WebAuthn domain's credentialAdded, for an open window). */
  private readonly listeners = new Map<string, Set<(method: string, params: Record<string, unknown>) => void>>();

  private constructor(
    private readonly cdp: CDPSession,
    private readonly sessionId: string,
  ) {
    cdp.on('Target.receivedMessageFromTarget', (event) => {
      if (event.sessionId !== this.sessionId) return;
      const message = JSON.parse(event.message) as ProtocolMessage;
      if (message.id !== undefined) return this.replies.get(message.id)?.(message.error?.message, message.result ?? {});
      const params = message.params ?? {};
      if (message.method === 'Target.attachedToTarget' && params.sessionId && params.targetInfo) {
        this.prepare(params.targetInfo.targetId, params.sessionId);
      } else if (message.method === 'Target.detachedFromTarget' && params.sessionId) {
        for (const [targetId, page] of this.pages) if (page.sessionId === params.sessionId) this.pages.delete(targetId);
        this.listeners.delete(params.sessionId);
      } else if (message.sessionId && message.method) {
        for (const listen of this.listeners.get(message.sessionId) ?? []) listen(message.method, params);
      }
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
    await this.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: 'page' }] });
  }

  /**
   * The page's environment, then its release, sent at once without waiting for replies (the quickest, so a page a
   * script of its opener drives in the same task, open('') then create(), finds it as early as can be). The
   * authenticators' ids are kept, for a passkey window to swap them later.
   */
  private prepare(targetId: string, childSessionId: string): void {
    this.post('WebAuthn.enable', { enableUI: false }, childSessionId);
    const authenticators = new Map<Transport, Promise<string>>();
    for (const transport of TRANSPORTS) {
      const added = this.addAuthenticator(childSessionId, { ...REFUSING, transport });
      added.catch(() => undefined); // a page that closes at once never answers: nobody waits on it then
      authenticators.set(transport, added);
    }
    // Last: a session's commands run in the order sent, so the page runs only once its environment is there.
    this.post('Runtime.runIfWaitingForDebugger', {}, childSessionId);
    this.pages.set(targetId, { sessionId: childSessionId, authenticators, busy: Promise.resolve() });
  }

  private addAuthenticator(childSessionId: string, options: object): Promise<string> {
    return this.send('WebAuthn.addVirtualAuthenticator', { options }, childSessionId).then((r) => String(r.authenticatorId));
  }

  /**
   * Opens a passkey window on one page: the connection's device in place of the refusing platform authenticator (with
   * `credential` loaded, for a sign-in), the other transports waiting, until `close()` puts the refusing set back. Only
   * this page's frame tree is touched: other pages, contexts and connections keep refusing.
   */
  async openWindow(targetId: string, credential?: VirtualCredential): Promise<PasskeyWindow> {
    const page = this.pages.get(targetId);
    if (!page) throw new Error('the page has no WebAuthn environment of ours');
    let release!: () => void;
    const previous = page.busy;
    page.busy = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const { sessionId } = page;
    const added: VirtualCredential[] = [];
    const waiters = new Set<() => void>();
    let deviceId = '';
    const listen = (method: string, params: Record<string, unknown>) => {
      if (method !== 'WebAuthn.credentialAdded' || params.authenticatorId !== deviceId) return;
      added.push(params.credential as VirtualCredential);
      for (const wake of waiters) wake();
    };
    try {
      await this.swap(page, (transport) => (transport === 'internal' ? CONNECTION_DEVICE : { ...WAITING, transport }));
      deviceId = await page.authenticators.get('internal')!;
      if (credential) await this.send('WebAuthn.addCredential', { authenticatorId: deviceId, credential }, sessionId);
      if (!this.listeners.has(sessionId)) this.listeners.set(sessionId, new Set());
      this.listeners.get(sessionId)!.add(listen);
    } catch (err) {
      release();
      throw err;
    }
    let closed: Promise<void> | null = null;
    return {
      credentialAdded: (timeoutMs) =>
        new Promise<VirtualCredential | null>((resolve) => {
          if (added.length) return resolve(added[0]);
          const timer = setTimeout(() => done(null), timeoutMs);
          const done = (value: VirtualCredential | null) => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve(value);
          };
          const wake = () => done(added[0] ?? null);
          waiters.add(wake);
        }),
      credentials: async () => {
        const r = await this.send('WebAuthn.getCredentials', { authenticatorId: deviceId }, sessionId);
        return (r.credentials as VirtualCredential[] | undefined) ?? [];
      },
      close: () =>
        (closed ??= (async () => {
          this.listeners.get(sessionId)?.delete(listen);
          // Removing the connection's device drops the credentials it held: nothing of it stays in the page.
          await this.swap(page, (transport) => ({ ...REFUSING, transport })).catch(() => undefined);
          release();
        })()),
    };
  }

  /** Every authenticator of the page removed and added again as `optionsOf` says (one platform authenticator at most). */
  private async swap(page: PreparedPage, optionsOf: (transport: Transport) => object): Promise<void> {
    for (const transport of TRANSPORTS) {
      const old = await page.authenticators.get(transport)!.catch(() => null);
      if (old) await this.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: old }, page.sessionId).catch(() => undefined);
      const next = this.addAuthenticator(page.sessionId, { ...optionsOf(transport), transport });
      page.authenticators.set(transport, next);
      await next;
    }
  }

  /** A command, resolved with its reply (bounded: a browser that went away never answers). */
  private send(method: string, params: object, childSessionId?: string): Promise<Record<string, unknown>> {
    const id = this.post(method, params, childSessionId);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.replies.get(id)?.('the browser did not answer', {}), REPLY_TIMEOUT_MS);
      this.replies.set(id, (error, result) => {
        clearTimeout(timer);
        this.replies.delete(id);
        if (error) reject(new Error(`${method}: ${error}`));
        else resolve(result);
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

/** A page's passkey window: the connection's device answers WebAuthn on that page until it is closed. */
export interface PasskeyWindow {
  /** The first credential the page created in the window, or null when none came within `timeoutMs`. */
  credentialAdded(timeoutMs: number): Promise<VirtualCredential | null>;
  /** What the connection's device holds now (a loaded credential's sign count moves on as it signs in). */
  credentials(): Promise<VirtualCredential[]>;
  close(): Promise<void>;
}
