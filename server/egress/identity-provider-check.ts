import net from 'node:net';

import type { Environment } from '../config';
import { isLocalhostName } from './addresses';
import { type EgressOptions, EgressPolicy, type EgressProvider } from './egress-policy';

export interface IdentityProviderIssue {
  /** Index in identityProviders. */
  index: number;
  entry: string;
  /** Why the sign-in's egress policy would block it, in the policy's own words. */
  reason: string;
}

/**
 * The declared identity providers that the sign-in's own egress policy would block, judged when the provider is
 * declared instead of in the widget, mid sign-in. The policy is asked exactly as the sign-in will ask it: checkUrl
 * for the origin, then the address rule for an address known without a lookup (an IP literal; `localhost` and
 * `*.localhost`, which are this machine). In the sandbox a declared identity provider may be local on exactly its
 * declared host and port (an IdP on another loopback port beside the app); what an organization's provider may not
 * reach (a private range, this service's own ports) is refused here with the policy's reason. Names that need DNS are
 * judged when the browser connects, as always.
 */
export function identityProviderIssues(
  provider: EgressProvider,
  environment: Environment,
  opts: Omit<EgressOptions, 'signIn'> = {},
): IdentityProviderIssue[] {
  const entries = provider.identityProviders ?? [];
  if (entries.length === 0) return [];
  const policy = EgressPolicy.forSignIn(provider, environment, opts);
  const home = new URL(provider.homeUrl);
  const issues: IdentityProviderIssue[] = [];
  entries.forEach((entry, index) => {
    if (entry.startsWith('*.')) return; // a wildcard names no one host to judge
    const url = new URL(entry.includes('://') ? entry : `${home.protocol}//${entry}${home.port ? `:${home.port}` : ''}/`);
    const verdict = policy.checkUrl(url);
    if (!verdict.ok) return issues.push({ index, entry, reason: verdict.reason });
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const address = net.isIP(host) ? host : isLocalhostName(host) ? '127.0.0.1' : null;
    if (!address) return;
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const why = policy.addressRule(url.hostname, port)(address);
    if (why) issues.push({ index, entry, reason: `${host}:${port}: ${why}` });
  });
  return issues;
}
