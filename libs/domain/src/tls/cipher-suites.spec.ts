import { CIPHER_SUITE_TABLE } from './cipher-suite-table';
import {
  cipherSuiteId,
  cipherSuiteName,
  cipherSuitesToOffer,
  compactCipherSuitesToOffer,
  isSignalingCipherSuite,
  PRE_TLS13_CIPHER_SUITES,
  requiresTls12,
  TLS13_CIPHER_SUITES,
  TLS_EMPTY_RENEGOTIATION_INFO_SCSV,
} from './cipher-suites';

describe('cipher-suite registry', () => {
  it('names code points the IANA way and unknown ones in hex', () => {
    expect(cipherSuiteName(0xc02f)).toBe('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
    expect(cipherSuiteName(0x1301)).toBe('TLS_AES_128_GCM_SHA256');
    expect(cipherSuiteName(0x000a)).toBe('TLS_RSA_WITH_3DES_EDE_CBC_SHA');
    expect(cipherSuiteName(0xcca8)).toBe('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256');
    expect(cipherSuiteName(0x0a0a)).toBe('0x0A0A'); // GREASE
    expect(cipherSuiteName(0xfeff)).toBe('0xFEFF');
  });

  it('has one name per code point and one code point per name', () => {
    const ids = CIPHER_SUITE_TABLE.map(([id]) => id);
    const names = CIPHER_SUITE_TABLE.map(([, name]) => name);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(names).size).toBe(names.length);
    for (const [id, name] of CIPHER_SUITE_TABLE) expect(cipherSuiteId(name)).toBe(id);
    expect(cipherSuiteId('0x0A0A')).toBe(0x0a0a);
    expect(cipherSuiteId('TLS_NOT_A_SUITE')).toBeNull();
  });

  it('covers every family the brief names', () => {
    const families = ['_CHACHA20_', '_CAMELLIA_', '_ARIA_', '_3DES_', '_RC4_', '_SEED_', '_IDEA_', '_NULL_', 'EXPORT', '_anon_', '_CCM'];
    for (const family of families) expect(CIPHER_SUITE_TABLE.some(([, name]) => name.includes(family))).toBe(true);
    expect(TLS13_CIPHER_SUITES).toEqual([0x1301, 0x1302, 0x1303, 0x1304, 0x1305]);
  });

  it('treats the SCSVs as signals, never as suites to offer', () => {
    expect(isSignalingCipherSuite(TLS_EMPTY_RENEGOTIATION_INFO_SCSV)).toBe(true);
    expect(isSignalingCipherSuite(0x5600)).toBe(true);
    expect(isSignalingCipherSuite(0xc02f)).toBe(false);
    for (const version of ['SSLv3', 'TLSv1.0', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const) {
      expect(cipherSuitesToOffer(version).some(isSignalingCipherSuite)).toBe(false);
    }
  });

  it('offers every other known pre-1.3 suite at TLS 1.2, once, strongest first', () => {
    const offer = cipherSuitesToOffer('TLSv1.2');
    const expected = CIPHER_SUITE_TABLE.map(([id]) => id).filter(
      (id) => !isSignalingCipherSuite(id) && !TLS13_CIPHER_SUITES.includes(id) && ![0x0000, 0x00c6, 0x00c7, 0xc0b4, 0xc0b5].includes(id),
    );
    expect([...offer].sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(offer.length).toBeGreaterThan(300);
    expect(cipherSuiteName(offer[0])).toMatch(/^TLS_ECDHE_(ECDSA|RSA)_WITH_(AES_\d+_GCM|CHACHA20)/);
    const position = (name: string) => offer.indexOf(cipherSuiteId(name)!);
    expect(position('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256')).toBeLessThan(position('TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'));
    expect(position('TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA')).toBeLessThan(position('TLS_RSA_WITH_3DES_EDE_CBC_SHA'));
    expect(position('TLS_RSA_WITH_3DES_EDE_CBC_SHA')).toBeLessThan(position('TLS_RSA_WITH_RC4_128_MD5'));
    expect(position('TLS_RSA_WITH_RC4_128_MD5')).toBeLessThan(position('TLS_RSA_EXPORT_WITH_RC4_40_MD5'));
    expect(position('TLS_RSA_EXPORT_WITH_RC4_40_MD5')).toBeLessThan(position('TLS_RSA_WITH_NULL_MD5'));
  });

  it('leaves TLS 1.2-only suites out of older versions', () => {
    expect(requiresTls12(0xc02f)).toBe(true); // GCM
    expect(requiresTls12(0xc0ac)).toBe(true); // CCM
    expect(requiresTls12(0xcca8)).toBe(true); // ChaCha20
    expect(requiresTls12(0xc027)).toBe(true); // CBC with SHA-256
    expect(requiresTls12(0xc013)).toBe(false); // CBC with SHA-1
    const legacy = cipherSuitesToOffer('TLSv1.0');
    expect(legacy).toContain(0xc013);
    expect(legacy).toContain(0x000a);
    expect(legacy.some(requiresTls12)).toBe(false);
    expect(cipherSuitesToOffer('SSLv3')).toEqual(legacy);
    expect(cipherSuitesToOffer('TLSv1.3')).toEqual([...TLS13_CIPHER_SUITES]);
  });

  it('keeps the compact bundle small and within the full one', () => {
    for (const version of ['TLSv1.0', 'TLSv1.2'] as const) {
      const compact = compactCipherSuitesToOffer(version);
      expect(compact.length).toBeGreaterThan(5);
      expect(compact.length).toBeLessThan(40);
      for (const id of compact) expect(PRE_TLS13_CIPHER_SUITES).toContain(id);
    }
    expect(compactCipherSuitesToOffer('TLSv1.0').some(requiresTls12)).toBe(false);
  });
});
