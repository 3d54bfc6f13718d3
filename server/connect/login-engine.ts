import type { BrowserContext, Page } from 'playwright-core';

import { deviceForBrowser, deviceIdentity } from '../browser/device-identity';
import type { DeviceProfile } from '../browser/device-profile';
import { evaluateIsolated } from '../browser/isolated-world';
import { captureSession } from '../browser/session-capture';
import { boundSession, type ProviderSession } from '../browser/session-format';
import type { Environment } from '../config';
import { EgressPolicy } from '../egress/egress-policy';
import { type ContextSource, openFencedContext, openPage } from '../egress/fenced-context';
import type { RequestSigner } from '../egress/request-signing';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import type { ProviderDefinition } from '../providers/catalogue';
import type { CodeStep } from '../providers/login-recipe';
import { anyMatch, errorName, locate, onAllowedHost, waitForNewDocument, watchSettled } from './login-page';

export { anyMatch, locate } from './login-page';

/**
 * The login engine: signs in to a provider's real login page in Chromium, following the provider's recipe
 * (server/providers/*), and says what happened. When the provider asks for a code or a human check, the live
 * page waits in memory (bounded in number and time) until the widget relays the person's answer.
 *
 * The engine never logs and never stores: the username and password go into the provider's form and
 * nowhere else; on success the caller receives the session (all of the provider origins' storage: cookies,
 * localStorage, IndexedDB, sessionStorage) and the device the sign-in presented, for the connection to keep.
 */
export type MfaMethod = 'totp' | 'sms';
/** What a sign-in captures: the provider session to seal (server/browser/session-format.ts). */
export type StorageState = ProviderSession;

export type LoginOutcome =
  /** `device`: who the browser said it was (null only for a browser that cannot tell its version). */
  | { kind: 'success'; storageState: StorageState; device: DeviceProfile | null; carry?: unknown }
  | { kind: 'invalid_credentials' }
  | { kind: 'locked' }
  /** The provider asks for a code; `rejected`: it refused the code just submitted (the same step may be retried). */
  | { kind: 'mfa'; method: MfaMethod; rejected: boolean }
  /** The provider gave up on the code step (too many wrong codes). */
  | { kind: 'mfa_failed' }
  | { kind: 'human_check' }
  /**
   * The recipe met a step it does not know (SSO hop, captcha, passkey or device prompt, an unknown page): the page
   * is kept as it is, for the live view to take over (handOver) so the person finishes on the real page.
   */
  | { kind: 'unknown_step'; reason: string }
  /** The page could not be reached or was not recognised; `reason` is ours, never page content. */
  | { kind: 'unavailable'; reason: string }
  /** No login is waiting under this key (it timed out, was cancelled, or lived in another process). */
  | { kind: 'expired' };

export interface LoginInput {
  provider: ProviderDefinition;
  organizationId: string;
  environment: Environment;
  username: string;
  password: string;
  /** Opaque value kept with a waiting login and handed back with its success (e.g. credentials to seal). */
  carry?: unknown;
  /**
   * The device to sign in from: the connection's own (update mode, silent re-login). Absent: one is drawn for this
   * sign-in, and handed back with its success for the new connection to keep.
   */
  device?: DeviceProfile | null;
  /** The connection's exit (upstream proxy), so the provider sees the sign-in come from where its runs come from. */
  exitProxy?: UpstreamProxy | null;
  /** Web Bot Auth: signs every request of the sign-in, where the organization and the provider opted in (absent: unsigned). */
  signer?: RequestSigner | null;
}

export interface LoginEngineOptions {
  /** How long a login waits for the person's code or human check (default 5 minutes). */
  pendingTtlMs?: number;
  /** At most this many logins wait at once, each holding a browser context (default 50). */
  maxPending?: number;
  /** Budget for recognising the page after an action, and for each browser action (default 20 s). */
  stepTimeoutMs?: number;
  /** A page the recipe does not know counts as such once it stood still this long (default login-page.ts SETTLED_UNKNOWN_MS). */
  settledUnknownMs?: number;
  /** At most this many sign-ins drive a page at once (default 8); more wait for a slot. */
  maxConcurrentStarts?: number;
  /** How long a sign-in waits for a free slot before the provider is reported unavailable (default 10 s). */
  startQueueTimeoutMs?: number;
}

/** What the engine needs of the browser manager. */
export type { ContextSource } from '../egress/fenced-context';

interface Waiting {
  context: BrowserContext;
  page: Page;
  provider: ProviderDefinition;
  step: MfaMethod | 'human_check' | 'unknown_step';
  carry: unknown;
  device: DeviceProfile | null;
  timer: NodeJS.Timeout;
  busy: boolean;
}

/** A sign-in's own parts, kept with a login that waits for its person. */
type SignIn = Pick<Waiting, 'context' | 'page' | 'provider' | 'carry' | 'device'>;

type Phase = 'credentials' | 'code' | 'human';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unavailable = (reason: string): LoginOutcome => ({ kind: 'unavailable', reason });
const unknownStep = (reason: string): LoginOutcome => ({ kind: 'unknown_step', reason });

export class LoginEngine {
  private readonly waiting = new Map<string, Waiting>();
  private readonly ttlMs: number;
  private readonly maxPending: number;
  private readonly stepTimeoutMs: number;
  private readonly maxConcurrentStarts: number;
  private readonly startQueueTimeoutMs: number;
  /** Sign-ins driving a page right now, and those queued for a slot. */
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly browsers: ContextSource,
    private readonly opts: LoginEngineOptions = {},
  ) {
    this.ttlMs = opts.pendingTtlMs ?? 5 * 60_000;
    this.maxPending = opts.maxPending ?? 50;
    this.stepTimeoutMs = opts.stepTimeoutMs ?? 20_000;
    this.maxConcurrentStarts = Math.max(1, opts.maxConcurrentStarts ?? 8);
    this.startQueueTimeoutMs = opts.startQueueTimeoutMs ?? 10_000;
  }

  /** Logins waiting for an answer right now. */
  get pendingCount(): number {
    return this.waiting.size;
  }

  isWaiting(key: string): boolean {
    return this.waiting.has(key);
  }

  /** Sign-ins driving a page right now (bounded by maxConcurrentStarts). */
  get runningCount(): number {
    return this.running;
  }

  /** Waits for a free slot; false when none frees up within startQueueTimeoutMs. */
  private async acquire(): Promise<boolean> {
    if (this.running < this.maxConcurrentStarts) {
      this.running++;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        this.running++;
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = this.queue.indexOf(grant);
        if (i >= 0) this.queue.splice(i, 1);
        resolve(false);
      }, this.startQueueTimeoutMs);
      timer.unref?.();
      this.queue.push(grant);
    });
  }

  private release(): void {
    this.running--;
    this.queue.shift()?.();
  }

  /** Runs another kind of sign-in (a passkey's: passkey-sign-in.ts) in one of the same bounded slots; `busy()` when none frees up. */
  async inSlot<T>(fn: (browsers: ContextSource, stepTimeoutMs: number) => Promise<T>, busy: () => T): Promise<T> {
    if (!(await this.acquire())) return busy();
    try {
      return await fn(this.browsers, this.stepTimeoutMs);
    } finally {
      this.release();
    }
  }

  /** Opens the provider's login page, fills in the credentials, submits, and reports what the provider did. */
  async start(key: string, input: LoginInput): Promise<LoginOutcome> {
    if (!(await this.acquire())) return unavailable('too many sign-ins are running at once');
    try {
      return await this.startNow(key, input);
    } finally {
      this.release();
    }
  }

  private async startNow(key: string, input: LoginInput): Promise<LoginOutcome> {
    await this.cancel(key); // a new attempt replaces a waiting one
    if (this.waiting.size >= this.maxPending) return unavailable('too many sign-ins are waiting for an answer');
    const { provider } = input;
    const recipe = provider.login;
    if (!recipe) return unknownStep('the provider has no sign-in recipe');
    let context: BrowserContext;
    let device: DeviceProfile | null;
    try {
      device = await deviceForBrowser(this.browsers, input.device ?? null, key);
      // The sign-in page is fenced like an agent run: every connection through the provider's egress proxy.
      context = await openFencedContext(this.browsers, {
        policy: EgressPolicy.forSignIn(provider, provider.environment),
        onBlocked: () => undefined,
        ...(device ? { identity: deviceIdentity(device) } : { options: { viewport: { width: 1280, height: 900 }, locale: 'en-US' } }),
        ...(input.exitProxy ? { upstreamProxy: input.exitProxy } : {}),
        ...(input.signer ? { signer: input.signer } : {}),
      });
    } catch {
      return unavailable('the browser could not start');
    }
    let parked = false;
    const signIn = (page: Page, carry: unknown): SignIn => ({ context, page, provider, carry, device });
    try {
      const page = await openPage(context);
      page.setDefaultTimeout(this.stepTimeoutMs);
      page.setDefaultNavigationTimeout(this.stepTimeoutMs);
      const startUrl = provider.loginStartUrl?.(provider.loginUrl, input) ?? provider.loginUrl;
      if (!EgressPolicy.forSignIn(provider, provider.environment).checkUrl(startUrl).ok) {
        return unavailable('the sign-in page is outside the provider’s domains');
      }
      let status: number | undefined;
      try {
        status = (await page.goto(startUrl, { waitUntil: 'domcontentloaded' }))?.status();
      } catch {
        return unavailable('the sign-in page could not be reached');
      }
      if (status !== undefined && status >= 500) return unavailable(`the sign-in page answered HTTP ${status}`);
      if (!onAllowedHost(page, provider)) return unavailable('the sign-in page is outside the provider’s domains');

      const username = locate(page, recipe.form.username);
      try {
        await username.waitFor({ state: 'visible' });
      } catch {
        const outcome = unknownStep('the sign-in form was not found');
        parked = this.park(key, outcome, signIn(page, undefined));
        return outcome;
      }
      await username.fill(input.username);
      if (recipe.form.next) {
        const next = recipe.form.next;
        await locate(page, next).click();
      }
      await locate(page, recipe.form.password).fill(input.password);
      const outcome = await this.act(page, provider, 'credentials', () => locate(page, recipe.form.submit).click());
      parked = this.park(key, outcome, signIn(page, input.carry));
      return this.withExtras(outcome, signIn(page, input.carry));
    } catch (err) {
      return unavailable(`the sign-in page did not behave as expected (${errorName(err)})`);
    } finally {
      if (!parked) await context.close().catch(() => undefined);
    }
  }

  /** Relays the person's code to the waiting code step. */
  async submitCode(key: string, code: string): Promise<LoginOutcome> {
    return this.resume(
      key,
      (w) => w.step === 'totp' || w.step === 'sms',
      async (w) => {
        const step = codeStep(w.provider, w.step as MfaMethod);
        if (!step) return unavailable('the provider has no code step');
        await locate(w.page, step.code).fill(code);
        return this.act(w.page, w.provider, 'code', () => locate(w.page, step.submit).click());
      },
    );
  }

  /** Relays the person's "I'm a person" confirmation to the waiting human check. */
  async confirmHuman(key: string): Promise<LoginOutcome> {
    return this.resume(
      key,
      (w) => w.step === 'human_check',
      async (w) => {
        const check = w.provider.login?.humanCheck;
        if (!check) return unavailable('the provider has no human check');
        await locate(w.page, check.checkbox).click();
        return this.act(w.page, w.provider, 'human', () => locate(w.page, check.submit).click());
      },
    );
  }

  /**
   * Takes a login parked at a step the recipe does not know out of the engine, page and all, for the live view:
   * from then on the live view owns (and closes) the context. Null when none waits under this key.
   */
  handOver(key: string, opts: { anyStep?: boolean } = {}): { context: BrowserContext; page: Page; device: DeviceProfile | null } | null {
    const w = this.waiting.get(key);
    // anyStep: a run's user takes over a code or human-check step too (silent re-login inside a run).
    if (!w || w.busy || (w.step !== 'unknown_step' && !opts.anyStep)) return null;
    this.waiting.delete(key);
    clearTimeout(w.timer);
    return { context: w.context, page: w.page, device: w.device };
  }

  /** Drops a waiting login (the person left, or started again). */
  async cancel(key: string): Promise<void> {
    const w = this.waiting.get(key);
    if (!w) return;
    this.waiting.delete(key);
    clearTimeout(w.timer);
    await w.context.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.all([...this.waiting.keys()].map((k) => this.cancel(k)));
  }

  // ---------- internals ----------

  private async resume(key: string, accepts: (w: Waiting) => boolean, fn: (w: Waiting) => Promise<LoginOutcome>): Promise<LoginOutcome> {
    const w = this.waiting.get(key);
    if (!w || w.busy || !accepts(w)) return { kind: 'expired' };
    w.busy = true;
    clearTimeout(w.timer);
    this.waiting.delete(key);
    let parked = false;
    try {
      const outcome = await fn(w);
      parked = this.park(key, outcome, w);
      return this.withExtras(outcome, w);
    } catch (err) {
      return unavailable(`the provider's page did not behave as expected (${errorName(err)})`);
    } finally {
      if (!parked) await w.context.close().catch(() => undefined);
    }
  }

  /** Keeps the live page when the provider waits for the person; true when it was kept. */
  private park(key: string, outcome: LoginOutcome, w: SignIn): boolean {
    const step =
      outcome.kind === 'mfa' ? outcome.method : outcome.kind === 'human_check' || outcome.kind === 'unknown_step' ? outcome.kind : null;
    if (!step) return false;
    const timer = setTimeout(() => void this.cancel(key), this.ttlMs);
    timer.unref();
    this.waiting.set(key, { ...w, step, timer, busy: false });
    return true;
  }

  /** A success carries what the caller asked to have back, and the device the sign-in presented. */
  private withExtras(outcome: LoginOutcome, w: Pick<SignIn, 'carry' | 'device'>): LoginOutcome {
    if (outcome.kind !== 'success') return outcome;
    return { ...outcome, device: w.device, ...(w.carry !== undefined ? { carry: w.carry } : {}) };
  }

  /**
   * Performs an action that submits something, waits until the browser shows a new document (or a moment
   * passes, for pages that update in place), then reads the page until one of the recipe's signals holds.
   */
  private async act(page: Page, provider: ProviderDefinition, phase: Phase, action: () => Promise<void>): Promise<LoginOutcome> {
    // The document is known by when it began (performance.timeOrigin, new with each document): nothing of ours is
    // left in the page for its scripts to find, as a marker on the window would be.
    const began = await evaluateIsolated(page, () => performance.timeOrigin, undefined).catch(() => null);
    await action();
    await waitForNewDocument(page, began, 3_000);
    return this.classify(page, provider, phase);
  }

  private async classify(page: Page, provider: ProviderDefinition, phase: Phase): Promise<LoginOutcome> {
    const recipe = provider.login;
    if (!recipe) return unknownStep('the provider has no sign-in recipe');
    const started = Date.now();
    const deadline = started + this.stepTimeoutMs;
    const still = watchSettled(page, this.opts.settledUnknownMs);
    try {
      for (;;) {
        if (!onAllowedHost(page, provider)) return unavailable('the provider sent the browser outside its domains');
        if (await anyMatch(page, recipe.success)) {
          const policy = EgressPolicy.forSignIn(provider, provider.environment);
          // Bounded like a run's: the largest storage goes first; a session whose cookies alone do not fit is not kept.
          const { session } = boundSession(await captureSession(page.context(), (origin) => policy.checkUrl(origin).ok));
          if (!session) return unavailable('the provider keeps more in the browser than a connection can store');
          return { kind: 'success', storageState: session, device: null };
        }
        if (await anyMatch(page, recipe.locked)) return { kind: 'locked' };
        if (recipe.humanCheck && (await anyMatch(page, recipe.humanCheck.when))) return { kind: 'human_check' };
        for (const method of ['totp', 'sms'] as const) {
          const step = codeStep(provider, method);
          if (!step || !(await anyMatch(page, step.when))) continue;
          if (phase !== 'code') return { kind: 'mfa', method, rejected: false };
          // After a code was submitted, still being asked for one means it was not accepted.
          if ((await anyMatch(page, step.rejected)) || Date.now() - started > 2_000) return { kind: 'mfa', method, rejected: true };
        }
        if (recipe.mfaFailed && (await anyMatch(page, recipe.mfaFailed))) return { kind: 'mfa_failed' };
        if (await anyMatch(page, recipe.invalidCredentials)) return { kind: 'invalid_credentials' };
        if (Date.now() > deadline) return unknownStep('the page after signing in was not recognised');
        if (still.settled()) return unknownStep('the page after signing in was not recognised (it had stopped changing)');
        await sleep(100);
      }
    } finally {
      still.stop();
    }
  }
}

function codeStep(provider: ProviderDefinition, method: MfaMethod): CodeStep | undefined {
  return provider.login?.mfa?.[method];
}
