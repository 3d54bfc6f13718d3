import { randomBytes } from 'node:crypto';

import type { BrowserContext, Page } from 'playwright-core';

import type { DeviceProfile } from '../../browser/device-profile';
import { captureSession } from '../../browser/session-capture';
import { boundSession, type ProviderSession } from '../../browser/session-format';
import { isSignedIn } from '../../connect/live/signed-in';
import { EgressPolicy } from '../../egress/egress-policy';
import { type ContextSource, openFencedContext, openPage } from '../../egress/fenced-context';
import type { UpstreamProxy } from '../../egress/upstream-proxy';
import type { ProviderDefinition } from '../../providers/catalogue';
import { isProviderLoginPage } from '../../providers/provider';
import type { ConnectionRecord } from '../../store';
import type { RunConnections } from '../ports';
import { changeGate } from '../run/network-guard';
import type { RunSigning } from '../worker/deps';
import { deviceForRun, sessionFence } from '../worker/run-session';
import type { SilentRelogin } from '../worker/silent-relogin';

/** What one probe cost, for bench:health: the page loads it needed and the bytes its browser exchanged. */
export interface ProbeCost {
  /** 'cookies': decided from the stored cookies alone; 'commit': the home page's response; 'document': its DOM too. */
  deepest: 'cookies' | 'commit' | 'document';
  contexts: number;
  requests: number;
  /** Request and response bytes (headers and bodies) of every finished request, as Chromium counts them. */
  bytes: number;
}

export interface SessionProbeDeps {
  browsers: ContextSource;
  connections: Pick<RunConnections, 'openSession' | 'openCredentials' | 'deviceOf' | 'keepDevice' | 'openExitProxy'>;
  /** Absent: an ended session cannot be renewed (LOGIN_REQUIRED). */
  relogin?: SilentRelogin;
  /** Web Bot Auth: a check's requests are signed as a run's are (absent: never). */
  signing?: RunSigning;
  /** Told what each probe cost (bench only: counting bytes costs a DevTools call per request). */
  onCost?: (cost: ProbeCost) => void;
}

/**
 * What looking at a connection's session found: the answer ConnectionHealthService asks its SessionProbe for (it
 * applies the verdict; the probe writes nothing).
 */
export type ProbeVerdict =
  | { kind: 'signed_in'; session: ProviderSession }
  | { kind: 'renewed'; session: ProviderSession }
  | { kind: 'login_required'; reason: string }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'unreadable' };

const NAVIGATION_TIMEOUT_MS = 20_000;

type PageVerdict = Extract<ProbeVerdict, { kind: 'signed_in' | 'unreachable' }> | { kind: 'ended'; reason: string };

/** What the provider sees of the checking browser: the connection's own device and exit, as in its runs. */
interface Presence {
  device: DeviceProfile | null;
  exitProxy: UpstreamProxy | null;
}

/** How long a check waits for the declared signed-in element to be drawn before it calls the session ended. */
const SIGNED_IN_ELEMENT_WAIT_MS = 8_000;

/**
 * Looks at a connection's provider session with the cheapest proof the provider declares (its `signedIn` signal):
 *   1. the stored cookies: a declared session cookie missing or expired ends it there, with no browser;
 *   2. the home page's response, in a browser context opened like a run's (the connection's session, fenced to the
 *      provider by the egress proxy, with the read-mode gate: no write and no WebSocket message leaves, in any realm):
 *      the sign-in page, or a redirect to an identity provider, ends it; a declared URL pattern and cookies decide;
 *   3. the document, only when the declaration needs it (an element to find, or no signedIn declaration at all).
 * An ended session is renewed by a silent re-login when a passkey or credentials are stored, and the renewed one is proven the
 * same way. It runs no action and writes nothing anywhere: the verdict goes back to ConnectionHealthService.
 */
export class BrowserSessionProbe {
  constructor(private readonly deps: SessionProbeDeps) {}

  async check(input: { connection: ConnectionRecord; provider: ProviderDefinition; signal: AbortSignal }): Promise<ProbeVerdict> {
    const { connection, provider, signal } = input;
    const cost: ProbeCost = { deepest: 'cookies', contexts: 0, requests: 0, bytes: 0 };
    try {
      let stored: ProviderSession | null;
      let exitProxy: UpstreamProxy | null;
      try {
        stored = this.deps.connections.openSession(connection);
        exitProxy = this.deps.connections.openExitProxy(connection);
      } catch {
        return { kind: 'unreadable' };
      }
      let ended = stored ? missingCookie(stored, provider) : 'no session is stored';
      // A session bound to its device would end if another browser looked at it: the check is the connection's device.
      let presence: Presence;
      try {
        presence = { device: ended === null || this.deps.relogin ? await deviceForRun(this.deps, connection) : null, exitProxy };
      } catch {
        return { kind: 'unreachable', reason: 'the browser could not be reached' };
      }
      if (stored && ended === null) {
        const seen = await this.lookAt(stored, connection, provider, presence, signal, cost);
        if (seen.kind !== 'ended') return seen;
        ended = seen.reason;
      }
      return await this.renew(connection, provider, presence, ended ?? 'the session ended', signal, cost);
    } finally {
      this.deps.onCost?.(cost);
    }
  }

  /** Steps 2 and 3 in one fenced, read-only context, closed on every path (and at once when the budget runs out). */
  private async lookAt(
    session: ProviderSession,
    connection: ConnectionRecord,
    provider: ProviderDefinition,
    presence: Presence,
    signal: AbortSignal,
    cost: ProbeCost,
  ): Promise<PageVerdict> {
    if (signal.aborted) return { kind: 'unreachable', reason: 'the check was stopped' };
    const policy = EgressPolicy.forProvider(provider, connection.environment);
    const providerOrigin = (origin: string) => policy.checkUrl(origin).ok;
    const signIn = EgressPolicy.forSignIn(provider, connection.environment);
    let toIdentityProvider = false;
    let context: BrowserContext;
    try {
      const signer = (await this.deps.signing?.signerFor(connection, provider)) ?? null;
      context = await openFencedContext(this.deps.browsers, {
        policy,
        // A redirect to the provider's identity provider is a sign-in: the session ended (the probe's policy has no SSO hop).
        onBlocked: (b) => {
          if (!toIdentityProvider && signIn.checkUrl(b.url).ok) toIdentityProvider = true;
        },
        gate: changeGate('read', provider.sessionRefresh),
        ...sessionFence(presence.device, presence.exitProxy, session, providerOrigin, signer),
      });
    } catch {
      return { kind: 'unreachable', reason: 'the browser could not be reached' };
    }
    cost.contexts += 1;
    if (signal.aborted) {
      // The budget ran out while the context opened: the abort listener below would never fire.
      await context.close().catch(() => undefined);
      return { kind: 'unreachable', reason: 'the check was stopped' };
    }
    const sizes = this.deps.onCost ? countBytes(context, cost) : null;
    const close = () => void context.close().catch(() => undefined);
    signal.addEventListener('abort', close, { once: true });
    try {
      const page = await openPage(context);
      page.setDefaultTimeout(NAVIGATION_TIMEOUT_MS);
      page.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
      return await this.verdictOf(page, provider, providerOrigin, () => toIdentityProvider, cost);
    } catch {
      return { kind: 'unreachable', reason: signal.aborted ? 'the check was stopped' : 'the provider did not answer as expected' };
    } finally {
      signal.removeEventListener('abort', close);
      await sizes?.settled();
      await context.close().catch(() => undefined);
    }
  }

  private async verdictOf(
    page: Page,
    provider: ProviderDefinition,
    providerOrigin: (origin: string) => boolean,
    toIdentityProvider: () => boolean,
    cost: ProbeCost,
  ): Promise<PageVerdict> {
    cost.deepest = 'commit';
    let status: number | undefined;
    try {
      // 'commit': the answer to the home page (after its redirects) is enough to see a sign-in page; no sub-resource waits.
      status = (await page.goto(provider.homeUrl, { waitUntil: 'commit' }))?.status();
    } catch {
      if (toIdentityProvider()) return { kind: 'ended', reason: 'the provider sends the browser to its identity provider' };
      return { kind: 'unreachable', reason: "the provider's home page could not be loaded" };
    }
    const url = safeUrl(page.url());
    if (!url) return { kind: 'unreachable', reason: "the provider's home page could not be loaded" };
    if (isProviderLoginPage(provider, url)) return { kind: 'ended', reason: 'the provider shows its sign-in page' };
    if (status !== undefined && status >= 500) return { kind: 'unreachable', reason: `the provider answered HTTP ${status}` };
    if (needsDocument(provider)) {
      cost.deepest = 'document';
      await page.waitForLoadState('domcontentloaded');
      // A single-page app draws its signed-in element after the document loads (scripts, an API call): wait for it,
      // bounded. Present at once on a server-rendered page; a signed-out page shows its sign-in page or never draws it.
      const element = provider.signedIn?.element;
      if (element)
        await page
          .locator(element)
          .first()
          .waitFor({ state: 'attached', timeout: SIGNED_IN_ELEMENT_WAIT_MS })
          .catch(() => undefined);
    }
    if (!(await isSignedIn(page, provider))) return { kind: 'ended', reason: "the provider's signed-in signal is missing" };
    // The state after the answer, whole as a run seals it (cookies the provider refreshed, storage, IndexedDB): a check
    // must never seal back less than it found.
    const { session } = boundSession(await captureSession(page.context(), providerOrigin));
    if (!session) return { kind: 'unreachable', reason: 'the session is too large to seal back' };
    return { kind: 'signed_in', session };
  }

  /**
   * The session ended: a silent re-login with the connection's passkey or its stored credentials, its session proven like
   * the first; else LOGIN_REQUIRED.
   */
  private async renew(
    connection: ConnectionRecord,
    provider: ProviderDefinition,
    presence: Presence,
    ended: string,
    signal: AbortSignal,
    cost: ProbeCost,
  ): Promise<ProbeVerdict> {
    let credentials: ReturnType<SessionProbeDeps['connections']['openCredentials']>;
    try {
      credentials = this.deps.relogin ? this.deps.connections.openCredentials(connection) : null;
    } catch {
      credentials = null; // unreadable credentials renew nothing
    }
    // A passkey of the connection's own renews without any password (a passkey-first account has none stored).
    if (!this.deps.relogin || (!credentials && !connection.sealedPasskey))
      return { kind: 'login_required', reason: `${ended}; no credentials or passkey are stored for a silent re-login` };
    if (signal.aborted) return { kind: 'unreachable', reason: 'the check was stopped' };
    const relogin = await this.deps.relogin.relogin({
      requestId: `check_${connection.id}_${randomBytes(4).toString('hex')}`,
      provider,
      organizationId: connection.organizationId,
      environment: connection.environment,
      credentials,
      connection,
      device: presence.device,
      exitProxy: presence.exitProxy,
    });
    if (!relogin.ok) {
      return relogin.retryable
        ? { kind: 'unreachable', reason: `${ended}; ${relogin.reason}` }
        : { kind: 'login_required', reason: `${ended}; ${relogin.reason}` };
    }
    const seen = await this.lookAt(relogin.storageState, connection, provider, presence, signal, cost);
    if (seen.kind === 'signed_in') return { kind: 'renewed', session: seen.session };
    if (seen.kind === 'unreachable') return seen;
    return { kind: 'login_required', reason: `${ended}; after the re-login ${seen.reason}` };
  }
}

/** A declared session cookie absent from the stored state, or expired: why the session ended; null when none is. */
function missingCookie(session: ProviderSession, provider: ProviderDefinition): string | null {
  const names = provider.signedIn?.cookies ?? [];
  if (names.length === 0) return null;
  const nowSeconds = Date.now() / 1000;
  // Chromium drops an expired cookie when the context loads it, so it is as good as absent (expires -1: a session cookie).
  const live = new Set(session.cookies.filter((c) => c.expires === -1 || c.expires > nowSeconds).map((c) => c.name));
  const missing = names.find((n) => !live.has(n));
  return missing ? `the session cookie ${missing} is missing or expired` : null;
}

/** Whether recognising a signed-in page needs its document: an element to find, or no signedIn declaration to go by. */
function needsDocument(provider: ProviderDefinition): boolean {
  const s = provider.signedIn;
  if (!s || !(s.cookies?.length || s.urlPattern || s.element)) return true;
  return !!s.element;
}

function safeUrl(href: string): URL | null {
  try {
    return new URL(href);
  } catch {
    return null;
  }
}

/** Sums Chromium's own count of each finished request's bytes (a DevTools call per request: only when asked). */
function countBytes(context: BrowserContext, cost: ProbeCost): { settled(): Promise<void> } {
  const pending: Promise<void>[] = [];
  context.on('requestfinished', (request) => {
    cost.requests += 1;
    pending.push(
      request
        .sizes()
        .then((s) => {
          cost.bytes += s.requestHeadersSize + s.requestBodySize + s.responseHeadersSize + s.responseBodySize;
        })
        .catch(() => undefined),
    );
  });
  return { settled: () => Promise.allSettled(pending).then(() => undefined) };
}
