import { domainToASCII } from 'node:url';
import { formatIpAddress, ipAddressesEqual, parseIpAddress } from './ip-address';
import { ParsedCertificate } from './types';

/**
 * Whether the certificate is valid for `hostname` by name (RFC 6125; dates and trust are not checked).
 * - DNS names match exactly, ignoring case and one trailing dot, or through a wildcard that is the
 *   whole leftmost label and stands for exactly one label: '*.example.com' covers 'api.example.com'
 *   but neither 'example.com' nor 'a.b.example.com'. '*.com'-style wildcards cover nothing.
 * - IP literals (IPv6 with or without brackets) match IP SANs by value ('::1' equals '0:0::1'), never
 *   DNS names or the CN.
 * - The CN counts only when the certificate has no DNS name among its SANs, as RFC 6125 section 6.4.4 says.
 * `sans` holds plain strings, so a SAN is taken to be an IP address when it parses as one, and a DNS
 * name when it has no ':', '@' or '/' (which e-mail addresses and URIs do).
 */
export function certificateCoversHostname(certificate: Pick<ParsedCertificate, 'sans' | 'commonName'>, hostname: string): boolean {
  const address = parseIpAddress(hostname.trim());
  if (address !== null) return certificate.sans.some((san) => sanIsAddress(san, address));
  const host = normaliseDnsName(hostname);
  if (host === null) return false;
  return dnsPatternsOf(certificate).some((pattern) => dnsPatternMatches(pattern, host));
}

/**
 * The normalised DNS patterns of each certificate object asked about, kept while it lives: the
 * findings of a fleet behind one certificate ask it of the same object for every endpoint.
 * Certificates never change, so neither do their patterns.
 */
const dnsPatterns = new WeakMap<object, string[]>();

/** The DNS names among the SANs, or the CN when there is none (RFC 6125 section 6.4.4), normalised. */
function dnsPatternsOf(certificate: Pick<ParsedCertificate, 'sans' | 'commonName'>): string[] {
  let patterns = dnsPatterns.get(certificate);
  if (!patterns) {
    const dnsNames = certificate.sans.filter(isDnsName);
    const candidates = dnsNames.length > 0 ? dnsNames : [certificate.commonName ?? ''];
    patterns = candidates.flatMap((pattern) => normaliseDnsName(pattern) ?? []);
    dnsPatterns.set(certificate, patterns);
  }
  return patterns;
}

/**
 * The DNS names among SANs as stored for comparison: lower case, without a trailing dot, each
 * once, sorted. A renewal covers a certificate's names when its own include all of these.
 */
export function dnsNamesOf(sans: readonly string[]): string[] {
  return [...new Set(sans.filter(isDnsName).map((name) => name.trim().replace(/\.$/, '').toLowerCase()))].sort();
}

/**
 * The SAN (or CN) values that could cover `hostname`, as certificates store them, for a store to
 * narrow its search before certificateCoversHostname decides: the name itself and the one-label
 * wildcard of its parent, or an IP literal in the form the parser writes IP SANs ('0:0::1' is '::1').
 */
export function hostnameCoverCandidates(hostname: string): string[] {
  const address = parseIpAddress(hostname.trim());
  if (address !== null) return [formatIpAddress(address) ?? hostname.trim()];
  const host = normaliseDnsName(hostname);
  if (host === null) return [];
  const labels = host.split('.');
  return labels.length > 2 ? [host, `*.${labels.slice(1).join('.')}`] : [host];
}

function sanIsAddress(san: string, address: Uint8Array): boolean {
  const sanAddress = parseIpAddress(san);
  return sanAddress !== null && ipAddressesEqual(sanAddress, address);
}

function isDnsName(san: string): boolean {
  return !/[:@/]/.test(san) && parseIpAddress(san) === null;
}

/** Whether a normalised pattern covers a normalised host name. */
function dnsPatternMatches(pattern: string, host: string): boolean {
  if (pattern === host) return true;
  return pattern.startsWith('*.') && wildcardMatches(pattern, host);
}

/** `pattern` is a wildcard, e.g. '*.example.com'. */
function wildcardMatches(pattern: string, host: string): boolean {
  // A wildcard needs at least two labels after it: '*.com' would cover a whole top-level domain.
  if (pattern.indexOf('.', 2) === -1) return false;
  const firstDot = host.indexOf('.');
  return firstDot > 0 && host.slice(firstDot) === pattern.slice(1);
}

/**
 * Lower case without one trailing dot; Unicode host names become their ASCII (punycode) form,
 * which is how certificates carry them. Null for names that cannot be compared.
 */
function normaliseDnsName(name: string): string | null {
  const trimmed = name.trim().replace(/\.$/, '');
  // Printable ASCII needs no conversion, and domainToASCII would reject wildcards.
  const ascii = /^[ -~]*$/.test(trimmed) ? trimmed : domainToASCII(trimmed);
  return ascii === '' ? null : ascii.toLowerCase();
}
