import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';

import { type BrowserOptions, launchBrowser } from './chromium';

/**
 * One browser per process, started on first use and restarted if it dies; callers get fresh,
 * isolated contexts (one per login or agent run) and must close them.
 */
export class BrowserManager {
  private browser: Promise<Browser> | null = null;

  constructor(private readonly options: BrowserOptions) {}

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
    return browser.newContext({ serviceWorkers: 'block', acceptDownloads: false, ...options });
  }

  async close(): Promise<void> {
    const pending = this.browser;
    this.browser = null;
    if (pending) await (await pending.catch(() => null))?.close().catch(() => undefined);
  }
}
