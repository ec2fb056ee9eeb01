import { isIP } from 'node:net';
import { TLS_VERSIONS, type HostScanResult, type SamlScanResult, type ScanResult, type TlsProfile } from '@certkeeper/domain';

/** Bounds on what an agent may report, so one result cannot exhaust the server. */
const LIMITS = { error: 2000, chain: 20, pem: 64 * 1024, suites: 400, name: 200, document: 32 * 1024 * 1024 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHA256_HEX = /^[0-9a-f]{64}$/i;

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);
const nullableString = (value: unknown, max: number) => value === null || (typeof value === 'string' && value.length <= max);
const nullableBoolean = (value: unknown) => value === null || typeof value === 'boolean';
const nullableIp = (value: unknown) => value === null || (typeof value === 'string' && isIP(value) !== 0);

/** The ids of a raw result, for reporting a rejection even when the rest is malformed. */
export function idsOf(raw: unknown): { resultId: string; endpointId: string } {
  const fields = isObject(raw) ? raw : {};
  return {
    resultId: typeof fields.resultId === 'string' ? fields.resultId.slice(0, 100) : '',
    endpointId: typeof fields.endpointId === 'string' ? fields.endpointId.slice(0, 100) : '',
  };
}

/** The result, typed, or what is wrong with it in one sentence. Nothing an agent sends is trusted. */
export function validateResult(raw: unknown, now: Date): ScanResult | string {
  if (!isObject(raw)) return 'a result must be a JSON object';
  if (typeof raw.resultId !== 'string' || !UUID.test(raw.resultId)) return 'resultId must be a UUID';
  if (typeof raw.endpointId !== 'string' || !UUID.test(raw.endpointId)) return 'endpointId must be a UUID';
  if (typeof raw.scannedAt !== 'string' || Number.isNaN(Date.parse(raw.scannedAt))) return 'scannedAt must be an ISO 8601 timestamp';
  // A clock slightly ahead is tolerated; a result from the far future would freeze errorSince logic.
  if (Date.parse(raw.scannedAt) > now.getTime() + 5 * 60_000) return 'scannedAt is in the future';
  if (typeof raw.success !== 'boolean') return 'success must be a boolean';
  if (!nullableString(raw.error, LIMITS.error)) return `error must be a string of at most ${LIMITS.error} characters, or null`;
  if (!raw.success && (typeof raw.error !== 'string' || raw.error.length === 0)) return 'a failed result must say why in error';
  switch (raw.type) {
    case 'host':
      return validateHost(raw);
    case 'saml':
      return validateSaml(raw);
    default:
      return 'type must be host or saml';
  }
}

function validateHost(raw: Fields): HostScanResult | string {
  if (!nullableIp(raw.resolvedIp)) return 'resolvedIp must be an IP address or null';
  if (!(raw.tlsVersion === null || TLS_VERSIONS.includes(raw.tlsVersion as never)))
    return `tlsVersion must be one of ${TLS_VERSIONS.join(', ')} or null`;
  if (!nullableString(raw.cipherSuite, LIMITS.name)) return 'cipherSuite must be a string or null';
  if (!nullableBoolean(raw.authorized)) return 'authorized must be a boolean or null';
  if (!nullableString(raw.authorizationError, LIMITS.error)) return 'authorizationError must be a string or null';
  if (
    !Array.isArray(raw.chain) ||
    raw.chain.length > LIMITS.chain ||
    !raw.chain.every((pem) => typeof pem === 'string' && pem.length <= LIMITS.pem)
  ) {
    return `chain must be an array of at most ${LIMITS.chain} PEM strings`;
  }
  if (raw.success && raw.chain.length === 0) return 'a successful host result must carry the presented chain';
  const profile = raw.tlsProfile === null || raw.tlsProfile === undefined ? null : validateProfile(raw.tlsProfile);
  if (typeof profile === 'string') return profile;
  return { ...(raw as unknown as HostScanResult), tlsProfile: profile };
}

function validateProfile(raw: unknown): TlsProfile | string {
  const problem = 'tlsProfile must be { versions: [{ version, supported, cipherSuites }], negotiatedVersion, negotiatedCipherSuite }';
  if (!isObject(raw) || !Array.isArray(raw.versions)) return problem;
  for (const version of raw.versions) {
    if (!isObject(version) || !TLS_VERSIONS.includes(version.version as never) || typeof version.supported !== 'boolean') return problem;
    const suites = version.cipherSuites;
    if (!Array.isArray(suites) || suites.length > LIMITS.suites || !suites.every((s) => typeof s === 'string' && s.length <= LIMITS.name))
      return problem;
  }
  if (!(raw.negotiatedVersion === null || TLS_VERSIONS.includes(raw.negotiatedVersion as never))) return problem;
  if (!nullableString(raw.negotiatedCipherSuite, LIMITS.name)) return problem;
  return raw as unknown as TlsProfile;
}

function validateSaml(raw: Fields): SamlScanResult | string {
  if (!nullableString(raw.finalUrl, 4096)) return 'finalUrl must be a string or null';
  // Optional: agents older than the field send none, which reads as null.
  if (raw.resolvedIp !== undefined && !nullableIp(raw.resolvedIp)) return 'resolvedIp must be an IP address or null';
  if (!nullableString(raw.document, LIMITS.document)) return 'document must be a string or null';
  if (!(raw.digest === null || (typeof raw.digest === 'string' && SHA256_HEX.test(raw.digest))))
    return 'digest must be a SHA-256 hex string or null';
  if (raw.success && typeof raw.document !== 'string') return 'a successful saml result must carry the document';
  return { ...(raw as unknown as SamlScanResult), resolvedIp: (raw.resolvedIp as string | null | undefined) ?? null };
}
