/**
 * Which addresses outbound notifications may connect to (server-side request forgery defence).
 * A user's URL may reach public unicast addresses over HTTPS. Loopback, private, link-local,
 * unique-local and carrier-grade NAT addresses — and plain HTTP — need the operator's leave
 * (`webhook_allow_private`): `true` allows every such address except the cloud metadata
 * endpoints, a list of addresses/CIDRs allows exactly those (a listed metadata address too).
 * Multicast, broadcast, unspecified and reserved addresses are never allowed; an IPv6 address
 * that embeds an IPv4 one (mapped, NAT64, 6to4, Teredo) is judged by, or refused for, what it embeds.
 */
import ipaddr from 'ipaddr.js';

/** The operator's setting: false, true, or allowed addresses/CIDRs. */
export type AllowPrivate = boolean | readonly string[];

/** A verdict on one address. */
export type AddressVerdict = { ok: true; http: boolean } | { ok: false; reason: string };

/** Addresses that answer instance credentials on clouds (AWS, GCP, Azure, ECS, Alibaba, AWS IPv6). */
const METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'].map((a) => ipaddr.parse(a).toNormalizedString());

/** Ranges `true` lets through. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat']);

/** The judge of addresses for one setting. */
export interface AddressPolicy {
  /** Whether a connection to `address` (an IP literal) is allowed, and whether plain HTTP is. */
  check(address: string): AddressVerdict;
}

/**
 * Create the policy.
 * @throws Error for a malformed CIDR (the configuration schema checks them first)
 */
export function createAddressPolicy(allow: AllowPrivate): AddressPolicy {
  const listed = Array.isArray(allow) ? allow.map((entry) => (entry.includes('/') ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number]))) : [];
  const inList = (ip: ipaddr.IPv4 | ipaddr.IPv6) =>
    listed.some(([net, bits]) => net.kind() === ip.kind() && (ip as ipaddr.IPv4).match(net as ipaddr.IPv4, bits));
  return {
    check(address) {
      let ip: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        ip = ipaddr.process(address);
      } catch {
        return { ok: false, reason: 'not an IP address' };
      }
      if (inList(ip)) return { ok: true, http: true };
      const range = ip.range();
      if (range === 'unicast') return { ok: true, http: false };
      if (METADATA.includes(ip.toNormalizedString())) return { ok: false, reason: 'a cloud metadata address' };
      if (PRIVATE_RANGES.has(range)) return allow === true ? { ok: true, http: true } : { ok: false, reason: `a ${describe(range)} address` };
      return { ok: false, reason: `a ${describe(range)} address` };
    },
  };
}

function describe(range: string): string {
  const names: Record<string, string> = {
    loopback: 'loopback', private: 'private', linkLocal: 'link-local', uniqueLocal: 'unique-local (private)', carrierGradeNat: 'shared (carrier-grade NAT)',
    unspecified: 'unspecified', multicast: 'multicast', broadcast: 'broadcast', reserved: 'reserved', rfc6052: 'NAT64', '6to4': '6to4', teredo: 'Teredo',
  };
  return names[range] ?? range;
}
