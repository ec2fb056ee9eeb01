import { isIssuedBy } from './issued-by';

// Certificates from real parses are covered in parse-certificate.spec.ts; these are the rules alone.
describe('isIssuedBy', () => {
  const issuer = { subject: 'CN=Example CA, O=Example', subjectKeyId: 'aa11', subjectDnHash: 'h1' };
  const issued = { issuer: 'CN=Example CA, O=Example', authorityKeyId: 'aa11', issuerDnHash: 'h1' };

  it('needs equal names and, when both are known, equal key identifiers', () => {
    expect(isIssuedBy(issued, issuer)).toBe(true);
    expect(isIssuedBy({ ...issued, authorityKeyId: 'bb22' }, issuer)).toBe(false);
    expect(isIssuedBy({ ...issued, authorityKeyId: null }, issuer)).toBe(true);
    expect(isIssuedBy(issued, { ...issuer, subjectKeyId: null })).toBe(true);
    expect(isIssuedBy({ ...issued, authorityKeyId: 'AA11' }, issuer)).toBe(true);
  });

  it('compares names by their DER hashes when both sides have them', () => {
    expect(isIssuedBy({ ...issued, issuerDnHash: 'h2' }, issuer)).toBe(false);
    // Equal hashes decide even when the strings differ in case.
    expect(isIssuedBy({ ...issued, issuer: 'cn=example ca, o=example' }, issuer)).toBe(true);
  });

  it('falls back to the DN strings, ignoring case and whitespace runs, without hashes', () => {
    const stored = { subject: 'CN=Example CA, O=Example', subjectKeyId: null };
    expect(isIssuedBy({ issuer: 'cn=Example  CA, o=EXAMPLE', authorityKeyId: null }, stored)).toBe(true);
    expect(isIssuedBy({ issuer: 'CN=Other CA, O=Example', authorityKeyId: null }, stored)).toBe(false);
    expect(isIssuedBy({ issuer: 'CN=Example CA, O=Example', authorityKeyId: null, issuerDnHash: 'h1' }, stored)).toBe(true);
  });
});
