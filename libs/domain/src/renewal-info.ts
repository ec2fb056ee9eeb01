// ACME Renewal Information (RFC 9773): what the API asks a CA and how it reads the answer
// (docs/api-contract.md section 15). Pure: the API's renewal-info module does the fetching.

/** A CA's suggested renewal window for one certificate. */
export interface RenewalWindow {
  start: Date;
  end: Date;
  /** A page the CA wrote about why, http or https only; null when it gave none usable. */
  explanationUrl: string | null;
}

/** How long a CA's answer is kept before it is asked again: Retry-After clamped to these (seconds). */
export const RETRY_AFTER_MIN_SECONDS = 60;
export const RETRY_AFTER_MAX_SECONDS = 24 * 60 * 60;
export const RETRY_AFTER_DEFAULT_SECONDS = 6 * 60 * 60;

const LONGEST_EXPLANATION_URL = 2048;

/**
 * RFC 9773 section 4.1: base64url of the Authority Key Identifier's keyIdentifier, ".", and
 * base64url of the serial number's DER content octets, so a serial whose first bit is set keeps
 * the 00 octet that makes it positive (0x87654321 is `AIdlQyE`). Both arguments are hex as stored
 * (the serial without that 00 octet).
 */
export function renewalCertId(authorityKeyIdHex: string, serialNumberHex: string): string {
  const serial = serialNumberHex.length % 2 === 1 ? `0${serialNumberHex}` : serialNumberHex;
  const content = /^[89a-f]/i.test(serial) ? `00${serial}` : serial;
  return `${Buffer.from(authorityKeyIdHex, 'hex').toString('base64url')}.${Buffer.from(content, 'hex').toString('base64url')}`;
}

/** The renewalInfo resource of one certificate: the directory's `renewalInfo` URL, "/", the certID. */
export function renewalInfoUrl(renewalInfo: string, certId: string): string {
  return `${renewalInfo.replace(/\/+$/, '')}/${certId}`;
}

/**
 * The directory's `renewalInfo` URL, or null when the CA offers none (or not over http or https).
 * A body that is not a JSON object is null too: the CA then counts as one without renewal information.
 */
export function directoryRenewalInfo(body: string): string | null {
  const directory = parseJsonObject(body);
  const url = directory?.renewalInfo;
  return typeof url === 'string' && isHttpUrl(url) ? url : null;
}

/**
 * The window of a renewalInfo response `{ suggestedWindow: { start, end }, explanationURL? }`, or a
 * sentence saying why it is unusable: RFC 9773 (section 4.2) has the client treat a window whose
 * end equals or precedes its start as no answer at all.
 */
export function parseRenewalInfo(body: string): RenewalWindow | { problem: string } {
  const info = parseJsonObject(body);
  if (info === null) return { problem: 'the answer is not a JSON object' };
  const window = info.suggestedWindow;
  if (typeof window !== 'object' || window === null) return { problem: 'the answer has no suggestedWindow' };
  const { start, end } = window as Record<string, unknown>;
  const startAt = timestamp(start);
  const endAt = timestamp(end);
  if (startAt === null || endAt === null) return { problem: 'the suggested window needs start and end timestamps' };
  if (endAt.getTime() <= startAt.getTime()) return { problem: 'the suggested window does not end after it starts' };
  const explanation = info.explanationURL;
  const explanationUrl =
    typeof explanation === 'string' && explanation.length <= LONGEST_EXPLANATION_URL && isHttpUrl(explanation) ? explanation : null;
  return { start: startAt, end: endAt, explanationUrl };
}

/**
 * When to ask about a certificate again, in seconds from `now`: the Retry-After header (seconds or
 * an HTTP date) clamped to 60 s .. 24 h, 6 h when absent or unreadable, so a CA can neither make
 * us poll every second nor go unasked for days.
 */
export function retryAfterSeconds(header: string | undefined, now: Date): number {
  const value = header?.trim() ?? '';
  let seconds = RETRY_AFTER_DEFAULT_SECONDS;
  if (/^\d+$/.test(value)) seconds = Number(value);
  else if (value !== '' && !Number.isNaN(Date.parse(value))) seconds = Math.ceil((Date.parse(value) - now.getTime()) / 1000);
  return Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(RETRY_AFTER_MIN_SECONDS, seconds));
}

function parseJsonObject(body: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

// RFC 3339 as RFC 9773 requires: a date, a time and an offset; Date.parse alone also takes "2025".
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function timestamp(value: unknown): Date | null {
  if (typeof value !== 'string' || !RFC_3339.test(value)) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time);
}

/** An absolute http or https URL. */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/** An ACME CA asked for renewal information: a name people read, and its directory. */
export interface AcmeCa {
  name: string;
  directoryUrl: string;
}

/** Asked until an operator configures otherwise (docs/api-contract.md section 15). */
export const DEFAULT_ACME_CAS: readonly AcmeCa[] = Object.freeze([
  { name: "Let's Encrypt", directoryUrl: 'https://acme-v02.api.letsencrypt.org/directory' },
  { name: 'Google Trust Services', directoryUrl: 'https://dv.acme-v02.api.pki.goog/directory' },
]);
