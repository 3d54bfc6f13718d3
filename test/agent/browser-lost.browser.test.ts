import { BrowserManager } from '../../server/browser/browser-manager';
import { loadConfig } from '../../server/config';

/**
 * The browser manager tells when its browser went away on its own (a crash, a kill: a log line and a metric in
 * services.ts) and never when it closed it itself; the next context gets a fresh browser.
 */
jest.setTimeout(60_000);

it('reports a crashed browser once, not a closed one, and gives the next context a fresh browser', async () => {
  const lost: { version: string }[] = [];
  const browsers = new BrowserManager(loadConfig().browser, { onBrowserLost: (info) => lost.push(info) });
  try {
    await (await browsers.newContext()).close();
    await browsers.close();
    expect(lost).toEqual([]);

    const context = await browsers.newContext();
    const first = context.browser()!;
    const gone = new Promise((r) => first.once('disconnected', r));
    const cdp = await first.newBrowserCDPSession();
    void cdp.send('Browser.crash').catch(() => undefined);
    await gone;
    expect(lost).toEqual([{ version: first.version() }]);

    const next = await browsers.newContext();
    expect(next.browser()).not.toBe(first);
    const page = await next.newPage();
    expect(await page.evaluate(() => 1 + 1)).toBe(2);
  } finally {
    await browsers.close();
  }
});
