/** Everything Certkeeper reads from one X.509 certificate. Parsing reports; it never judges validity. */
export interface ParsedCertificate {
  /** The certificate's DER bytes, exactly as found in the input. */
  der: Uint8Array;
  /** Canonical PEM: BEGIN line, base64 in 64-character lines, END line, each ending in '\n'. */
  pem: string;
  /** SHA-256 of the DER, 64 lower-case hex digits. */
  fingerprintSha256: string;
  /** SHA-1 of the DER, 40 lower-case hex digits. */
  fingerprintSha1: string;
  /** Lower-case hex of the serial number INTEGER, without the 00 octet DER adds to keep it positive. */
  serialNumber: string;
  /** RFC 4514-style distinguished name as @peculiar/x509 prints it, e.g. "CN=example.com, O=Example"; '' when empty. */
  subject: string;
  issuer: string;
  /** First CN of the subject, null when absent. */
  commonName: string | null;
  subjectOrganization: string | null;
  subjectOrganizationalUnit: string | null;
  issuerCommonName: string | null;
  issuerOrganization: string | null;
  /**
   * Subject alternative names in certificate order, as plain values: DNS names ('*.example.com'),
   * IP addresses ('10.0.0.1', IPv6 in RFC 5952 form: '2001:db8::1'), e-mail addresses and URIs.
   * Other name forms (otherName, directoryName, ...) are left out.
   */
  sans: string[];
  notBefore: Date;
  notAfter: Date;
  /** 'RSA' | 'ECDSA' | 'Ed25519' | 'Ed448', or the dotted OID of any other key algorithm. RSA-PSS keys count as 'RSA'. */
  keyAlgorithm: string;
  /** RSA modulus bits; EC curve bits (256, 384, 521); 256 for Ed25519, 456 for Ed448; null when unknown. */
  keySize: number | null;
  /** 'P-256' | 'P-384' | 'P-521' (or the curve OID) for ECDSA keys; null otherwise. */
  keyCurve: string | null;
  /** 'sha256WithRSAEncryption', 'ecdsa-with-SHA384', 'RSASSA-PSS', 'Ed25519', ... or the dotted OID. */
  signatureAlgorithm: string;
  /** RFC 5280 names in bit order: digitalSignature, nonRepudiation (a.k.a. contentCommitment), keyEncipherment, ... */
  keyUsage: string[];
  /** serverAuth, clientAuth, codeSigning, emailProtection, timeStamping, OCSPSigning, or the dotted OID. */
  extendedKeyUsage: string[];
  /** OCSP responder URIs from Authority Information Access. */
  ocspUrls: string[];
  /** CA issuer URIs from Authority Information Access. */
  caIssuersUrls: string[];
  /** Full-name URIs of the CRL distribution points. */
  crlDistributionPoints: string[];
  /** Lower-case hex. */
  subjectKeyId: string | null;
  /** Lower-case hex of the keyIdentifier in the Authority Key Identifier extension. */
  authorityKeyId: string | null;
  /** basicConstraints cA; false when the extension is absent. */
  isCa: boolean;
  pathLength: number | null;
  /** Subject and issuer are DER-equal names and the signature verifies with the certificate's own key. */
  selfSigned: boolean;
  /**
   * SHA-256 (lower-case hex) of the subject's and the issuer's DER-encoded Name, the way to compare
   * names exactly (RFC 5280 requires a CA to encode its name identically in the certificates it issues).
   * Always set by parseCertificates; optional so callers may build ParsedCertificate-shaped values
   * without them (from stored rows, for instance), in which case isIssuedBy compares the DN strings.
   */
  subjectDnHash?: string;
  issuerDnHash?: string;
}

/**
 * 'invalid_pkcs7': a PKCS #7 bundle that cannot be read, is not SignedData, or holds no certificate
 * (one of its certificates that cannot be read is 'invalid_der', with `positionInBundle`).
 */
export type CertificateParseErrorCode = 'empty' | 'not_a_certificate' | 'invalid_pem' | 'invalid_der' | 'invalid_pkcs7' | 'too_many';

export interface CertificateParseError {
  /**
   * Position of the offending block in the input, 0-based. PEM blocks of every type count (a PRIVATE
   * KEY block before a certificate moves the certificate to index 1), so the index matches what
   * someone reading the file sees. Errors about the input as a whole have index 0, and so does
   * everything about a DER or base64 PKCS #7 bundle.
   */
  index: number;
  /** For a certificate inside a PKCS #7 bundle (the block at `index`): its 0-based position among the bundle's certificates. */
  positionInBundle?: number;
  code: CertificateParseErrorCode;
  /** A short sentence for people. */
  message: string;
}

export interface CertificateParseResult {
  certificates: ParsedCertificate[];
  errors: CertificateParseError[];
}

export interface ParseOptions {
  /** Largest number of certificates accepted (CERTIFICATE blocks and those inside PKCS #7 bundles); more gives one 'too_many' error and no certificates. Default 100. */
  maxCertificates?: number;
}
