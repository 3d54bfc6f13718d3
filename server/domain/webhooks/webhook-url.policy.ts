import net from 'node:net';

import ipaddr from 'ipaddr.js';

import type { AppConfig, Environment } from '../../config';
import { isNonPublicHost } from '../../egress/addresses';
import { publicOnly, resolveChecked, type Resolver, systemResolver } from '../../egress/resolve';

/**
 * Where deliveries may go. https only; plain http only to a loopback host (localhost, 127.0.0.0/8, ::1) and only
 * when AgentLink does not run with NODE_ENV=production (development and tests). Production-environment endpoints,
 * and every endpoint of a NODE_ENV=production deployment, never point at this machine or a private network.
 */
export type WebhookUrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return net.isIP(host) !== 0 && ipaddr.process(host).range() === 'loopback';
}

/** Endpoints that must never reach this machine or a private network (checked on the URL here, and on the resolved address at delivery). */
export function targetsMustBePublic(environment: Environment, nodeEnv: AppConfig['nodeEnv']): boolean {
  return environment === 'production' || nodeEnv === 'production';
}

export function checkWebhookUrl(raw: string, environment: Environment, nodeEnv: AppConfig['nodeEnv']): WebhookUrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'url must use https' };
  if (url.username || url.password) return { ok: false, reason: 'url must not carry credentials' };
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && !(loopback && nodeEnv !== 'production')) {
    return {
      ok: false,
      reason:
        nodeEnv === 'production'
          ? 'url must use https'
          : 'url must use https (plain http is accepted only for loopback hosts in development)',
    };
  }
  if (targetsMustBePublic(environment, nodeEnv) && isNonPublicHost(url.hostname)) {
    return {
      ok: false,
      reason: `url must not point at a local or private host${environment === 'production' ? ' for production endpoints' : ''}`,
    };
  }
  return { ok: true, url };
}

/**
 * Registration: the URL's rules, then, where targets must be public, the host resolved and every address checked
 * (the egress module's rule), so an endpoint that points inward is refused now rather than retried for days. A
 * name that does not resolve yet is accepted: each delivery resolves again and fails at once on a non-public address.
 */
export async function checkWebhookTarget(
  raw: string,
  environment: Environment,
  nodeEnv: AppConfig['nodeEnv'],
  resolver: Resolver = systemResolver,
): Promise<WebhookUrlVerdict> {
  const verdict = checkWebhookUrl(raw, environment, nodeEnv);
  if (!verdict.ok || !targetsMustBePublic(environment, nodeEnv)) return verdict;
  const resolved = await resolveChecked(verdict.url.hostname, publicOnly, resolver);
  if (!resolved.ok && !resolved.unresolved)
    return { ok: false, reason: `url must not point at a local or private address: ${resolved.reason}` };
  return verdict;
}
