import net from 'node:net';

import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses and host names are public. Production browser traffic and webhooks reach only public
 * addresses: not this machine, not a private network, not a cloud metadata service, under any encoding. The
 * table is explicit (rather than ipaddr.js's range() alone) because range() calls CGNAT-adjacent, benchmarking,
 * documentation and IPv4-compatible IPv6 blocks "unicast".
 */
const NON_PUBLIC_V4: [string, string][] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.169.254/32', 'metadata'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
];

const NON_PUBLIC_V6: [string, string][] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'NAT64'],
  ['100::/64', 'discard'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['fd00:ec2::254/128', 'metadata'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
const parsed = (table: [string, string][]) => table.map(([cidr, label]) => [ipaddr.parseCIDR(cidr), label] as [Cidr, string]);
const V4 = parsed(NON_PUBLIC_V4);
const V6 = parsed(NON_PUBLIC_V6);

/** Why an address is not public (`loopback`, `private`, `metadata` …), or null when it is a public unicast address. */
export function nonPublicRange(address: string): string | null {
  const literal = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!net.isIP(literal)) return 'not an IP address';
  // process() turns ::ffff:a.b.c.d into a.b.c.d, so a mapped address is judged as the IPv4 address it reaches.
  const addr = ipaddr.process(literal);
  const table = addr.kind() === 'ipv4' ? V4 : V6;
  for (const [range, label] of table) {
    if (addr.kind() === range[0].kind() && (addr as ipaddr.IPv4).match(range as [ipaddr.IPv4, number])) return label;
  }
  const range = addr.range();
  return range === 'unicast' ? null : range;
}

/** Names that only ever mean this machine or a local network (RFC 6761 .localhost, mDNS .local, …). */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|localdomain|home\.arpa|lan|intranet|corp)$/i;

/** RFC 6761: `localhost` and every name under `.localhost` is this machine, whatever DNS would say. */
export function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** A host (name or literal) that is this machine or a private network before any lookup: refused outright in production. */
export function isNonPublicHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (net.isIP(host)) return nonPublicRange(host) !== null;
  return LOCAL_NAME.test(host);
}
