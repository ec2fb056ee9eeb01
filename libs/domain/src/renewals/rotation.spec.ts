import { compareRotation, isWeakSignature, type RotatedCertificate, wholeLifetimeDays } from './rotation';

const DAY_MS = 24 * 60 * 60 * 1000;
const issued = new Date('2026-03-01T00:00:00Z');

const old: RotatedCertificate = {
  issuer: 'CN=R10, O=Let’s Encrypt, C=US',
  trustedBy: ['mozilla', 'apple'],
  chainComplete: true,
  keyAlgorithm: 'RSA',
  keySize: 2048,
  signatureAlgorithm: 'sha256WithRSAEncryption',
  sans: ['www.example.com', 'example.com'],
  extendedKeyUsage: ['serverAuth', 'clientAuth'],
  notBefore: issued,
  notAfter: new Date(issued.getTime() + 90 * DAY_MS - 1000),
};
const renewed = (changes: Partial<RotatedCertificate>): RotatedCertificate => ({
  ...old,
  notBefore: new Date(issued.getTime() + 60 * DAY_MS),
  notAfter: new Date(issued.getTime() + 150 * DAY_MS - 1000),
  ...changes,
});

describe('compareRotation', () => {
  it('finds nothing in a like-for-like renewal, set-valued fields compared as sets', () => {
    expect(compareRotation(old, renewed({ sans: ['example.com', 'www.example.com'], trustedBy: ['apple', 'mozilla'] }))).toEqual({
      changes: [],
      regressions: [],
    });
  });

  it.each([
    ['issuer', { issuer: 'CN=E6, O=Let’s Encrypt, C=US' }, 'CN=R10, O=Let’s Encrypt, C=US', 'CN=E6, O=Let’s Encrypt, C=US', []],
    ['trustedBy', { trustedBy: ['mozilla'] }, ['apple', 'mozilla'], ['mozilla'], ['trustedBy']],
    ['trustedBy', { trustedBy: ['apple', 'chrome', 'mozilla'] }, ['apple', 'mozilla'], ['apple', 'chrome', 'mozilla'], []],
    ['chainComplete', { chainComplete: false }, true, false, ['chainComplete']],
    ['keyAlgorithm', { keyAlgorithm: 'ECDSA' }, 'RSA', 'ECDSA', []],
    ['keySize', { keySize: 1024 }, 2048, 1024, ['keySize']],
    ['keySize', { keySize: 4096 }, 2048, 4096, []],
    [
      'signatureAlgorithm',
      { signatureAlgorithm: 'sha1WithRSAEncryption' },
      'sha256WithRSAEncryption',
      'sha1WithRSAEncryption',
      ['signatureAlgorithm'],
    ],
    [
      'signatureAlgorithm',
      { signatureAlgorithm: 'md5WithRSAEncryption' },
      'sha256WithRSAEncryption',
      'md5WithRSAEncryption',
      ['signatureAlgorithm'],
    ],
    ['signatureAlgorithm', { signatureAlgorithm: 'sha384WithRSAEncryption' }, 'sha256WithRSAEncryption', 'sha384WithRSAEncryption', []],
    ['sans', { sans: ['www.example.com'] }, ['example.com', 'www.example.com'], ['www.example.com'], ['sans']],
    [
      'sans',
      { sans: ['example.com', 'www.example.com', 'api.example.com'] },
      ['example.com', 'www.example.com'],
      ['api.example.com', 'example.com', 'www.example.com'],
      [],
    ],
    ['extendedKeyUsage', { extendedKeyUsage: ['serverAuth'] }, ['clientAuth', 'serverAuth'], ['serverAuth'], ['extendedKeyUsage']],
    ['lifetimeDays', { notAfter: new Date(issued.getTime() + 60 * DAY_MS + 47 * DAY_MS) }, 90, 47, []],
  ] as const)('compares %s: %j', (field, change, from, to, regressions) => {
    const comparison = compareRotation(old, renewed(change));
    expect(comparison.changes).toEqual([{ field, from, to }]);
    expect(comparison.regressions).toEqual(regressions);
  });

  it('a changed algorithm with a smaller size is a change of kind, not a smaller key', () => {
    const comparison = compareRotation(old, renewed({ keyAlgorithm: 'ECDSA', keySize: 256 }));
    expect(comparison.changes.map((c) => c.field)).toEqual(['keyAlgorithm', 'keySize']);
    expect(comparison.regressions).toEqual([]);
  });

  it('a weak signature that was weak before is no regression', () => {
    const weak = { ...old, signatureAlgorithm: 'sha1WithRSAEncryption' };
    expect(
      compareRotation(weak, { ...weak, notBefore: renewed({}).notBefore, signatureAlgorithm: 'md5WithRSAEncryption' }).regressions,
    ).toEqual([]);
  });

  it('compares SANs and EKUs lost without regard to case', () => {
    expect(compareRotation(old, renewed({ sans: ['WWW.example.com', 'Example.com'] })).regressions).toEqual([]);
  });

  it('leaves chainComplete out while either side is unknown (an upload)', () => {
    expect(compareRotation(old, renewed({ chainComplete: null })).changes).toEqual([]);
    expect(compareRotation({ ...old, chainComplete: null }, renewed({ chainComplete: false })).changes).toEqual([]);
  });

  it('is a rollback when the new certificate was issued before the old one (an older one reactivated)', () => {
    const comparison = compareRotation(renewed({}), old);
    expect(comparison.regressions).toEqual(['rollback']);
    expect(comparison.changes).toEqual([]);
  });

  it('lists regressions in field order, rollback last', () => {
    const worse = {
      ...old,
      notBefore: new Date(issued.getTime() - DAY_MS),
      keySize: 1024,
      sans: ['www.example.com'],
      chainComplete: false,
    };
    expect(compareRotation(old, worse).regressions).toEqual(['chainComplete', 'keySize', 'sans', 'rollback']);
  });
});

describe('wholeLifetimeDays', () => {
  it('rounds to whole days', () => {
    expect(wholeLifetimeDays(old)).toBe(90);
    expect(wholeLifetimeDays({ notBefore: issued, notAfter: new Date(issued.getTime() + 6 * DAY_MS + 1000) })).toBe(6);
  });
});

describe('isWeakSignature', () => {
  it.each([
    ['sha1WithRSAEncryption', true],
    ['ecdsa-with-SHA1', true],
    ['md5WithRSAEncryption', true],
    ['sha256WithRSAEncryption', false],
    ['ecdsa-with-SHA512', false],
    ['Ed25519', false],
  ])('%s: %s', (name, weak) => expect(isWeakSignature(name)).toBe(weak));
});
