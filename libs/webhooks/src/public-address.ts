import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * The SSRF rule (docs/adr/0020): webhooks go to public addresses only. The classes come from
 * ipaddr.js's range table (kept in step with the IANA special-purpose registries); this module
 * names them, looks inside the IPv6 forms that carry an IPv4 address, and fails closed on any
 * range it does not know.
 */

export type AddressVerdict = { public: true } | { public: false; reason: string };

export const NOT_AN_IP = 'not an IP address';

/** Ranges ipaddr.js names that are globally reachable (IANA: AS112 and AMT are public anycast). */
const PUBLIC_RANGES = new Set(['unicast', 'as112', 'amt', 'as112v6']);

const IPV4_LABELS: Record<string, string> = {
  unspecified: 'this-network address', // 0.0.0.0/8; 0.0.0.0 itself is labelled below
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address',
  private: 'private address',
  reserved: 'reserved address',
};

const IPV6_LABELS: Record<string, string> = {
  unspecified: 'unspecified address',
  linkLocal: 'link-local address',
  multicast: 'multicast address',
  loopback: 'loopback address',
  uniqueLocal: 'private address (unique local)',
  deprecatedSiteLocal: 'site-local address',
  discard: 'discard-only address',
  benchmarking: 'benchmarking address',
  deprecatedOrchid: 'ORCHID address',
  orchid2: 'ORCHID address',
  segmentRouting: 'segment routing address',
  reserved: 'reserved address',
};

/** Finer names for parts of ipaddr.js's wide `reserved` ranges: the reason is read by developers. */
const NAMED_BLOCKS = (
  [
    // Cloud metadata services. All are inside a refused range already (link-local, CGNAT, ULA);
    // named so the reason says what was hit. 100.100.100.200 is Alibaba's (CGNAT), fd00:ec2::254 AWS's IPv6 IMDS (ULA).
    ['169.254.169.254/32', 'cloud metadata address'],
    ['169.254.170.2/32', 'cloud metadata address'],
    ['100.100.100.200/32', 'cloud metadata address'],
    ['fd00:ec2::254/128', 'cloud metadata address'],
    ['0.0.0.0/32', 'unspecified address'],
    ['192.0.0.0/24', 'IETF protocol assignment address'],
    ['192.0.2.0/24', 'documentation address'],
    ['198.51.100.0/24', 'documentation address'],
    ['203.0.113.0/24', 'documentation address'],
    ['198.18.0.0/15', 'benchmarking address'],
    ['192.88.99.0/24', '6to4 relay anycast address'],
    ['2001:db8::/32', 'documentation address'],
    ['3fff::/20', 'documentation address'],
  ] as const
).map(([cidr, label]): [ipaddr.IPv4 | ipaddr.IPv6, number, string] => {
  const [network, bits] = ipaddr.parseCIDR(cidr);
  return [network, bits, label];
});

/** IPv6 global unicast: ipaddr.js calls everything outside its special ranges `unicast`, unallocated space included. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** RFC 8215 local-use NAT64: it translates to whatever the local network decides, so refused whole. */
const LOCAL_USE_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');
/** Deprecated IPv4-compatible IPv6 (::a.b.c.d, RFC 4291); ::/128 and ::1 are matched before it. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Non-public: loopback, private (RFC 1918, ULA), link-local (cloud metadata included), CGNAT,
 * multicast, unspecified, broadcast, reserved and documentation ranges, and the IPv4-mapped,
 * IPv4-compatible, NAT64, 6to4 and Teredo forms of those. reason: e.g. 'loopback address 127.0.0.1'.
 */
export function classifyAddress(ip: string): AddressVerdict {
  const label = nonPublicLabel(ip);
  if (label === null) return { public: true };
  return { public: false, reason: label === NOT_AN_IP ? NOT_AN_IP : `${label} ${ip}` };
}

/**
 * What makes `ip` non-public ('loopback address', 'IPv4-mapped private address', …), NOT_AN_IP
 * when it does not parse, null when it is public. Only the forms `net.isIP` accepts are
 * addresses: a socket given anything else would look it up as a name.
 */
export function nonPublicLabel(ip: string): string | null {
  if (typeof ip !== 'string' || !isIP(ip)) return NOT_AN_IP;
  const address = parse(ip);
  return address.kind() === 'ipv4' ? ipv4Label(address as ipaddr.IPv4) : ipv6Label(address as ipaddr.IPv6);
}

/** ipaddr.js reads '::a.b.c.d' as '::ffff:a.b.c.d'; a socket reads it as the IPv4-compatible ::a.b.c.d (RFC 4291). */
const IPV4_COMPATIBLE_TEXT = /^::(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(%.*)?$/;

function parse(ip: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const compatible = IPV4_COMPATIBLE_TEXT.exec(ip);
  if (!compatible) return ipaddr.parse(ip);
  const [a, b, c, d] = ipaddr.IPv4.parse(compatible[1]).octets;
  return new ipaddr.IPv6([0, 0, 0, 0, 0, 0, (a << 8) | b, (c << 8) | d]);
}

/** 'a loopback address', 'an IPv4-mapped …': for reasons written as sentences. */
export function withArticle(label: string): string {
  return `${/^[aeiou]/i.test(label) ? 'an' : 'a'} ${label}`;
}

function ipv4Label(address: ipaddr.IPv4): string | null {
  const range = address.range();
  if (PUBLIC_RANGES.has(range)) return null;
  return namedBlock(address) ?? IPV4_LABELS[range] ?? `special-purpose address (${range})`;
}

function ipv6Label(address: ipaddr.IPv6): string | null {
  const range = address.range();
  const [, p1, p2, p3, , , p6, p7] = address.parts;
  switch (range) {
    case 'ipv4Mapped':
      return embedded('IPv4-mapped', p6, p7);
    case 'rfc6145':
      return embedded('IPv4-translated', p6, p7);
    case 'rfc6052':
      return address.match(LOCAL_USE_NAT64) ? 'local-use NAT64 address' : embedded('NAT64', p6, p7);
    case '6to4':
      return embedded('6to4', p1, p2);
    case 'teredo':
      // Teredo carries the server's IPv4 in clear and the client's inverted: both must be public.
      return embedded('Teredo', p2, p3) ?? embedded('Teredo', ~p6 & 0xffff, ~p7 & 0xffff);
  }
  if (range === 'unicast' && address.match(IPV4_COMPATIBLE)) return embedded('IPv4-compatible', p6, p7) ?? 'deprecated IPv4-compatible address';
  if (PUBLIC_RANGES.has(range)) {
    if (!address.match(GLOBAL_UNICAST)) return 'reserved address';
    return namedBlock(address);
  }
  return namedBlock(address) ?? IPV6_LABELS[range] ?? `special-purpose address (${range})`;
}

/** The label of the IPv4 address in the two 16-bit groups `high`, `low`, prefixed by the form; null when public. */
function embedded(form: string, high: number, low: number): string | null {
  const inner = ipv4Label(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]));
  return inner === null ? null : `${form} ${inner}`;
}

function namedBlock(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  for (const [network, bits, label] of NAMED_BLOCKS) {
    if (network.kind() === address.kind() && address.match(network, bits)) return label;
  }
  return null;
}
