import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';

import { type BrowserOptions, launchBrowser } from './chromium';
import { armWebAuthn, webAuthnGateScript } from './webauthn-environment';

/** How long a readiness check waits for the browser to answer one DevTools call. */
const LIVENESS_TIMEOUT_MS = 2_000;

/**
 * One browser per process, started on first use and restarted if it dies; callers get fresh,
 * isolated contexts (one per login or agent run) and must close them.
 */
export interface BrowserManagerEvents {
  /** The browser went away without close() (a crash, a kill, a remote browser lost): a log line and a metric. */
  onBrowserLost?(info: { version: string }): void;
}

export class BrowserManager {
  private browser: Promise<Browser> | null = null;
  private open = 0;

  constructor(
    private readonly options: BrowserOptions,
    private readonly events: BrowserManagerEvents = {},
  ) {}

  /** A launched browser accepts the egress proxies' interception CA (see egress/fenced-context.ts); a remote one cannot be told to. */
  get trustsInterceptionCa(): boolean {
    return !this.options.wsEndpoint;
  }

  /** Extra roots an upstream certificate may chain to, for the egress proxies of this browser's fenced contexts. */
  get upstreamCa(): readonly string[] | undefined {
    return this.options.upstreamCa;
  }

  /** The running Chromium's version (starting it when it is not running): what a device's user agent reports. */
  async browserVersion(): Promise<string> {
    return (await this.get()).version();
  }

  /** Browser contexts handed out and not closed yet (a gauge on /metrics). */
  get openContexts(): number {
    return this.open;
  }

  private async get(): Promise<Browser> {
    if (!this.browser) {
      // Armed before anyone gets the browser: a WebAuthn call on a page without its environment crashes it whole.
      const launching = launchBrowser(this.options).then(async (b) => {
        await armWebAuthn(b).catch(async (err: unknown) => {
          await b.close().catch(() => undefined);
          throw err;
        });
        return b;
      });
      this.browser = launching;
      launching
        .then((b) =>
          b.on('disconnected', () => {
            // Still ours when it went: nobody closed it (close() lets go of it first).
            if (this.browser !== launching) return;
            this.browser = null;
            this.events.onBrowserLost?.({ version: b.version() });
          }),
        )
        .catch(() => {
          if (this.browser === launching) this.browser = null;
        });
    }
    return this.browser;
  }

  async newContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const browser = await this.get();
    const context = await browser.newContext({ serviceWorkers: 'block', acceptDownloads: false, ...options });
    // Before any page of it exists: a popup's own first WebAuthn call waits for its environment (webauthn-gate.page.ts).
    await context.addInitScript({ content: webAuthnGateScript() });
    this.open += 1;
    // 'close' also fires when the browser itself closes or dies.
    context.once('close', () => {
      this.open -= 1;
    });
    return context;
  }

  /**
   * Readiness: the browser is running (or connected, for BROWSER_WS_ENDPOINT), launching or reconnecting it
   * if it is not, as the next agent run would. Rejects when that fails.
   */
  async check(): Promise<void> {
    const browser = await this.get();
    if (!browser.isConnected()) throw new Error('the browser is not connected');
    // A browser that just died may still look connected until its socket's close is noticed: one round trip tells.
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          const cdp = await browser.newBrowserCDPSession();
          await cdp.send('Browser.getVersion');
          await cdp.detach().catch(() => undefined);
        })(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the browser did not answer')), LIVENESS_TIMEOUT_MS))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    const pending = this.browser;
    this.browser = null;
    if (pending) await (await pending.catch(() => null))?.close().catch(() => undefined);
  }
}
