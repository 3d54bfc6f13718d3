import type { ChangeGate, ChangeSent, EgressBlock } from './change-gate';
import type { EgressPolicy } from './egress-policy';
import type { InterceptionAuthority } from './interception-authority';
import type { RequestSigner } from './request-signing';
import type { Resolver } from './resolve';
import type { UpstreamProxy } from './upstream-proxy';

/** What starting an egress proxy takes, and what it gives back (egress-proxy.ts). */
export interface EgressProxy {
  /** For Playwright: `{ server, bypass: '<-loopback>' }`. */
  readonly server: string;
  /**
   * Read mode: every message a page began on a WebSocket still open and has not finished is reported now to
   * `onBlocked`, as unreadable (cut), once each: the run is judged before it ends, its sockets may outlive it.
   */
  reportUnfinishedMessages(): void;
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  policy: EgressPolicy;
  onBlocked(block: EgressBlock): void;
  /** What may change the provider (default: anything the policy lets through). */
  gate?: ChangeGate;
  /** Told of every request that may change something and every WebSocket message, once each, before it is sent. */
  onChangeSent?(change: ChangeSent): void;
  resolver?: Resolver;
  /** Budget for connecting to the target (default 15 s). */
  connectTimeoutMs?: number;
  /** Extra roots (PEM) an upstream certificate may chain to, besides the system's (AGENTLINK_UPSTREAM_CA_FILE). */
  upstreamCa?: readonly string[];
  /** The CA that opens TLS tunnels (default: this process's). */
  authority?: InterceptionAuthority;
  /** Sets the identity headers of each request sent on (a connection's device: User-Agent, Sec-CH-UA-* …). */
  rewriteHeaders?(headers: Record<string, string | string[]>): void;
  /**
   * Requests whose destination the browser declares (`Sec-Fetch-Dest`) as one of these are answered 403 here, unsent and
   * unreported: what a context never needs (an agent run's fonts and media: server/browser/resource-filter.ts).
   */
  skipDestinations?: ReadonlySet<string>;
  /** Put in front of every worker script the context fetches (its device's prelude: worker-prelude.ts). */
  workerPrelude?: string;
  /**
   * Every connection to a target leaves through this proxy (CONNECT to the target's checked address). The proxy's own
   * address must pass the policy's upstreamProxyRule.
   */
  upstreamProxy?: UpstreamProxy;
  /**
   * Signs every request sent on, in every realm (Web Bot Auth, request-signing.ts), after rewriteHeaders: set only when
   * the context's organization and provider opted in. Absent: the proxy adds no signature.
   */
  signer?: RequestSigner;
}
