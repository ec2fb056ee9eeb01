/**
 * IP addresses as X.509 stores them (4 or 16 raw octets) and as people write them. Hand-written
 * because node:net is off limits in libs/domain, and its isIP() would not give us the octets anyway.
 */

/** Dotted quad for 4 octets, RFC 5952 text (lower case, longest zero run as `::`) for 16; null for other lengths. */
export function formatIpAddress(octets: Uint8Array): string | null {
  if (octets.length === 4) return Array.from(octets).join('.');
  if (octets.length === 16) return formatIpv6(octets);
  return null;
}

/**
 * The octets of an IPv4 or IPv6 literal, or null when `text` is not one. Accepts IPv6 in brackets
 * (as in URLs) and with an embedded IPv4 tail (`::ffff:10.0.0.1`); refuses zone IDs, which never
 * appear in certificates, and IPv4 parts with leading zeros, which some resolvers read as octal.
 */
export function parseIpAddress(text: string): Uint8Array | null {
  const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (unbracketed.includes(':')) return parseIpv6(unbracketed);
  return unbracketed === text ? parseIpv4(text) : null;
}

export function ipAddressesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((octet, i) => octet === b[i]);
}

function formatIpv6(octets: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) => (octets[2 * i] << 8) | octets[2 * i + 1]);
  const run = longestZeroRun(groups);
  const hex = (part: number[]) => part.map((group) => group.toString(16)).join(':');
  // RFC 5952 section 4.2.2: a single zero group is written as 0, never shortened to ::.
  if (run.length < 2) return hex(groups);
  return `${hex(groups.slice(0, run.start))}::${hex(groups.slice(run.start + run.length))}`;
}

/** The first of the longest runs of zero groups (RFC 5952 section 4.2.3). */
function longestZeroRun(groups: number[]): { start: number; length: number } {
  let best = { start: 0, length: 0 };
  let start = 0;
  for (let i = 0; i <= groups.length; i++) {
    if (i < groups.length && groups[i] === 0) continue;
    if (i - start > best.length) best = { start, length: i - start };
    start = i + 1;
  }
  return best;
}

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9][0-9]{0,2})$/.test(part))) return null;
  const octets = parts.map(Number);
  return octets.every((octet) => octet <= 255) ? Uint8Array.from(octets) : null;
}

function parseIpv6(text: string): Uint8Array | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const hasTail = halves.length === 2;
  const head = parseIpv6Groups(halves[0], !hasTail);
  const tail = hasTail ? parseIpv6Groups(halves[1], true) : [];
  if (head === null || tail === null) return null;
  const explicit = head.length + tail.length;
  // Without '::' all eight groups must be written; with it, '::' stands for at least one zero group.
  if (hasTail ? explicit > 7 : explicit !== 8) return null;
  const groups = [...head, ...Array<number>(8 - explicit).fill(0), ...tail];
  return Uint8Array.from(groups.flatMap((group) => [group >> 8, group & 0xff]));
}

/** Colon-separated 16-bit groups; at the very end of the address the last may be IPv4, counting as two groups. */
function parseIpv6Groups(text: string, endsAddress: boolean): number[] | null {
  if (text === '') return [];
  const parts = text.split(':');
  const last = parts[parts.length - 1];
  const embeddedIpv4 = endsAddress && last.includes('.') ? parseIpv4(last) : null;
  if (last.includes('.') && embeddedIpv4 === null) return null;
  const hexParts = embeddedIpv4 ? parts.slice(0, -1) : parts;
  if (!hexParts.every((part) => /^[0-9a-fA-F]{1,4}$/.test(part))) return null;
  const groups = hexParts.map((part) => parseInt(part, 16));
  if (embeddedIpv4) groups.push((embeddedIpv4[0] << 8) | embeddedIpv4[1], (embeddedIpv4[2] << 8) | embeddedIpv4[3]);
  return groups;
}
