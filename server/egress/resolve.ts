import dns from 'node:dns';
import net from 'node:net';

import { isLocalhostName, nonPublicRange } from './addresses';

/** Resolves a host name to every address it has. Injectable so tests never ask real DNS. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/**
 * The system's resolver, except that `localhost` and `*.localhost` are this machine without asking (RFC 6761):
 * the sandbox's simulated sites live there, and no DNS server may move them.
 */
export const systemResolver: Resolver = async (hostname) => {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) return [{ address: host, family: net.isIP(host) }];
  if (isLocalhostName(host)) return [{ address: '127.0.0.1', family: 4 }];
  return dns.promises.lookup(host, { all: true, verbatim: true });
};

export type Resolution = { ok: true; address: string; family: number } | { ok: false; reason: string; unresolved?: boolean };

/**
 * Resolves once and checks EVERY address (a name with one public and one private address is refused: the
 * connection could land on either). The address returned is the one to connect to: the caller never looks the
 * name up again, so a second answer (DNS rebinding) cannot move it.
 */
export async function resolveChecked(
  hostname: string,
  mayReach: (address: string) => string | null,
  resolver: Resolver = systemResolver,
): Promise<Resolution> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  try {
    addresses = await resolver(host);
  } catch (err) {
    const code = (err as { code?: string })?.code ?? 'lookup failed';
    return { ok: false, reason: `could not resolve ${host}: ${code}`, unresolved: true };
  }
  if (addresses.length === 0) return { ok: false, reason: `could not resolve ${host}`, unresolved: true };
  for (const { address } of addresses) {
    const why = mayReach(address);
    if (why) return { ok: false, reason: `${host} resolves to ${address} (${why})` };
  }
  return { ok: true, address: addresses[0].address, family: addresses[0].family };
}

/** For production targets: every address must be public. */
export const publicOnly = (address: string): string | null => nonPublicRange(address);
