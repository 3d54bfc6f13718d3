import type { BrowserContext } from 'playwright-core';
import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks/registry';
import { deviceIdentity } from '../../server/browser/device-identity';
import type { DeviceProfile } from '../../server/browser/device-profile';
import { contextStorageState, type ProviderSession } from '../../server/browser/session-format';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext, openPage } from '../../server/egress/fenced-context';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import type { ProviderDefinition } from '../../server/providers/catalogue';
import { api, awaitRequest, createRequest, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type ConnectProxy, startConnectProxy } from '../support/connect-proxy';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * What device-session.browser.test.ts runs against: a live AgentLink with its worker and two test playbooks (one
 * reads what Orbit's app page saw of the device, one fills IndexedDB past the session bound), an organization and an
 * upstream proxy for a connection's exit, all started by `useDeviceSession()` (the bindings below are set by its
 * hooks); connecting a test user through the connect flow, running a playbook, reading what was stored of a
 * connection, and presenting a session from a device of one's choosing.
 */

/** What the test.read-app playbook reads: who the app says is signed in, what it saw of the device, the tab's mark. */
export const READ_APP = {
  signedIn: 'boolean',
  name: 'string',
  userAgent: 'string',
  timeZone: 'string',
  acceptLanguage: 'string',
  tab: 'string',
};

/** A test playbook: reads who the app says is signed in, and what it saw of the device (READ_APP). */
const readAppPlaybook: Playbook<unknown> = {
  providerSlug: 'orbit',
  name: 'test.read-app',
  description: 'test playbook: reads who the app says is signed in, and what it saw of the device',
  writes: false,
  examples: ['test: read the app'],
  resultFields: READ_APP,
  parameters: z.unknown(),
  run: async ({ page }) => {
    if (new URL(page.url()).pathname !== '/app') await page.goto(new URL('/app', page.url()).toString());
    await page.waitForFunction(
      () => location.pathname.startsWith('/login') || /^Signed in as /.test(document.querySelector('h1')?.textContent ?? ''),
      null,
      { timeout: 15_000 },
    );
    const tab = (await page.evaluate(() => sessionStorage.getItem('tab'))) ?? '';
    if (new URL(page.url()).pathname.startsWith('/login')) {
      return { signedIn: false, name: '', userAgent: '', timeZone: '', acceptLanguage: '', tab };
    }
    const seen = (key: string) => page.locator(`[data-seen="${key}"]`).textContent();
    return {
      signedIn: true,
      name: ((await page.locator('h1').textContent()) ?? '').replace(/^Signed in as /, ''),
      userAgent: await seen('userAgent'),
      timeZone: await seen('timeZone'),
      acceptLanguage: await seen('acceptLanguage'),
      tab,
    };
  },
};

/** A test playbook: fills an IndexedDB cache past the session bound. */
const bigCachePlaybook: Playbook<unknown> = {
  providerSlug: 'orbit',
  name: 'test.big-cache',
  description: 'test playbook: fills an IndexedDB cache past the session bound',
  writes: false,
  examples: ['test: fill the cache'],
  resultFields: { ok: 'boolean' },
  parameters: z.unknown(),
  run: async ({ page }) => {
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const r = indexedDB.open('cache', 1);
          r.onupgradeneeded = () => r.result.createObjectStore('blobs');
          r.onerror = () => reject(new Error('no IndexedDB'));
          r.onsuccess = () => {
            const tx = r.result.transaction('blobs', 'readwrite');
            tx.objectStore('blobs').put('c'.repeat(5 * 1024 * 1024), 'big');
            tx.oncomplete = () => resolve();
          };
        }),
    );
    return { ok: true };
  },
};

export let live: LiveServer;
export let org: LiveOrg;
/** The upstream proxy a connection's exit can be set to (it asks for exit-user / exit-secret). */
export let exit: ConnectProxy;
export const caller = () => ({ organizationId: org.organizationId, environment: 'sandbox' as const });

/** The contexts a test opened (closed after each test). */
export const contexts: BrowserContext[] = [];

/**
 * Starts the live server (with its worker and the test playbooks), the organization and the exit proxy for the calling
 * test file; closes each test's contexts after it.
 */
export function useDeviceSession(): void {
  beforeAll(async () => {
    live = await startLiveServer({ worker: true });
    live.services.playbooks.register(readAppPlaybook);
    live.services.playbooks.register(bigCachePlaybook);
    org = await liveOrg(live, 'Device Session Org');
    exit = await startConnectProxy({ username: 'exit-user', password: 'exit-secret' });
  });

  afterAll(async () => {
    await exit?.close();
    await live?.close();
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  });
}

/**
 * Connects a test user to Orbit through the connect flow (the login engine signs in on the real form); with
 * `connectionId`, update mode re-authenticates that connection.
 */
export async function connect(
  username: string,
  clientUserId: string,
  opts: { connectionId?: string; rememberCredentials?: boolean } = {},
): Promise<{ connectionId: string; accessToken: string }> {
  const token = await api(live, org, 'POST', '/api/link-token', { clientUserId, providerId: ORBIT_PROVIDER_ID, ...opts });
  if (token.status !== 200) throw new Error(`link token: ${JSON.stringify(token.body)}`);
  const linkToken = token.body.linkToken as string;
  const flows = live.services.linkSessions;
  const started = await flows.start(linkToken);
  if (!started.ok) throw new Error(started.error.message);
  const id = started.value.linkSessionId;
  await flows.consent(linkToken, id);
  const signedIn = await flows.submitCredentials(linkToken, id, { username, password: 'pass_good' });
  if (!signedIn.ok || !signedIn.value.success) throw new Error(`sign-in: ${JSON.stringify(signedIn)}`);
  if (opts.connectionId) return { connectionId: opts.connectionId, accessToken: '' };
  const ex = await api(live, org, 'POST', '/api/connections/public_token/exchange', { publicToken: signedIn.value.success.publicToken });
  return { connectionId: ex.body.connectionId, accessToken: ex.body.access_token };
}

/** Runs a test playbook (test.read-app unless named) on the connection, from a page of Orbit; the final record. */
export async function run(accessToken: string, playbook = 'test.read-app', startPath = '/app'): Promise<Json> {
  const requestId = await createRequest(live, org, {
    accessToken,
    action: playbook === 'test.read-app' ? 'test: read the app' : 'test: fill the cache',
    playbook,
    startingUrl: live.siteUrl('orbit', startPath),
    parameters: {},
    responseFormat: playbook === 'test.read-app' ? READ_APP : { ok: 'boolean' },
  });
  return awaitRequest(live, org, requestId);
}

/** The connection's row, its open session and its device. */
export const stored = async (connectionId: string) => {
  const row = (await live.services.store.repos.connections.findById(connectionId))!;
  return { row, session: live.services.connections.openSession(row)!, device: live.services.connections.deviceOf(row)! };
};

const orbit = (): ProviderDefinition => live.services.catalogue.get(ORBIT_PROVIDER_ID, 'sandbox')!;

/** Opens Orbit in a fenced context presenting `device` with `session`: the direct way to present another device. */
export async function present(device: DeviceProfile, session: ProviderSession, path: string) {
  const policy = EgressPolicy.forProvider(orbit(), 'sandbox');
  const keep = (origin: string) => policy.checkUrl(origin).ok;
  const context = await openFencedContext(live.services.browsers, {
    policy,
    onBlocked: () => undefined,
    identity: deviceIdentity(device),
    options: { storageState: contextStorageState(session, keep) },
  });
  contexts.push(context);
  const page = await openPage(context);
  await page.goto(live.siteUrl('orbit', path));
  await page.waitForFunction(
    () => location.pathname.startsWith('/login') || /^Signed in as |Grace|Bo Bound|Ivy/.test(document.body.innerText),
    null,
    { timeout: 15_000 },
  );
  return new URL(page.url()).pathname.startsWith('/login') ? 'signed out' : 'signed in';
}

/** What the site saw of the device in a test.read-app run. */
export const seenOf = (record: Json) => ({
  userAgent: record.result.userAgent,
  timeZone: record.result.timeZone,
  acceptLanguage: record.result.acceptLanguage,
});
