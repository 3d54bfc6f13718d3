import type { Environment } from '../config';
import { isNonPublicHost } from '../egress/addresses';
import { canonicalHostName } from '../egress/egress-policy';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import { fail, ok, type Result } from './errors';

/**
 * A connection's exit: the upstream proxy its browser traffic leaves through (PATCH /api/connections/{id}). Checked
 * here for what can be known without connecting; where it resolves to is judged at each run by the egress policy
 * (upstreamProxyRule), like every destination.
 */
export interface ExitProxyInput {
  /** `http://host:port`: an HTTP proxy that accepts CONNECT. */
  url: string;
  username?: string;
  password?: string;
  /** What the API and the dashboard show of it (default: host:port). */
  label?: string;
}

export interface CheckedExitProxy {
  proxy: UpstreamProxy;
  label: string;
}

const refuse = (why: string) => fail<CheckedExitProxy>('UPSTREAM_PROXY_NOT_ALLOWED', `upstreamProxy.url ${why}.`);

export function checkExitProxy(input: ExitProxyInput, environment: Environment): Result<CheckedExitProxy> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return refuse('is not an absolute URL');
  }
  if (url.protocol !== 'http:')
    return refuse('must be http://host:port (an HTTP proxy that accepts CONNECT; https:// proxies are not supported)');
  if (url.username || url.password)
    return refuse('must not carry credentials: send them as upstreamProxy.username and upstreamProxy.password');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return refuse('must be only a scheme, host and port');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host || host.endsWith('.')) return refuse('must name a host in its canonical form');
  // Production browser traffic reaches only public addresses: its exit too (the address is checked again at each run).
  if (environment === 'production' && isNonPublicHost(host)) return refuse(`names ${host}, a local or private host`);
  const port = url.port ? Number(url.port) : 80;
  const hasUser = input.username !== undefined;
  if (hasUser !== (input.password !== undefined)) {
    return fail('INVALID_FIELD', 'upstreamProxy: give both username and password, or neither.', [
      { path: hasUser ? 'upstreamProxy.password' : 'upstreamProxy.username', message: 'required with the other one' },
    ]);
  }
  // Basic authentication joins the two with a colon: one in the username would move the boundary.
  if (input.username?.includes(':')) {
    return fail('INVALID_FIELD', 'upstreamProxy.username must not contain ":".', [
      { path: 'upstreamProxy.username', message: 'must not contain ":"' },
    ]);
  }
  const proxy: UpstreamProxy = {
    host: canonicalHostName(host),
    port,
    ...(hasUser ? { username: input.username, password: input.password } : {}),
  };
  const shownHost = host.includes(':') ? `[${proxy.host}]` : proxy.host;
  return ok({ proxy, label: input.label ?? `${shownHost}:${port}` });
}

/** A sealed exit proxy as stored, checked before a browser is sent through it. */
export function readExitProxy(value: unknown): UpstreamProxy {
  const p = value as Partial<UpstreamProxy> | null;
  if (!p || typeof p.host !== 'string' || !Number.isInteger(p.port) || (p.port as number) < 1 || (p.port as number) > 65535) {
    throw new Error('not an exit proxy');
  }
  const withUser = typeof p.username === 'string' && typeof p.password === 'string';
  return { host: p.host, port: p.port as number, ...(withUser ? { username: p.username, password: p.password } : {}) };
}
