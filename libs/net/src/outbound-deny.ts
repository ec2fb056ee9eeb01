import { BlockList, isIP, SocketAddress } from 'node:net';
import { accept, type Parsed, refuse } from '@certkeeper/domain';

/**
 * What OUTBOUND_DENY means when unset (docs/architecture.md, Outbound connections): the addresses
 * through which a cloud machine reads its own credentials. Link-local IPv4 covers AWS, GCP, Azure
 * and Oracle at 169.254.169.254 and ECS task metadata at 169.254.170.2; link-local IPv6 and AWS's
 * IPv6 metadata address follow; 100.100.100.200 is Alibaba Cloud's. None of them is a host anyone
 * tracks certificates of, so the default breaks nothing while closing the classic forgery target.
 */
export const OUTBOUND_DENY_DEFAULTS: readonly string[] = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128', '100.100.100.200/32'];

interface DenyRule {
  cidr: string;
  blockList: BlockList;
}

/**
 * Addresses and CIDR blocks nothing outbound may reach. Matching is Node's `BlockList`, which
 * compares an IPv4-mapped IPv6 address (::ffff:169.254.169.254) as the IPv4 address it carries,
 * so a mapped address cannot slip past an IPv4 entry. A NAT64 address (64:ff9b::a9fe:a9fe) is
 * checked as the IPv4 address it carries too, since a NAT64 gateway connects to that address;
 * `BlockList` does not know the prefix, so entryFor does it.
 */
export class OutboundDenyList {
  static readonly DEFAULT = new OutboundDenyList(OUTBOUND_DENY_DEFAULTS);
  static readonly NONE = new OutboundDenyList([]);

  private readonly rules: readonly DenyRule[];
  /** Every entry in one list: an allowed address, the common case, costs one check, not one per entry. */
  private readonly everyRule = new BlockList();

  private constructor(readonly cidrs: readonly string[]) {
    this.rules = cidrs.map((cidr) => ({ cidr, blockList: addSubnet(new BlockList(), cidr) }));
    for (const cidr of cidrs) addSubnet(this.everyRule, cidr);
  }

  /** The entries, comma-separated, or `none`: a value OUTBOUND_DENY reads back as this same list. */
  toString(): string {
    return this.cidrs.length === 0 ? 'none' : this.cidrs.join(',');
  }

  /** The entry `address` (an IP literal) falls in, or null when it is allowed or not an IP address. */
  entryFor(address: string): string | null {
    const family = isIP(address);
    if (family === 0) return null;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const embedded = family === 6 ? nat64Ipv4(address) : null;
    // The address as itself first: an IPv6 entry covering the NAT64 prefix names itself.
    return this.entryMatching(address, type) ?? (embedded === null ? null : this.entryMatching(embedded, 'ipv4'));
  }

  private entryMatching(address: string, type: 'ipv4' | 'ipv6'): string | null {
    if (!this.everyRule.check(address, type)) return null;
    return this.rules.find((rule) => rule.blockList.check(address, type))?.cidr ?? null;
  }

  static of(cidrs: readonly string[]): OutboundDenyList {
    return new OutboundDenyList([...new Set(cidrs)]);
  }
}

/**
 * OUTBOUND_DENY: entries separated by commas or white space, each an IPv4 or IPv6 address or CIDR
 * block. The value replaces the default list; the word `default` stands for it (so
 * `default,10.0.0.0/8` adds to it) and `none`, alone, turns the guard off. Problems say which
 * entry is wrong, never what it holds (the environment-reader convention of libs/domain).
 */
export function parseOutboundDeny(raw: string): Parsed<OutboundDenyList> {
  const words = raw
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
  if (words.length === 0) return accept(OutboundDenyList.DEFAULT);
  if (words.includes('none')) return words.length === 1 ? accept(OutboundDenyList.NONE) : refuse('"none" must stand alone');
  const cidrs: string[] = [];
  for (const [index, word] of words.entries()) {
    if (word === 'default') {
      cidrs.push(...OUTBOUND_DENY_DEFAULTS);
      continue;
    }
    const cidr = canonicalCidr(word);
    if (cidr === null) return refuse(`entry ${index + 1} is not an IPv4 or IPv6 address or CIDR block (such as 10.0.0.0/8 or fc00::/7)`);
    cidrs.push(cidr);
  }
  return accept(OutboundDenyList.of(cidrs));
}

/** `address/prefix` with the address in Node's canonical spelling, or null when `word` is not one. */
function canonicalCidr(word: string): string | null {
  const [address, prefixText, extra] = word.split('/');
  const family = isIP(address);
  // A zone (fe80::1%eth0) names an interface of this machine, not a range of addresses.
  if (family === 0 || extra !== undefined || address.includes('%')) return null;
  const longest = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? longest : Number(prefixText);
  if (prefix > longest) return null;
  const canonical = new SocketAddress({ address, family: family === 4 ? 'ipv4' : 'ipv6' }).address;
  return `${canonical}/${prefix}`;
}

/** The NAT64 well-known prefix (RFC 6052): its last 32 bits are the IPv4 address a gateway connects to. */
const NAT64_PREFIX = new BlockList();
NAT64_PREFIX.addSubnet('64:ff9b::', 96, 'ipv6');

/** The IPv4 address a NAT64 address carries (`64:ff9b::a9fe:a9fe` is 169.254.169.254), or null for any other IPv6 address. */
function nat64Ipv4(address: string): string | null {
  if (!NAT64_PREFIX.check(address, 'ipv6')) return null;
  // Node's canonical spelling is hexadecimal groups with at most one '::', whatever the input was.
  const groups = ipv6Groups(new SocketAddress({ address, family: 'ipv6' }).address);
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address written in hexadecimal groups (no dotted tail, no zone). */
function ipv6Groups(canonical: string): number[] {
  const [head, tail] = canonical.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function addSubnet(blockList: BlockList, cidr: string): BlockList {
  const [address, prefix] = cidr.split('/');
  blockList.addSubnet(address, Number(prefix), isIP(address) === 4 ? 'ipv4' : 'ipv6');
  return blockList;
}
