import net from 'node:net';
import os from 'node:os';

import ipaddr from 'ipaddr.js';

import type { AppConfig, Environment } from '../config';
import type { ProviderDefinition } from '../providers/provider';
import { isLocalhostName, isNonPublicHost, nonPublicRange } from './addresses';

/**
 * The one place that decides where a browser context working for a provider may connect: the starting URL, the
 * `navigate` tool, every request of an agent run or a sign-in (through the egress proxy), all ask this module.
 *
 * Matching is exact: scheme (ws/wss count as http/https), host and port, with default ports made explicit. A
 * provider's `allowedOrigins` are exact host names on the home URL's scheme and port, or full origins with their own
 * (`https://accounts.example.com`, `http://127.0.0.1:4100`); `*.example.com` (any subdomain of example.com, not the
 * name itself) only where a provider declares it. Its `identityProviders` are added for a sign-in only (in the sandbox,
 * each may be local on exactly its declared host and port). Host names
 * are compared in WHATWG URL's canonical form (lower case, IDN as punycode, IPv4 in dotted decimal). In production
 * nothing reaches a local or private address. In the sandbox, an organization's own provider (the one kind whose site
 * a tenant names) may reach a local address only on loopback and never on this service's own ports; private
 * ranges only where the operator allows them (AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow), metadata and link-local never.
 */
export type DenialKind = 'invalid' | 'scheme' | 'credentials' | 'host' | 'port' | 'non-public';
export type EgressVerdict = { ok: true } | { ok: false; kind: DenialKind; reason: string };

export type EgressProvider = Pick<ProviderDefinition, 'name' | 'homeUrl' | 'allowedOrigins' | 'identityProviders' | 'source'>;

/**
 * What the policy knows of the machine it runs on, for organizations' sandbox providers. Set once by the composition
 * root (buildServices: hostNetworkOf(config)); a policy may be given its own (tests).
 */
export interface HostNetwork {
  /** The ports this service is reached on (PORT, AGENTLINK_INTERNAL_URL's, AGENTLINK_PUBLIC_URL's, a remote browser's DevTools). */
  ownPorts: readonly number[];
  /** AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow: an organization's sandbox provider may reach private ranges too. */
  privateNetwork: boolean;
}

/**
 * `signIn`: the browser is signing in, so the provider's identity providers are reachable too. `network`: this
 * policy's host network instead of the process's (configureHostNetwork).
 */
export interface EgressOptions {
  signIn?: boolean;
  network?: HostNetwork;
}

let processNetwork: HostNetwork = { ownPorts: [], privateNetwork: false };

/** The process's host network, from its configuration (called by the composition root). */
export function configureHostNetwork(network: HostNetwork): void {
  processNetwork = { ownPorts: [...new Set(network.ownPorts)], privateNetwork: network.privateNetwork };
}

const portOf = (url: string) => {
  const u = new URL(url);
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
};

/** A PostgreSQL URL's port (5432 when it names none; 0 when it cannot be read, e.g. a socket path). */
function postgresPort(url: string): number {
  try {
    return new URL(url).port ? Number(new URL(url).port) : 5432;
  } catch {
    return 0;
  }
}

/** The host network a configuration describes: every port the service is reached on, and the operator's choice. */
export function hostNetworkOf(
  config: Pick<AppConfig, 'port' | 'internalUrl' | 'publicUrl' | 'sandboxPrivateNetwork'> &
    Partial<Pick<AppConfig, 'browser' | 'database' | 'model' | 'tracing'>>,
): HostNetwork {
  // A remote browser's DevTools port (BROWSER_WS_ENDPOINT) is this service's too: its pages must not drive it.
  const devtools = config.browser?.wsEndpoint ? [portOf(config.browser.wsEndpoint.replace(/^ws/, 'http'))] : [];
  // So are the services it talks to (its PostgreSQL, its model server, its trace collector): a tenant's sandbox site,
  // or an identity provider it declares on loopback, must not reach them from the browser.
  const backends = [
    config.database?.type === 'postgres' ? postgresPort(config.database.url) : 0,
    config.model ? portOf(config.model.baseUrl) : 0,
    config.tracing ? portOf(config.tracing.tracesUrl) : 0,
  ];
  const ports = [config.port, portOf(config.internalUrl), portOf(config.publicUrl), ...devtools, ...backends].filter((p) => p > 0);
  return { ownPorts: [...new Set(ports)], privateNetwork: config.sandboxPrivateNetwork === 'allow' };
}

/** The only local range an organization's sandbox provider reaches by default (its test site on this machine). */
const TENANT_LOCAL = new Set(['loopback']);
/** What AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow adds: private networks (never metadata, link-local, 0.0.0.0 …). */
const TENANT_PRIVATE_NETWORK = new Set(['private', 'carrier-grade NAT', 'site-local']);

const normalized = (address: string) => ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')).toString();

/** Is this address one of this machine's own (an interface's, where the service also listens on 0.0.0.0)? */
function isOwnInterface(address: string): boolean {
  const target = normalized(address);
  return Object.values(os.networkInterfaces()).some((list) =>
    (list ?? []).some((i) => net.isIP(i.address.replace(/%.*$/, '')) && normalized(i.address) === target),
  );
}

interface AllowedOrigin {
  /** `http:` or `https:` (WebSockets are matched as their HTTP scheme). */
  scheme: string;
  /** Exact host, or `.example.com` for the wildcard `*.example.com`. */
  host: string;
  wildcard: boolean;
  port: number;
}

const WEB_SCHEME: Record<string, string> = { 'http:': 'http:', 'https:': 'https:', 'ws:': 'http:', 'wss:': 'https:' };
const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };
/** Schemes whose requests never leave the page (inline data, the page's own blobs, blank documents). */
const PAGE_LOCAL = new Set(['data:', 'blob:', 'about:']);

const deny = (kind: DenialKind, reason: string): EgressVerdict => ({ ok: false, kind, reason });

/** A host (canonical, IPv6 without brackets) and port as one key. */
const endpoint = (host: string, port: number) => `${host}|${port}`;

/** A declared host name in canonical form (lower case, punycode, no trailing dot). */
export function canonicalHostName(name: string): string {
  const bare = name.trim().replace(/\.$/, '');
  const host = new URL(`http://${net.isIPv6(bare) ? `[${bare}]` : bare}/`).hostname;
  return host.replace(/^\[|\]$/g, '');
}

/** Does `host` (canonical) match a declared entry: the exact name, or for `*.example.com` a subdomain of it? */
export function hostMatchesDomain(host: string, declared: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (declared.startsWith('*.')) return h.endsWith(`.${canonicalHostName(declared.slice(2))}`);
  return h === canonicalHostName(declared);
}

export class EgressPolicy {
  readonly origins: readonly AllowedOrigin[];
  private readonly home: { host: string; port: number };
  /** Sandbox only: the exact host:port pairs that may resolve to a local address (the site, a sign-in's identity providers). */
  private readonly localEndpoints: Set<string>;
  /** An organization's sandbox provider: its host names are a tenant's choice (see tenantRule). */
  private readonly tenant: boolean;
  private readonly network: HostNetwork;

  private constructor(
    private readonly provider: EgressProvider,
    readonly environment: Environment,
    opts: EgressOptions,
  ) {
    this.tenant = provider.source === 'organization' && environment === 'sandbox';
    this.network = opts.network ?? processNetwork;
    const home = new URL(provider.homeUrl);
    const scheme = WEB_SCHEME[home.protocol];
    const port = home.port ? Number(home.port) : DEFAULT_PORT[scheme];
    this.home = { host: home.hostname.replace(/^\[|\]$/g, ''), port };
    const entries = [...provider.allowedOrigins, ...(opts.signIn ? (provider.identityProviders ?? []) : [])];
    this.origins = entries.map((d) => {
      if (d.includes('://')) {
        const o = new URL(d);
        const s = WEB_SCHEME[o.protocol];
        return {
          scheme: s,
          port: o.port ? Number(o.port) : DEFAULT_PORT[s],
          wildcard: false,
          host: canonicalHostName(o.hostname.replace(/^\[|\]$/g, '')),
        };
      }
      const wildcard = d.startsWith('*.');
      return { scheme, port, wildcard, host: wildcard ? `.${canonicalHostName(d.slice(2))}` : canonicalHostName(d) };
    });
    // A simulated identity provider lives on this machine too, exactly like the simulated site itself: on the port
    // it was declared with (a developer's app on :3000 and its Keycloak on :8080), or on the site's own.
    const identityHosts = opts.signIn ? (provider.identityProviders ?? []) : [];
    this.localEndpoints = new Set([
      endpoint(this.home.host, port),
      ...identityHosts
        .filter((d) => !d.startsWith('*.'))
        .map((d) => {
          if (!d.includes('://')) return endpoint(canonicalHostName(d), port);
          const o = new URL(d);
          return endpoint(
            canonicalHostName(o.hostname.replace(/^\[|\]$/g, '')),
            o.port ? Number(o.port) : DEFAULT_PORT[WEB_SCHEME[o.protocol]],
          );
        }),
    ]);
  }

  static forProvider(provider: EgressProvider, environment: Environment, opts: EgressOptions = {}): EgressPolicy {
    return new EgressPolicy(provider, environment, opts);
  }

  /** Where a sign-in may go: the provider's domains plus the identity providers its SSO passes through. */
  static forSignIn(provider: EgressProvider, environment: Environment, opts: Omit<EgressOptions, 'signIn'> = {}): EgressPolicy {
    return new EgressPolicy(provider, environment, { ...opts, signIn: true });
  }

  /** The host:port pairs that may be local, for messages (`127.0.0.1:4655`, `127.0.0.1:8080`). */
  private describeLocal(): string {
    return [...this.localEndpoints].map((e) => e.replace('|', ':')).join(', ');
  }

  /** The allowed origins, for messages (`http://orbit.sandbox.localhost:4000`). */
  describe(): string {
    return this.origins.map((o) => `${o.scheme}//${o.wildcard ? `*${o.host}` : o.host}:${o.port}`).join(', ');
  }

  /**
   * May the browser request this URL? `pageLocal` (browser traffic only) lets data:, blob: and about: through: they
   * never leave the page. The starting URL and the navigate tool accept http(s) only.
   */
  checkUrl(input: string | URL, opts: { pageLocal?: boolean; webSockets?: boolean } = {}): EgressVerdict {
    let url: URL;
    try {
      url = typeof input === 'string' ? new URL(input) : input;
    } catch {
      return deny('invalid', 'not an absolute URL');
    }
    if (opts.pageLocal && PAGE_LOCAL.has(url.protocol)) return { ok: true };
    const scheme = WEB_SCHEME[url.protocol];
    const webSocket = url.protocol === 'ws:' || url.protocol === 'wss:';
    if (!scheme || (webSocket && !opts.webSockets)) return deny('scheme', `${url.protocol} URLs are not allowed`);
    if (url.username || url.password) return deny('credentials', 'URLs carrying credentials are not allowed');
    const port = url.port ? Number(url.port) : DEFAULT_PORT[scheme];
    return this.checkHostPort(url.hostname, port, scheme);
  }

  /** May the browser open a tunnel (CONNECT host:port, for https and WebSockets) to this authority? */
  checkTunnel(authority: string): EgressVerdict {
    let url: URL;
    try {
      url = new URL(`http://${authority}`);
    } catch {
      return deny('invalid', 'not a host:port');
    }
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash || !/:\d+$/.test(authority)) {
      return deny('invalid', 'not a host:port');
    }
    return this.checkHostPort(url.hostname, url.port ? Number(url.port) : 80, null);
  }

  private checkHostPort(hostname: string, port: number, scheme: string | null): EgressVerdict {
    const host = hostname.replace(/^\[|\]$/g, '');
    // A trailing dot names the same DNS entry but another site to virtual hosts (it reached our own dashboard): refused, not stripped.
    if (host.endsWith('.')) return deny('host', `${host} is not written in its canonical form (trailing dot)`);
    if (this.environment === 'production' && isNonPublicHost(host)) return deny('non-public', `${host} is a local or private host`);
    const sameHost = this.origins.filter((o) => (o.wildcard ? host.endsWith(o.host) : host === o.host));
    if (sameHost.length === 0) return deny('host', `${host} is not an allowed domain of ${this.provider.name}`);
    if (!sameHost.some((o) => o.port === port)) return deny('port', `port ${port} is not ${this.provider.name}'s`);
    if (scheme && !sameHost.some((o) => o.port === port && o.scheme === scheme)) {
      return deny(
        'scheme',
        `${scheme.slice(0, -1)} is not the scheme of ${this.provider.name}'s site (${sameHost[0].scheme.slice(0, -1)})`,
      );
    }
    // An allowed literal or *.localhost name is its address already: refused here, before any lookup or connection.
    if (this.tenant && (net.isIP(host) || isLocalhostName(host))) {
      const why = this.tenantRule(net.isIP(host) ? host : '127.0.0.1', port);
      if (why) return deny('non-public', `${host}:${port}: ${why}`);
    }
    return { ok: true };
  }

  /**
   * The address rule for one connection to an allowed host:port, as a function of each resolved address (null:
   * may connect). Production: public addresses only. Sandbox: a local address only for exactly the provider's
   * own host and port (its simulated site on this machine) and, in a sign-in, its declared identity providers on
   * exactly their declared host and port (the site's port for a bare host name), never for anything else. An
   * organization's sandbox provider, in addition: see tenantRule (never this service's own ports).
   */
  addressRule(hostname: string, port: number): (address: string) => string | null {
    const host = hostname.replace(/^\[|\]$/g, '');
    if (this.environment === 'production') return nonPublicRange;
    const declared = this.localEndpoints.has(endpoint(host, port));
    return (address) => {
      const tenantWhy = this.tenant ? this.tenantRule(address, port) : null;
      if (tenantWhy) return tenantWhy;
      const range = nonPublicRange(address);
      return range && !declared ? `${range}, and only ${this.describeLocal()} may be local` : null;
    };
  }

  /**
   * The address rule for the upstream proxy a context's traffic leaves through (a connection's exit). The proxy is a
   * hop every request takes, and its address is the caller's choice, so it is judged like a destination a tenant
   * names: production reaches public addresses only; the sandbox also loopback (a test proxy on this machine), but
   * never this service's own ports, metadata or link-local, and private ranges only where the operator allows them.
   * The destinations behind it are still checked one by one (checkUrl, checkTunnel, addressRule). Null: may connect.
   */
  upstreamProxyRule(port: number): (address: string) => string | null {
    if (this.environment === 'production') return nonPublicRange;
    return (address) => this.tenantRule(address, port);
  }

  /**
   * An organization's sandbox provider names its own site, so on a shared deployment a tenant could point this
   * process's browser at its neighbours: it may reach public addresses and loopback, but never this service's own
   * ports (its API, /metrics, the internal relay), and never metadata, link-local or private ranges, unless the
   * operator allows private networks (AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow; this machine's own ports stay
   * refused on its interface addresses, public or private). Null: may connect.
   */
  private tenantRule(address: string, port: number): string | null {
    const range = nonPublicRange(address);
    const ownPort = this.network.ownPorts.includes(port);
    // This machine's public address reaches the service from itself (which some deployments trust): refused too.
    if (range === null) return ownPort && isOwnInterface(address) ? `port ${port} on this machine is AgentLink's own` : null;
    if (TENANT_LOCAL.has(range)) return ownPort ? `port ${port} on this machine is AgentLink's own` : null;
    if (this.network.privateNetwork && TENANT_PRIVATE_NETWORK.has(range)) {
      return ownPort && isOwnInterface(address) ? `port ${port} on this machine is AgentLink's own` : null;
    }
    return this.network.privateNetwork || !TENANT_PRIVATE_NETWORK.has(range)
      ? `${range}: an organization's sandbox provider may not reach ${range} addresses`
      : `${range}: an organization's sandbox provider may reach loopback only (the operator allows private networks with AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow)`;
  }
}
