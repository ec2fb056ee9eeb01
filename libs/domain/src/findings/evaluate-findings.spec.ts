import { evaluateFindings, type FindingCertificate, type FindingInputs } from './evaluate-findings';
import { describeFindings, FINDING_CODES } from './finding-codes';

const DAY_MS = 24 * 60 * 60 * 1000;
const now = new Date('2026-06-01T12:00:00Z');

const leaf = (overrides: Partial<FindingCertificate> = {}): FindingCertificate => ({
  commonName: 'app.example.com',
  sans: ['app.example.com'],
  notBefore: new Date(now.getTime() - 10 * DAY_MS),
  notAfter: new Date(now.getTime() + 80 * DAY_MS),
  keyAlgorithm: 'ECDSA',
  keySize: 256,
  signatureAlgorithm: 'ecdsa-with-SHA256',
  selfSigned: false,
  trustedBy: ['mozilla'],
  isLeaf: true,
  revocationStatus: 'good',
  ...overrides,
});

const host = (overrides: Partial<FindingInputs> = {}): FindingInputs => ({
  type: 'host',
  dnsName: 'app.example.com',
  errorSince: null,
  currentCertificates: [leaf()],
  chainComplete: true,
  presentedIntermediateSignatures: ['sha256WithRSAEncryption'],
  tlsVersions: [
    { version: 'TLSv1.2', supported: true, cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'] },
    { version: 'TLSv1.3', supported: true, cipherSuites: ['TLS_AES_128_GCM_SHA256'] },
  ],
  renewal: { renewalOverdue: false, renewalNotDeployed: false },
  ...overrides,
});

describe('evaluateFindings', () => {
  it('finds nothing wrong with a modern, trusted, matching host', () => {
    expect(evaluateFindings(host(), now)).toEqual([]);
  });

  it.each<[string, Partial<FindingInputs>, string[]]>([
    ['expired', { currentCertificates: [leaf({ notAfter: now })] }, ['expired']],
    ['not yet valid', { currentCertificates: [leaf({ notBefore: new Date(now.getTime() + 1000) })] }, ['not_yet_valid']],
    ['revoked', { currentCertificates: [leaf({ revocationStatus: 'revoked' })] }, ['revoked']],
    ['on another name', { dnsName: 'other.example.com' }, ['hostname_mismatch']],
    ['failing scans', { errorSince: new Date(now.getTime() - DAY_MS) }, ['scan_failing']],
    ['untrusted', { currentCertificates: [leaf({ trustedBy: [] })] }, ['untrusted']],
    ['with an incomplete chain', { chainComplete: false }, ['chain_incomplete']],
    ['self-signed', { currentCertificates: [leaf({ selfSigned: true, trustedBy: [] })] }, ['untrusted', 'self_signed']],
    ['with a 1024-bit RSA key', { currentCertificates: [leaf({ keyAlgorithm: 'RSA', keySize: 1024 })] }, ['weak_key']],
    ['with a P-224 key', { currentCertificates: [leaf({ keySize: 224 })] }, ['weak_key']],
    ['with a SHA-1 leaf', { currentCertificates: [leaf({ signatureAlgorithm: 'sha1WithRSAEncryption' })] }, ['weak_signature']],
    ['with a SHA-1 intermediate', { presentedIntermediateSignatures: ['sha1WithRSAEncryption'] }, ['weak_signature']],
    ['with an MD5 leaf', { currentCertificates: [leaf({ signatureAlgorithm: 'md5WithRSAEncryption' })] }, ['weak_signature']],
    [
      'accepting TLS 1.0',
      { tlsVersions: [{ version: 'TLSv1.0', supported: true, cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'] }] },
      ['legacy_protocol'],
    ],
    [
      'accepting 3DES',
      { tlsVersions: [{ version: 'TLSv1.2', supported: true, cipherSuites: ['TLS_RSA_WITH_3DES_EDE_CBC_SHA'] }] },
      ['weak_cipher'],
    ],
    [
      'accepting RC4',
      { tlsVersions: [{ version: 'TLSv1.2', supported: true, cipherSuites: ['TLS_RSA_WITH_RC4_128_SHA'] }] },
      ['weak_cipher'],
    ],
    [
      'accepting anonymous suites',
      { tlsVersions: [{ version: 'TLSv1.2', supported: true, cipherSuites: ['TLS_DH_anon_WITH_AES_128_CBC_SHA'] }] },
      ['weak_cipher'],
    ],
    ['whose renewal is overdue', { renewal: { renewalOverdue: true, renewalNotDeployed: false } }, ['renewal_overdue']],
    ['whose renewal is not deployed', { renewal: { renewalOverdue: false, renewalNotDeployed: true } }, ['renewal_not_deployed']],
  ])('a host %s', (_label, overrides, expected) => {
    expect(evaluateFindings(host(overrides), now)).toEqual(expected);
  });

  it('does not count TLS 1.0 that the profile found refused', () => {
    const tlsVersions = [{ version: 'TLSv1.0' as const, supported: false, cipherSuites: [] }];
    expect(evaluateFindings(host({ tlsVersions }), now)).toEqual([]);
  });

  it('keeps the host-only findings to host endpoints', () => {
    const manual = host({
      type: 'manual',
      dnsName: null,
      chainComplete: null,
      currentCertificates: [leaf({ trustedBy: [], isLeaf: false })],
    });
    expect(evaluateFindings({ ...manual, presentedIntermediateSignatures: ['sha1WithRSAEncryption'] }, now)).toEqual([]);
  });

  it('checks the CN only when the leaf has no DNS SANs, and an IP literal against IP SANs', () => {
    const cnOnly = leaf({ sans: [], commonName: 'app.example.com' });
    expect(evaluateFindings(host({ currentCertificates: [cnOnly] }), now)).toEqual([]);
    const withOtherSan = leaf({ sans: ['www.example.com'], commonName: 'app.example.com' });
    expect(evaluateFindings(host({ currentCertificates: [withOtherSan] }), now)).toEqual(['hostname_mismatch']);
    const byAddress = leaf({ sans: ['10.0.0.1'], commonName: '10.0.0.2' });
    expect(evaluateFindings(host({ dnsName: '10.0.0.1', currentCertificates: [byAddress] }), now)).toEqual([]);
    expect(evaluateFindings(host({ dnsName: '10.0.0.2', currentCertificates: [byAddress] }), now)).toEqual(['hostname_mismatch']);
  });

  it.each<[string, number, boolean]>([
    ['2019-01-01', 825, false],
    ['2019-01-01', 826, true],
    ['2021-01-01', 398, false],
    ['2021-01-01', 399, true],
    ['2026-04-01', 200, false],
    ['2026-04-01', 201, true],
    ['2027-04-01', 101, true],
    ['2029-04-01', 48, true],
    ['2029-04-01', 47, false],
  ])('a trusted leaf issued on %s for %d days: long_validity %s', (issued, days, expected) => {
    const notBefore = new Date(`${issued}T00:00:00Z`);
    const certificate = leaf({ notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) });
    const codes = evaluateFindings(host({ currentCertificates: [certificate] }), new Date(notBefore.getTime() + DAY_MS));
    expect(codes.includes('long_validity')).toBe(expected);
  });

  it('leaves a private CA’s long-lived leaf alone', () => {
    const notBefore = new Date('2026-04-01T00:00:00Z');
    const certificate = leaf({ notBefore, notAfter: new Date(notBefore.getTime() + 3650 * DAY_MS), trustedBy: [] });
    expect(evaluateFindings(host({ currentCertificates: [certificate] }), now)).toEqual(['untrusted']);
  });
});

describe('describeFindings', () => {
  it('puts critical findings first, then warnings, then information, each with a sentence', () => {
    const described = describeFindings(['long_validity', 'weak_key', 'expired', 'unknown_code']);
    expect(described.map((f) => [f.code, f.severity])).toEqual([
      ['expired', 'critical'],
      ['weak_key', 'warning'],
      ['long_validity', 'info'],
    ]);
    for (const code of FINDING_CODES) expect(describeFindings([code])[0].message).toMatch(/^[A-Z].*[.]$/);
  });
});
