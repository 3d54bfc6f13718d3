import net from 'node:net';

import ipaddr from 'ipaddr.js';

import type { Environment } from '../config';
import type { ProviderDefinition } from '../providers/catalogue';

/**
 * Where an agent may begin. The URL must be absolute http(s), carry no credentials, and its host must be
 * one of the provider's allowed domains (or a subdomain of one) on a default port or the provider's own.
 * Production additionally refuses anything that points at this machine or a private network, so a caller
 * cannot aim our browser at internal services.
 */
export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

const LOCAL_NAME = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

export function isPrivateOrLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    const addr = ipaddr.process(host);
    return addr.range() !== 'unicast';
  }
  return LOCAL_NAME.test(host);
}

export function hostMatchesDomain(hostname: string, domain: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  const d = domain.toLowerCase();
  return h === d || h.endsWith(`.${d}`);
}

export function checkStartingUrl(raw: string, provider: ProviderDefinition, environment: Environment): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'startingUrl must be an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'startingUrl must use http or https' };
  }
  if (url.username || url.password) return { ok: false, reason: 'startingUrl must not carry credentials' };
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (environment === 'production') {
    if (net.isIP(hostname)) return { ok: false, reason: 'startingUrl must name a host, not an IP address' };
    if (isPrivateOrLocalHost(hostname)) return { ok: false, reason: 'startingUrl must not point at a local or private host' };
  }
  if (!provider.allowedDomains.some((d) => hostMatchesDomain(hostname, d))) {
    return {
      ok: false,
      reason: `startingUrl host ${hostname} is not one of ${provider.name}'s domains (${provider.allowedDomains.join(', ')})`,
    };
  }
  const home = new URL(provider.homeUrl);
  if (url.port && url.port !== home.port) {
    return { ok: false, reason: `startingUrl port ${url.port} is not ${provider.name}'s` };
  }
  return { ok: true, url };
}
