import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { startBrowser } from '../support/live-server';

/** A loopback site answering every host (`<name>.localhost:<port>`) with the HTML `page` makes, and a browser beside it. */
export interface StorageSiteRig {
  browser: Browser;
  port: number;
  /** A new context of the browser, closed after the file. */
  newContext(options?: Parameters<Browser['newContext']>[0]): Promise<BrowserContext>;
}

/** For the session-capture tests: the site's documents write their own storage, on the hosts they are asked for. */
export function useStorageSite(page: (req: http.IncomingMessage, port: number) => string): StorageSiteRig {
  const contexts: BrowserContext[] = [];
  let site: http.Server | undefined;
  const rig = {
    newContext: async (options?: Parameters<Browser['newContext']>[0]) => {
      const context = await rig.browser.newContext(options);
      contexts.push(context);
      return context;
    },
  } as StorageSiteRig;
  beforeAll(async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(req, rig.port));
    });
    site = server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    rig.port = (server.address() as AddressInfo).port;
    rig.browser = await startBrowser();
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
    await rig.browser?.close();
    site?.closeAllConnections();
    await new Promise<void>((r) => (site ? site.close(() => r()) : r()));
  });
  return rig;
}
