import type { BrowserContext, Page } from 'playwright-core';

import { deviceForBrowser, deviceIdentity } from '../../browser/device-identity';
import type { DeviceProfile } from '../../browser/device-profile';
import type { VirtualCredential } from '../../browser/webauthn-environment';
import { fail, ok, type Result } from '../../domain/errors';
import { EgressPolicy } from '../../egress/egress-policy';
import { type ContextSource, openFencedContext, openPage } from '../../egress/fenced-context';
import type { ProviderDefinition } from '../../providers/provider';
import type { LinkSessionService, LiveSignInPort, SignInIdentity } from '../link-session.service';
import type { StorageState } from '../login-engine';
import type { WidgetSize } from './frame-size';
import { DEFAULT_LIVE_VIEWPORT, type InputMessage, LIVE_VIEWPORT } from './live-protocol';
import { LiveSession, type LiveSink } from './live-session';
import { holdPasskeyCreation, type PasskeyAsk } from './passkey-consent';

/**
 * The live sign-ins of this process: at most one per link session (a widget that reconnects, or opens the view
 * twice, joins the same one), at most `maxSessions` at once (each holds a browser context), each ending when idle.
 * A storage state captured at the signed-in signal waits here (bounded in time) until the widget asks the link
 * session service to finish, which seals it exactly like the recipe path.
 */
export interface LiveSignInOptions {
  maxSessions: number;
  idleMs: number;
  /** How long a captured signed-in state waits for the widget to finish the flow (default 2 minutes). */
  signedInTtlMs?: number;
}

interface SignedIn {
  state: StorageState;
  device: DeviceProfile | null;
  passkey?: VirtualCredential;
  timer: NodeJS.Timeout;
}

export class LiveSignIn implements LiveSignInPort {
  private readonly sessions = new Map<string, LiveSession>();
  /** Openings in flight, so two sockets of one link session cannot open two browsers. */
  private readonly opening = new Map<string, Promise<Result<LiveSession>>>();
  private readonly signedIn = new Map<string, SignedIn>();
  /** The socket attached to each live sign-in now (a passkey question goes to it). */
  private readonly sinks = new Map<string, LiveSink>();
  /** A site's passkey request waiting for the person's answer, per live sign-in (one at a time). */
  private readonly asks = new Map<string, PasskeyAsk>();
  /** The passkey the person allowed AgentLink to keep, until the sign-in finishes (sealed then, with the connection). */
  private readonly passkeys = new Map<string, VirtualCredential>();

  constructor(
    private readonly deps: { browsers: ContextSource; linkSessions: LinkSessionService; sandboxTenantToken?: SandboxTicket },
    private readonly opts: LiveSignInOptions,
  ) {}

  /** Live sessions open right now (a gauge, and what the per-process bound counts). */
  get openCount(): number {
    return this.sessions.size + this.opening.size;
  }

  /**
   * The live page itself, for tests and the bench: they play the person, who sees where things are on the page; they
   * still act only through the widget's streamed view.
   */
  inspect(linkSessionId: string): Page | null {
    return this.sessions.get(linkSessionId)?.livePage ?? null;
  }

  /** Whether the link session has a live page to join. One that has ended is not (its browser may still be closing). */
  has(linkSessionId: string): boolean {
    const session = this.sessions.get(linkSessionId);
    return !!session && !session.isEnded;
  }

  /**
   * The widget's socket, authorised by the link token: attaches it to the link session's live browser, opening one
   * when there is none. A widget that comes back after the sign-in is told so again (it then finishes the flow). The
   * page is drawn at the provider's declared liveViewport (default DEFAULT_LIVE_VIEWPORT), whatever the widget's size
   * (`widget`, which only sizes the first frames): a desktop app laid out for a phone-sized window is cut off; the
   * widget scales the frames instead.
   */
  async connect(linkToken: string, linkSessionId: string, widget: WidgetSize, sink: LiveSink): Promise<Result<void>> {
    const auth = await this.deps.linkSessions.authorizeLive(linkToken, linkSessionId);
    if (!auth.ok) return auth;
    if (this.signedIn.has(linkSessionId)) {
      sink.send({ type: 'status', code: 'SIGNED_IN', message: 'Signed in.' });
      return ok(undefined);
    }
    this.sinks.set(linkSessionId, sink);
    const existing = this.sessions.get(linkSessionId);
    if (existing && !existing.isEnded) {
      existing.attach(sink);
      const ask = this.asks.get(linkSessionId);
      if (ask) sink.send({ type: 'passkey', host: ask.host });
      return ok(undefined);
    }
    let opening = this.opening.get(linkSessionId);
    if (!opening) {
      if (this.openCount >= this.opts.maxSessions) {
        return fail('LIVE_SESSIONS_FULL', 'Too many people are signing in right now. Try again in a minute.');
      }
      // Recorded first: a widget call for this session that reaches another API process is relayed here.
      const claimed = this.deps.linkSessions.claimHost(linkSessionId);
      const viewport = clampViewport(auth.value.provider.liveViewport ?? DEFAULT_LIVE_VIEWPORT);
      opening = claimed.then(() => this.open(linkSessionId, auth.value, viewport, widget));
      this.opening.set(linkSessionId, opening);
      void opening.finally(() => this.opening.delete(linkSessionId));
    }
    const opened = await opening;
    if (!opened.ok) return opened;
    opened.value.attach(sink);
    return ok(undefined);
  }

  /** Input from a socket: relayed only from the one attached now (a replaced socket is ignored). */
  input(linkSessionId: string, sink: LiveSink, message: InputMessage): boolean {
    const session = this.sessions.get(linkSessionId);
    if (!session || !session.isAttached(sink)) return false;
    if (message.t === 'passkey') return this.decidePasskey(linkSessionId, sink, message.allow);
    return session.input(message);
  }

  /** The socket went away; the session stays for its idle window, for the widget to come back. */
  detach(linkSessionId: string, sink: LiveSink): void {
    if (this.sinks.get(linkSessionId) === sink) this.sinks.delete(linkSessionId);
    this.sessions.get(linkSessionId)?.detach(sink);
  }

  /**
   * The site asks to create a passkey (only where the organization opted in: the hold is installed then): the person
   * is asked in the widget, outside the page. A second request while one waits is refused at once.
   */
  private askPasskey(linkSessionId: string, ask: PasskeyAsk, provider: ProviderDefinition): void {
    // The passkey is for the provider's own site: a page of another host (an identity provider's) gets no window.
    const host = ask.host.toLowerCase();
    const ours = provider.allowedOrigins.some((h) => host === h.toLowerCase() || host.endsWith(`.${h.toLowerCase()}`));
    if (!ours || this.asks.has(linkSessionId)) return void ask.decline();
    this.asks.set(linkSessionId, ask);
    this.sinks.get(linkSessionId)?.send({ type: 'passkey', host: ask.host });
  }

  private decidePasskey(linkSessionId: string, sink: LiveSink, allow: boolean): boolean {
    const ask = this.asks.get(linkSessionId);
    if (!ask) return true;
    this.asks.delete(linkSessionId);
    sink.send({ type: 'passkey', host: ask.host, done: true });
    if (!allow) return (void ask.decline(), true);
    void ask.allow().then(
      (credential) => {
        if (credential && credential.rpId && this.sessions.has(linkSessionId)) this.passkeys.set(linkSessionId, credential);
      },
      () => undefined,
    );
    return true;
  }

  async close(linkSessionId: string): Promise<void> {
    const s = this.signedIn.get(linkSessionId);
    if (s) {
      clearTimeout(s.timer);
      this.signedIn.delete(linkSessionId);
    }
    const opened = await this.opening.get(linkSessionId)?.catch(() => null);
    if (opened?.ok) await opened.value.end('LIVE_SESSION_CLOSED', 'The sign-in was closed.');
    await this.sessions.get(linkSessionId)?.end('LIVE_SESSION_CLOSED', 'The sign-in was closed.');
  }

  takeSignedIn(linkSessionId: string): { state: StorageState; device: DeviceProfile | null } | null {
    const s = this.signedIn.get(linkSessionId);
    if (!s) return null;
    clearTimeout(s.timer);
    this.signedIn.delete(linkSessionId);
    return { state: s.state, device: s.device, ...(s.passkey ? { passkey: s.passkey } : {}) };
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys(), ...this.opening.keys()].map((id) => this.close(id)));
  }

  // ---------- internals ----------

  private async open(
    linkSessionId: string,
    auth: {
      provider: ProviderDefinition;
      organizationId: string;
      expiresAt: Date;
      handedOver: boolean;
      identity: SignInIdentity;
      enrollPasskey: boolean;
    },
    viewport: { width: number; height: number },
    widget: WidgetSize,
  ): Promise<Result<LiveSession>> {
    const { provider } = auth;
    const policy = EgressPolicy.forSignIn(provider, provider.environment);
    let session: LiveSession | null = null;
    let pending: string | null = null;
    const onBlocked = (url: string) => (session ? session.blocked(url) : (pending = url));
    // A page the recipe left at a step it does not know is taken over as it is; else a fresh fenced context.
    let taken: { context: BrowserContext; page: Page; device: DeviceProfile | null } | null = auth.handedOver
      ? this.deps.linkSessions.takeHandedOverPage(linkSessionId)
      : null;
    let startUrl: string | null = null;
    if (!taken) {
      try {
        // The person signs in as the device the connection will present (its own, in update mode); at a desktop size.
        const device = await deviceForBrowser(this.deps.browsers, auth.identity.device, linkSessionId);
        const context = await openFencedContext(this.deps.browsers, {
          policy,
          onBlocked: (block) => onBlocked(block.url),
          ...(device ? { identity: deviceIdentity(device) } : {}),
          ...(auth.identity.exitProxy ? { upstreamProxy: auth.identity.exitProxy } : {}),
          ...(auth.identity.signer ? { signer: auth.identity.signer } : {}),
          // No touch emulation: the device is a desktop in the live view as in its runs (a person's taps still reach the
          // page, as CDP touch events, which need no emulation).
          options: { viewport, ...(device ? {} : { locale: 'en-US' }) },
        });
        // Nothing the page does may read the person's clipboard: no permission is granted, and none can be.
        await context.clearPermissions();
        taken = { context, page: await openPage(context), device };
      } catch {
        return fail('PROVIDER_UNAVAILABLE', 'The secure browser could not start. Try again in a moment.');
      }
      startUrl = this.startUrl(provider, auth.organizationId);
      if (!policy.checkUrl(startUrl).ok) {
        await taken.context.close().catch(() => undefined);
        return fail('PROVIDER_UNAVAILABLE', 'The sign-in page is outside the provider’s domains.');
      }
    }
    try {
      // Only with the organization's opt-in does a site's create() wait for the person; else it is refused at once.
      if (auth.enrollPasskey) await holdPasskeyCreation(taken.context, (ask) => this.askPasskey(linkSessionId, ask, provider));
      session = await LiveSession.start({
        linkSessionId,
        context: taken.context,
        page: taken.page,
        provider,
        policy,
        startUrl,
        viewport,
        widget,
        idleMs: this.opts.idleMs,
        until: auth.expiresAt,
        events: {
          onSignedIn: (state) => this.keepSignedIn(linkSessionId, state, taken.device),
          onEnded: (code, message) => {
            if (this.sessions.get(linkSessionId) === session) this.sessions.delete(linkSessionId);
            void this.asks.get(linkSessionId)?.decline();
            this.asks.delete(linkSessionId);
            if (code === 'LIVE_SESSION_TIMED_OUT') void this.deps.linkSessions.liveEnded(linkSessionId, 'LIVE_SESSION_TIMED_OUT', message);
          },
        },
      });
    } catch {
      await taken.context.close().catch(() => undefined);
      return fail('PROVIDER_UNAVAILABLE', 'The sign-in page could not be opened. Try again in a moment.');
    }
    if (pending) session.blocked(pending);
    this.sessions.set(linkSessionId, session);
    return ok(session);
  }

  /** The provider's start URL where it has one (e.g. the sandbox's ticket into the organization's copy), else loginUrl. */
  private startUrl(provider: ProviderDefinition, organizationId: string): string {
    if (provider.loginStartUrl) return provider.loginStartUrl(provider.loginUrl, { organizationId, environment: provider.environment });
    return this.deps.sandboxTenantToken?.(provider, organizationId) ?? provider.loginUrl;
  }

  private keepSignedIn(linkSessionId: string, state: StorageState, device: DeviceProfile | null): void {
    const timer = setTimeout(() => this.signedIn.delete(linkSessionId), this.opts.signedInTtlMs ?? 120_000);
    timer.unref();
    const passkey = this.passkeys.get(linkSessionId);
    this.passkeys.delete(linkSessionId);
    this.signedIn.set(linkSessionId, { state, device, ...(passkey ? { passkey } : {}), timer });
  }
}

/** The sign-in URL with a sandbox ticket into the organization's copy, for simulated providers without a recipe. */
export type SandboxTicket = (provider: ProviderDefinition, organizationId: string) => string | null;

function clampViewport(v: { width: number; height: number }): { width: number; height: number } {
  const clamp = (n: number, lo: number, hi: number) => Math.round(Math.min(hi, Math.max(lo, n)));
  return {
    width: clamp(v.width, LIVE_VIEWPORT.minWidth, LIVE_VIEWPORT.maxWidth),
    height: clamp(v.height, LIVE_VIEWPORT.minHeight, LIVE_VIEWPORT.maxHeight),
  };
}
