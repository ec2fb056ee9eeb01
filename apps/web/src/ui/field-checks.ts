/*
 * The checks a form runs before it sends anything, so that a person sees every slip at once and in
 * plain words. Each answers a sentence for the field, or null when the value will do. They catch
 * only what a person can fix by typing: the API stays the judge (docs/api-contract.md section 14),
 * and what it still refuses is shown next to the field it names.
 */

/** A value the form cannot do without. */
export function required(value: string, what: string): string | null {
  return value.trim() === '' ? `Enter ${what}.` : null;
}

/** At most `max` characters (names of endpoints, scanners and users). */
export function maxLength(value: string, max: number, what: string): string | null {
  return value.trim().length > max ? `${capitalise(what)} is ${value.trim().length} characters long: at most ${max}.` : null;
}

/** A whole number from `min` to `max`; an empty value is left to `required`. */
export function integerFrom(value: string, min: number, max: number, what: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    return `${capitalise(what)} is a whole number from ${min} to ${max}.`;
  return null;
}

/** A TCP port. */
export function port(value: string): string | null {
  return integerFrom(value, 1, 65535, 'the port');
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IPv4 or IPv6 address, as the API accepts it (IPv6 without brackets or zone). */
export function isIpAddress(value: string): boolean {
  if (IPV4.test(value)) return true;
  if (!/^[0-9a-f:.]+$/i.test(value) || !value.includes(':')) return false;
  // An IPv6 address may end in an IPv4 one (::ffff:192.0.2.1).
  const lastColon = value.lastIndexOf(':');
  const tail = value.slice(lastColon + 1);
  const head = tail.includes('.') ? (IPV4.test(tail) ? `${value.slice(0, lastColon)}:0:0` : null) : value;
  if (head === null) return false;
  const halves = head.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
  if (groups.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return false;
  return halves.length === 2 ? groups.length < 8 : groups.length === 8;
}

export function ipAddress(value: string): string | null {
  const text = value.trim();
  if (text === '' || isIpAddress(text)) return null;
  return `“${text}” is not an IP address: write it as 192.0.2.10 or 2001:db8::10.`;
}

// As the API reads a label (letters, digits, '-', '_'; no hyphen at either end).
const DNS_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i;

/** A host's DNS name (labels of letters, digits, hyphens and underscores) or an IP literal. */
export function dnsName(value: string): string | null {
  const text = value.trim();
  if (text === '' || isIpAddress(text)) return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return `Enter the host name alone, without “${text.split('//')[0]}//”.`;
  if (/[:/]/.test(text)) return `Enter the host name alone: the port has its own field, and no path belongs here.`;
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  const labels = name.split('.');
  const fine = name.length <= 253 && labels.every((label) => DNS_LABEL.test(label));
  return fine ? null : `“${text}” is not a host name: letters, digits and hyphens between dots, such as www.example.com.`;
}

/** An http or https address (SAML metadata, OIDC issuer). */
export function httpUrl(value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `“${text}” is not a web address: it starts with https:// (or http://).`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `The address starts with https:// or http://, not ${url.protocol}//.`;
  return null;
}

/** An e-mail address: something, an @, and a domain with a dot or a single label such as localhost. */
export function email(value: string): string | null {
  const text = value.trim();
  if (text === '' || /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/.test(text)) return null;
  return `“${text}” is not an e-mail address: it reads like name@example.com.`;
}

/** A 5-field cron expression (minute, hour, day of month, month, day of week); the API checks the ranges. */
export function cron(value: string): string | null {
  const fields = value.trim().split(/\s+/).filter(Boolean);
  if (fields.length === 0) return null;
  if (fields.length !== 5 || fields.some((field) => !/^[0-9a-z*,/?-]+$/i.test(field)))
    return `A schedule is 5 fields separated by spaces (minute, hour, day of month, month, day of week), such as “0 * * * *” for every hour.`;
  return null;
}

/** Alert thresholds: 1 to 20 whole numbers of days from 1 to 3650, separated by commas or spaces (repeats are the API's to name). */
export function thresholdDays(text: string): string | null {
  const entries = text.split(/[\s,;]+/).filter((entry) => entry !== '');
  if (entries.length === 0) return 'Enter at least one number of days, such as 30, 14, 7.';
  const bad = entries.find((entry) => integerFrom(entry, 1, 3650, 'a threshold') !== null);
  if (bad !== undefined) return `“${bad}” is not a number of days: each is a whole number from 1 to 3650.`;
  if (entries.length > 20) return `${entries.length} thresholds: at most 20.`;
  return null;
}

/** Tags separated by commas: each `category:value` or a bare value, 1..100 printable characters (as the API's isTag). */
export function tags(list: readonly string[]): string | null {
  const long = list.find((tag) => [...tag].length > 100);
  if (long !== undefined) return `The tag “${[...long].slice(0, 20).join('')}…” is ${[...long].length} characters long: at most 100.`;
  const unprintable = list.find((tag) => UNPRINTABLE.test(tag));
  if (unprintable !== undefined)
    return `The tag “${unprintable.replace(/\s+/g, ' ')}” holds a tab, line break or other invisible character.`;
  return null;
}

// The characters a tag may not hold: control and format characters, line and paragraph separators.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Pasted certificates: PEM armour, each BEGIN with its END. A file picked is converted to PEM before this runs. */
export function pem(text: string): string | null {
  if (text.trim() === '') return 'Paste a certificate in PEM form, or pick a file.';
  const begins = text.match(/-----BEGIN [A-Z0-9 ]+-----/g) ?? [];
  const ends = text.match(/-----END [A-Z0-9 ]+-----/g) ?? [];
  if (begins.length === 0) return 'This is not PEM: a certificate starts with “-----BEGIN CERTIFICATE-----”.';
  if (ends.length < begins.length) return 'The PEM is cut short: a “-----BEGIN” line has no “-----END” line after it.';
  if (!begins.some((line) => line === '-----BEGIN CERTIFICATE-----' || line === '-----BEGIN TRUSTED CERTIFICATE-----'))
    return `This PEM holds no certificate (it starts with “${begins[0]}”): a private key or request is not uploaded here.`;
  return null;
}

/** A file (or pasted text) within a route's body limit, named before it is read or sent. */
export function withinSize(name: string, bytes: number, maxMiB: number): string | null {
  if (bytes <= maxMiB * MIB) return null;
  return `${name} is ${(bytes / MIB).toFixed(1)} MiB: at most ${maxMiB} MiB can be uploaded here.`;
}

const MIB = 1024 * 1024;

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
