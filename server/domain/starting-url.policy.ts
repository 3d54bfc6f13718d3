import net from 'node:net';

import type { Environment } from '../config';
import { EgressPolicy } from '../egress/egress-policy';
import type { ProviderDefinition } from '../providers/catalogue';

export { isNonPublicHost as isPrivateOrLocalHost } from '../egress/addresses';
export { hostMatchesDomain } from '../egress/egress-policy';

/**
 * Where an agent may begin: an absolute http(s) URL without credentials on exactly one of the provider's origins
 * (scheme, host, port), as the egress policy (server/egress/) decides for the run's browser traffic too, so the two
 * cannot disagree. Production additionally refuses IP literals and anything local or private.
 */
export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * The provider's egress policy, built once per declaration: every agent request checks its starting URL, and building
 * the policy (parsing and canonicalising each allowed origin) cost more than the rest of the check. Keyed by what the
 * policy is built from, so a provider whose declaration changes gets a new one; bounded, as organizations add providers.
 */
const policies = new Map<string, EgressPolicy>();
const MAX_POLICIES = 1_000;

function policyFor(provider: ProviderDefinition, environment: Environment): EgressPolicy {
  const key = JSON.stringify([environment, provider.source ?? null, provider.homeUrl, provider.allowedOrigins]);
  let policy = policies.get(key);
  if (!policy) {
    if (policies.size >= MAX_POLICIES) policies.clear();
    policy = EgressPolicy.forProvider(provider, environment);
    policies.set(key, policy);
  }
  return policy;
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
  if (environment === 'production' && net.isIP(hostname)) return { ok: false, reason: 'startingUrl must name a host, not an IP address' };
  const policy = policyFor(provider, environment);
  const verdict = policy.checkUrl(url);
  if (verdict.ok) return { ok: true, url };
  switch (verdict.kind) {
    case 'non-public':
      return { ok: false, reason: 'startingUrl must not point at a local or private host' };
    case 'host':
      return {
        ok: false,
        reason: `startingUrl host ${hostname} is not one of ${provider.name}'s domains (${provider.allowedOrigins.join(', ')})`,
      };
    case 'port':
      return { ok: false, reason: `startingUrl port ${url.port || (url.protocol === 'https:' ? 443 : 80)} is not ${provider.name}'s` };
    default:
      return { ok: false, reason: `startingUrl is not on ${provider.name}'s site (${policy.describe()}): ${verdict.reason}` };
  }
}
