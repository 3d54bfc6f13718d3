import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { Logger } from 'pino';
import type { Browser } from 'playwright-core';

import { createAgentWorker } from '../../server/agent/worker/runtime';
import type { AgentWorker } from '../../server/agent/worker/worker';
import { createApp } from '../../server/app';
import { launchBrowser } from '../../server/browser/chromium';
import { loadConfig } from '../../server/config';
import { attachLiveSignIn } from '../../server/connect/live/live-socket';
import { type Clock, systemClock } from '../../server/domain/clock';
import { createLogger } from '../../server/logger';
import { buildServices, type Services } from '../../server/services';
import { Store } from '../../server/store';
import { loadVault } from '../../server/vault/keyring';
import { copySqliteTemplate } from './store-templates';

/**
 * A real AgentLink listening on 127.0.0.1 with a fresh SQLite file, for tests that drive it from a real
 * browser. The port is known before the app is built, so the catalogue's sandbox URLs
 * (http://<slug>.sandbox.localhost:<port>/) point at this very server.
 */
export interface LiveServer {
  baseUrl: string;
  port: number;
  services: Services;
  dataDir: string;
  /** The agent worker, when started with `worker: true`. */
  worker?: AgentWorker;
  siteUrl(slug: string, pathname?: string): string;
  close(): Promise<void>;
}

/**
 * `worker: true` also runs an agent worker in the process (off by default: most tests do not want one). `logger`: the
 * app's and the worker's logger (silent by default; tests that look at what is logged pass one of their own).
 */
export async function startLiveServer(
  opts: { clock?: Clock; env?: Record<string, string>; worker?: boolean; logger?: Logger } = {},
): Promise<LiveServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-live-'));
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: String(port),
    AGENTLINK_PUBLIC_URL: `http://localhost:${port}`,
    AGENTLINK_DATA_DIR: dataDir,
    AGENTLINK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // No context is prepared for a connection's next run unless a test asks (the default, 30 s, prepares one after every
    // clean run: about 30 ms of the browser's work each, which the suite's runs seldom use). The warm paths are tested
    // where they are asked for: warm-contexts.test.ts, the warm and prepared context security suites, bench:agent.
    AGENTLINK_WARM_CONTEXT_SECONDS: '0',
    ...opts.env,
  });
  // The migrated template the jest run made (store-templates.ts), as the in-process test apps copy it: migrating a
  // fresh file costs each live server most of a second.
  if (config.database.type === 'sqlite') copySqliteTemplate(config.database.file);
  const store = await Store.open(config.database);
  const { vault } = loadVault(config);
  const services = buildServices({ config, store, clock: opts.clock ?? systemClock, vault });
  const logger = opts.logger ?? createLogger('silent');
  server.on('request', createApp(services, logger));
  const detachLive = attachLiveSignIn(server, services.liveViews, {
    widgetOrigins: config.widgetOrigins,
    hosts: services.linkSessions,
  });
  const worker = opts.worker ? createAgentWorker(services, logger) : undefined;
  await worker?.start();
  return {
    baseUrl: `http://localhost:${port}`,
    port,
    services,
    dataDir,
    worker,
    siteUrl: (slug, pathname = '/') => `http://${slug}.${config.sandboxHostSuffix}:${port}${pathname}`,
    close: async () => {
      await detachLive();
      await services.liveSignIn.closeAll();
      await services.runLiveViews.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker?.stop({ graceMs: 0 });
      await services.queue.stop();
      if (worker) await services.browsers.close();
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One Chromium per test file; contexts per test keep cookies apart. */
export async function startBrowser(): Promise<Browser> {
  return launchBrowser(loadConfig().browser);
}
