/** ExtensionType code points this module writes or reads (IANA "TLS ExtensionType Values"). */
export const EXTENSION_TYPES = {
  serverName: 0,
  supportedGroups: 10,
  ecPointFormats: 11,
  signatureAlgorithms: 13,
  padding: 21,
  extendedMasterSecret: 23,
  supportedVersions: 43,
  pskKeyExchangeModes: 45,
  keyShare: 51,
  renegotiationInfo: 0xff01,
} as const;

/**
 * SignatureScheme values, modern first, then the SHA-1, SHA-224 and DSA ones: a server whose
 * certificate can only sign with those still answers, and the profile sees what it accepts.
 */
export const SIGNATURE_SCHEMES: readonly number[] = [
  0x0403, // ecdsa_secp256r1_sha256
  0x0503, // ecdsa_secp384r1_sha384
  0x0603, // ecdsa_secp521r1_sha512
  0x0807, // ed25519
  0x0808, // ed448
  0x0804, // rsa_pss_rsae_sha256
  0x0805, // rsa_pss_rsae_sha384
  0x0806, // rsa_pss_rsae_sha512
  0x0809, // rsa_pss_pss_sha256
  0x080a, // rsa_pss_pss_sha384
  0x080b, // rsa_pss_pss_sha512
  0x081a, // ecdsa_brainpoolP256r1tls13_sha256
  0x081b, // ecdsa_brainpoolP384r1tls13_sha384
  0x081c, // ecdsa_brainpoolP512r1tls13_sha512
  0x0401, // rsa_pkcs1_sha256
  0x0501, // rsa_pkcs1_sha384
  0x0601, // rsa_pkcs1_sha512
  0x0303, // ecdsa_sha224
  0x0301, // rsa_pkcs1_sha224
  0x0302, // dsa_sha224
  0x0402, // dsa_sha256
  0x0502, // dsa_sha384
  0x0602, // dsa_sha512
  0x0203, // ecdsa_sha1
  0x0201, // rsa_pkcs1_sha1
  0x0202, // dsa_sha1
];
