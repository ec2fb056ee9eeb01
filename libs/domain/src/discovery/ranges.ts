import { formatIpAddress, parseIpAddress } from '../x509/ip-address';

// What a discovery network may hold (docs/api-contract.md section 8): 1..64 range entries covering at most
// 65,536 addresses in all, and 1..32 unique ports, 443 when none are given.
export const MAX_NETWORK_RANGE_ENTRIES = 64;
export const MAX_NETWORK_ADDRESSES = 65_536;
export const MAX_NETWORK_PORTS = 32;
export const DEFAULT_NETWORK_PORTS: readonly number[] = [443];

export type IpFamily = 4 | 6;

/** Addresses `first..last` (inclusive) of one family, as unsigned integers. */
export interface AddressInterval {
  family: IpFamily;
  first: bigint;
  last: bigint;
}

/** One entry of `ranges`, read: its normalised text and the addresses it covers. */
export interface RangeEntry {
  kind: 'address' | 'cidr' | 'range';
  /** Normalised: canonical addresses (IPv6 per RFC 5952), a CIDR block's host bits cleared. */
  text: string;
  interval: AddressInterval;
}

/** A network's ranges and ports, checked: what a sweep iterates over and must stay inside. */
export interface NetworkScope {
  /** The entries, normalised, in the order given (duplicates kept; they are counted once). */
  ranges: string[];
  ports: number[];
  /** Disjoint, sorted (IPv4 first), adjacent intervals merged: overlapping entries count once. */
  intervals: AddressInterval[];
  /** Distinct addresses: the sweep's `addressesTotal`. */
  addressCount: number;
  /** Distinct (address, port) pairs. */
  probeCount: number;
}

/** One (address, port) of a network. */
export interface ProbeTarget {
  address: string;
  port: number;
}

/** A result or every problem found, one sentence each (one line of a 400 body per problem). */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

const FAMILY_BITS: Record<IpFamily, number> = { 4: 32, 6: 128 };
const IPV4_MAPPED_PREFIX = 0xffffn;

/**
 * An IP literal as an integer: IPv4 dotted quad (no leading zeros), IPv6 with `::` and an
 * embedded IPv4 tail. No zone ids. Null when `text` is not one.
 */
export function parseAddressValue(text: string): { family: IpFamily; value: bigint } | null {
  const octets = parseIpAddress(text);
  if (octets === null) return null;
  let value = 0n;
  for (const octet of octets) value = (value << 8n) | BigInt(octet);
  return { family: octets.length === 4 ? 4 : 6, value };
}

/**
 * The canonical text of an address: dotted quad, or RFC 5952 (lower case, longest zero run as
 * `::`, IPv4-mapped addresses in mixed notation `::ffff:192.0.2.1` as section 5 recommends).
 */
export function formatAddressValue(family: IpFamily, value: bigint): string {
  if (family === 4) {
    const n = Number(value);
    return `${n >>> 24}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`;
  }
  if (value >> 32n === IPV4_MAPPED_PREFIX) return `::ffff:${formatAddressValue(4, value & 0xffffffffn)}`;
  const octets = new Uint8Array(16);
  for (let i = 15, rest = value; i >= 0; i--, rest >>= 8n) octets[i] = Number(rest & 0xffn);
  return formatIpAddress(octets) as string;
}

/** The canonical text of an IP literal, or null when `text` is not one. */
export function normaliseAddress(text: string): string | null {
  const parsed = parseAddressValue(text.trim());
  return parsed === null ? null : formatAddressValue(parsed.family, parsed.value);
}

/**
 * One entry of `ranges`: an address, a CIDR block (host bits are cleared: `10.0.0.5/24` is
 * `10.0.0.0/24`) or a dash range `first-last` of one family. The problem is a sentence about the
 * entry without naming it; parseNetworkRanges prefixes it.
 */
export function parseRangeEntry(raw: string): { ok: true; entry: RangeEntry } | { ok: false; problem: string } {
  const text = raw.trim();
  if (text === '') return { ok: false, problem: 'is empty' };
  if (text.includes('/')) return parseCidr(text);
  if (text.includes('-')) return parseDashRange(text);
  const address = parseAddressValue(text);
  if (address === null) return { ok: false, problem: MALFORMED };
  const interval = { family: address.family, first: address.value, last: address.value };
  return { ok: true, entry: { kind: 'address', text: formatAddressValue(address.family, address.value), interval } };
}

const MALFORMED = 'is not an IPv4 or IPv6 address, a CIDR block (10.0.0.0/24, 2001:db8::/120) or a dash range (192.0.2.10-192.0.2.40)';

function parseCidr(text: string): { ok: true; entry: RangeEntry } | { ok: false; problem: string } {
  const parts = text.split('/');
  if (parts.length !== 2) return { ok: false, problem: MALFORMED };
  const address = parseAddressValue(parts[0].trim());
  const prefixText = parts[1].trim();
  if (address === null || !/^[0-9]{1,3}$/.test(prefixText)) return { ok: false, problem: MALFORMED };
  const bits = FAMILY_BITS[address.family];
  const prefix = Number(prefixText);
  if (prefix > bits) return { ok: false, problem: `has prefix /${prefix}, out of range for IPv${address.family} (0 to ${bits})` };
  const hostBits = BigInt(bits - prefix);
  const first = (address.value >> hostBits) << hostBits;
  const last = first + (1n << hostBits) - 1n;
  const interval = { family: address.family, first, last };
  return { ok: true, entry: { kind: 'cidr', text: `${formatAddressValue(address.family, first)}/${prefix}`, interval } };
}

function parseDashRange(text: string): { ok: true; entry: RangeEntry } | { ok: false; problem: string } {
  const parts = text.split('-');
  if (parts.length !== 2) return { ok: false, problem: MALFORMED };
  const first = parseAddressValue(parts[0].trim());
  const last = parseAddressValue(parts[1].trim());
  if (first === null || last === null) return { ok: false, problem: MALFORMED };
  if (first.family !== last.family) return { ok: false, problem: 'mixes IPv4 and IPv6: both ends of a range must be of one family' };
  const firstText = formatAddressValue(first.family, first.value);
  const lastText = formatAddressValue(last.family, last.value);
  if (first.value > last.value) return { ok: false, problem: `is reversed: ${firstText} comes after ${lastText}` };
  const interval = { family: first.family, first: first.value, last: last.value };
  return { ok: true, entry: { kind: 'range', text: `${firstText}-${lastText}`, interval } };
}

/**
 * `ranges` as a network holds them: 1..64 string entries covering at most 65,536 distinct
 * addresses. Every problem is reported (CONVENTIONS 15), each naming its entry (`ranges[3]`,
 * zero-based). Addresses are counted with BigInt over the merged intervals, never by expanding
 * them, so `::/0` is refused as quickly as `10.0.0.0/24` is accepted. An entry that alone exceeds
 * the cap is named; otherwise an excess over all entries is one problem about `ranges`.
 */
export function parseNetworkRanges(input: unknown): Checked<{ ranges: string[]; intervals: AddressInterval[]; addressCount: number }> {
  if (!Array.isArray(input)) return { ok: false, problems: [`ranges must be an array of 1 to ${MAX_NETWORK_RANGE_ENTRIES} entries`] };
  if (input.length === 0) return { ok: false, problems: ['ranges must hold at least one entry'] };
  if (input.length > MAX_NETWORK_RANGE_ENTRIES) {
    return { ok: false, problems: [`ranges holds ${input.length} entries; at most ${MAX_NETWORK_RANGE_ENTRIES} are allowed`] };
  }
  const problems: string[] = [];
  const entries: RangeEntry[] = [];
  input.forEach((value: unknown, index) => {
    if (typeof value !== 'string') return problems.push(`ranges[${index}] must be a string`);
    const parsed = parseRangeEntry(value);
    if (!parsed.ok) return problems.push(`ranges[${index}] ${quote(value)} ${parsed.problem}`);
    const size = intervalSize(parsed.entry.interval);
    if (size > BigInt(MAX_NETWORK_ADDRESSES)) {
      return problems.push(
        `ranges[${index}] ${quote(value)} covers ${groupDigits(size)} addresses; a network holds at most ${groupDigits(MAX_NETWORK_ADDRESSES)}`,
      );
    }
    entries.push(parsed.entry);
  });
  const intervals = mergeIntervals(entries.map((entry) => entry.interval));
  const total = countAddresses(intervals);
  if (total > BigInt(MAX_NETWORK_ADDRESSES)) {
    problems.push(
      `ranges cover ${groupDigits(total)} distinct addresses in all; a network holds at most ${groupDigits(MAX_NETWORK_ADDRESSES)}`,
    );
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { ranges: entries.map((entry) => entry.text), intervals, addressCount: Number(total) } };
}

/** `ports`: absent means [443]; otherwise 1..32 unique integers 1..65535, in the order given. */
export function parseNetworkPorts(input: unknown): Checked<number[]> {
  if (input === undefined) return { ok: true, value: [...DEFAULT_NETWORK_PORTS] };
  if (!Array.isArray(input)) return { ok: false, problems: [`ports must be an array of 1 to ${MAX_NETWORK_PORTS} port numbers`] };
  if (input.length === 0) return { ok: false, problems: ['ports must hold at least one port'] };
  if (input.length > MAX_NETWORK_PORTS)
    return { ok: false, problems: [`ports holds ${input.length} entries; at most ${MAX_NETWORK_PORTS} are allowed`] };
  const problems: string[] = [];
  const seen = new Set<number>();
  input.forEach((value: unknown, index) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65_535) {
      return problems.push(`ports[${index}] must be an integer from 1 to 65535`);
    }
    if (seen.has(value)) return problems.push(`ports[${index}] repeats port ${value}; ports must be unique`);
    seen.add(value);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: [...seen] };
}

/** Both fields at once, every problem of both reported. */
export function parseNetworkScope(input: { ranges: unknown; ports?: unknown }): Checked<NetworkScope> {
  const ranges = parseNetworkRanges(input.ranges);
  const ports = parseNetworkPorts(input.ports);
  if (!ranges.ok || !ports.ok) return { ok: false, problems: [...(ranges.ok ? [] : ranges.problems), ...(ports.ok ? [] : ports.problems)] };
  const { addressCount } = ranges.value;
  return { ok: true, value: { ...ranges.value, ports: ports.value, probeCount: addressCount * ports.value.length } };
}

/** Sorted by family then start, overlapping and adjacent intervals merged into one. */
export function mergeIntervals(intervals: readonly AddressInterval[]): AddressInterval[] {
  const sorted = [...intervals].sort((a, b) => a.family - b.family || (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const merged: AddressInterval[] = [];
  for (const interval of sorted) {
    const previous = merged[merged.length - 1];
    if (previous && previous.family === interval.family && interval.first <= previous.last + 1n) {
      if (interval.last > previous.last) previous.last = interval.last;
    } else {
      merged.push({ ...interval });
    }
  }
  return merged;
}

/** Addresses in the intervals, assumed disjoint (as mergeIntervals returns them). */
export function countAddresses(intervals: readonly AddressInterval[]): bigint {
  return intervals.reduce((sum, interval) => sum + intervalSize(interval), 0n);
}

/** Whether `address` (an IP literal in any spelling) is one the scope covers. Family-strict: `::ffff:10.0.0.1` is not `10.0.0.1`. */
export function scopeContains(scope: Pick<NetworkScope, 'intervals'>, address: string): boolean {
  const parsed = parseAddressValue(address);
  if (parsed === null) return false;
  return scope.intervals.some(
    (interval) => interval.family === parsed.family && interval.first <= parsed.value && parsed.value <= interval.last,
  );
}

/** Every distinct address of the scope, lazily, one string at a time, in ascending order (IPv4 first). */
export function* scopeAddresses(scope: Pick<NetworkScope, 'intervals'>): Generator<string, void, undefined> {
  for (const { family, first, last } of scope.intervals) {
    for (let value = first; value <= last; value++) yield formatAddressValue(family, value);
  }
}

/** Every (address, port) of the scope, lazily: each address's ports in turn, in the order given. */
export function* scopeProbeTargets(scope: Pick<NetworkScope, 'intervals' | 'ports'>): Generator<ProbeTarget, void, undefined> {
  for (const address of scopeAddresses(scope)) {
    for (const port of scope.ports) yield { address, port };
  }
}

function intervalSize(interval: AddressInterval): bigint {
  return interval.last - interval.first + 1n;
}

/** 16777216 → "16,777,216" without Intl, whose BigInt support varies by build. */
function groupDigits(value: bigint | number): string {
  return value.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The entry as typed, JSON-quoted (control characters escaped) and cut short when long. */
function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}
