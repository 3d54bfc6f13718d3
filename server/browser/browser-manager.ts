import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';

import { type BrowserOptions, launchBrowser } from './chromium';

/**
 * One browser per process, started on first use and restarted if it dies; callers get fresh,
 * isolated contexts (one per login or agent run) and must close them.
 */
export class BrowserManager {
  private browser: Promise<Browser> | null = null;
  private open = 0;

  constructor(private readonly options: BrowserOptions) {}

  /** Browser contexts handed out and not closed yet (a gauge on /metrics). */
  get openContexts(): number {
    return this.open;
  }

  private async get(): Promise<Browser> {
    if (!this.browser) {
      const launching = launchBrowser(this.options);
      this.browser = launching;
      launching
        .then((b) =>
          b.on('disconnected', () => {
            if (this.browser === launching) this.browser = null;
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
  }

  async close(): Promise<void> {
    const pending = this.browser;
    this.browser = null;
    if (pending) await (await pending.catch(() => null))?.close().catch(() => undefined);
  }
}
