import { TLS_VERSIONS, type TlsVersionName } from '../scanner-protocol';

/** Wire code points of the protocol versions (ProtocolVersion in RFC 8446 and its predecessors). */
export const TLS_VERSION_CODES: Readonly<Record<TlsVersionName, number>> = {
  SSLv3: 0x0300,
  'TLSv1.0': 0x0301,
  'TLSv1.1': 0x0302,
  'TLSv1.2': 0x0303,
  'TLSv1.3': 0x0304,
};

/** The name of a wire version, or null for anything else (SSLv2, drafts, GREASE, garbage). */
export function tlsVersionName(code: number): TlsVersionName | null {
  return TLS_VERSIONS.find((name) => TLS_VERSION_CODES[name] === code) ?? null;
}
