// Hand-built TLS handshakes for the TLS profile: bytes in, bytes out, no sockets.
export {
  cipherSuiteId,
  cipherSuiteName,
  cipherSuitesToOffer,
  compactCipherSuitesToOffer,
  isSignalingCipherSuite,
  PRE_TLS13_CIPHER_SUITES,
  requiresTls12,
  TLS13_CIPHER_SUITES,
  TLS_EMPTY_RENEGOTIATION_INFO_SCSV,
  TLS_FALLBACK_SCSV,
} from './cipher-suites';
export { buildClientHello, type ClientHelloOptions, PRE_TLS13_GROUPS, sniHostName, TLS13_GROUPS } from './client-hello';
export { EXTENSION_TYPES, SIGNATURE_SCHEMES } from './extensions';
export { canGenerateKeyShare, generateKeyShare, type KeyShareEntry, NAMED_GROUPS } from './key-share';
export {
  ALERT_DESCRIPTIONS,
  alertDescriptionName,
  HELLO_RETRY_REQUEST_RANDOM,
  parseServerResponse,
  type ServerHello,
  type ServerResponse,
} from './server-response';
export { TLS_VERSION_CODES, tlsVersionName } from './versions';
