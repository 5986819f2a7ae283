import { BlockList, isIP } from 'node:net';

/**
 * The addresses an outbound request refuses unless local requests are allowed (GitLab's
 * `allow_local_requests_from_web_hooks_and_services`): loopback, private networks, link-local,
 * unspecified ("this network"), shared (carrier NAT), broadcast and multicast, in IPv4 and
 * IPv6. IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`) are checked as the IPv4 address they carry.
 */
const LOCAL_RANGES: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['255.255.255.255', 32, 'ipv4'],
  // Unspecified, loopback and the deprecated IPv4-compatible forms (::a.b.c.d).
  ['::', 96, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const LOCAL = new BlockList();
for (const [network, prefix, family] of LOCAL_RANGES) LOCAL.addSubnet(network, prefix, family);

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;
const MAPPED_IPV4_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** The IPv4 address an IPv4-mapped IPv6 address carries, else the address itself. */
function unmapped(address: string): string {
  const dotted = MAPPED_IPV4.exec(address);
  if (dotted?.[1]) return dotted[1];
  const hex = MAPPED_IPV4_HEX.exec(address);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return address;
}

/** Whether `address` (an IP literal, IPv6 without brackets) is one of the local ranges. Not an IP: true (refused). */
export function isLocalAddress(address: string): boolean {
  const plain = unmapped(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  const family = isIP(plain);
  if (family === 0) return true;
  return LOCAL.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}
