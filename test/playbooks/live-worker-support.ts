import type { BrowserContext } from 'playwright-core';

import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * The live AgentLink of the playbook tests' end-to-end describe blocks: started with its worker (and so Chromium) by
 * `useLiveWorker()` for the calling block (the bindings below are set once its beforeAll ran), and the signed-in
 * contexts a test opens to check the site (siteAs in playbook-support.ts), closed after each test.
 */
export let live: LiveServer;
export const contexts: BrowserContext[] = [];

/** Starts a live AgentLink with its worker for the calling describe block; closes each test's contexts after it. */
export function useLiveWorker(): void {
  beforeAll(async () => {
    live = await startLiveServer({ worker: true });
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await live?.close();
  });
}
