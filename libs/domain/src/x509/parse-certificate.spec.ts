import { createHash, webcrypto } from 'node:crypto';
import { isIssuedBy } from './issued-by';
import { parseCertificates } from './parse-certificates';
import { generateKeyPair, KeyType, mintCertificate, MintedCertificate, mintChain } from '../../testing/mint';
import { ParsedCertificate } from './types';
import { peculiarX509 } from './x509-library';

const x509 = peculiarX509();

type CryptoKeyPair = webcrypto.CryptoKeyPair;

const NOT_BEFORE = new Date('2026-01-01T00:00:00Z');
const NOT_AFTER = new Date('2027-01-01T00:00:00Z');

const keys = {} as Record<KeyType, CryptoKeyPair>;

beforeAll(async () => {
  // RSA-4096 generation takes seconds: every key is made once for the whole file. The 4096-bit key
  // hashes with SHA-384 so that sha384WithRSAEncryption gets covered too.
  const types: KeyType[] = ['rsa-2048', 'rsa-pss-2048', 'ecdsa-p256', 'ecdsa-p384', 'ed25519'];
  const [rsa4096, ...others] = await Promise.all([generateKeyPair('rsa-4096', 'SHA-384'), ...types.map((type) => generateKeyPair(type))]);
  keys['rsa-4096'] = rsa4096;
  types.forEach((type, i) => (keys[type] = others[i]));
}, 60_000);

function parseOne(minted: MintedCertificate): ParsedCertificate {
  const result = parseCertificates(minted.der);
  expect(result.errors).toEqual([]);
  expect(result.certificates).toHaveLength(1);
  return result.certificates[0];
}

/** Read back with @peculiar/x509, a decoder independent of ours. */
function keyIdentifiers(minted: MintedCertificate) {
  return {
    subjectKeyId: minted.certificate.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ?? null,
    authorityKeyId: minted.certificate.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId ?? null,
  };
}

function expectedPem(der: Uint8Array): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return ['-----BEGIN CERTIFICATE-----', ...lines, '-----END CERTIFICATE-----', ''].join('\n');
}

const sha = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest('hex');

describe('every field, for each key type', () => {
  it.each([
    ['rsa-2048', { keyAlgorithm: 'RSA', keySize: 2048, keyCurve: null, signatureAlgorithm: 'sha256WithRSAEncryption' }],
    ['rsa-4096', { keyAlgorithm: 'RSA', keySize: 4096, keyCurve: null, signatureAlgorithm: 'sha384WithRSAEncryption' }],
    ['rsa-pss-2048', { keyAlgorithm: 'RSA', keySize: 2048, keyCurve: null, signatureAlgorithm: 'RSASSA-PSS' }],
    ['ecdsa-p256', { keyAlgorithm: 'ECDSA', keySize: 256, keyCurve: 'P-256', signatureAlgorithm: 'ecdsa-with-SHA256' }],
    ['ecdsa-p384', { keyAlgorithm: 'ECDSA', keySize: 384, keyCurve: 'P-384', signatureAlgorithm: 'ecdsa-with-SHA384' }],
    ['ed25519', { keyAlgorithm: 'Ed25519', keySize: 256, keyCurve: null, signatureAlgorithm: 'Ed25519' }],
  ] as const)('%s', async (type, key) => {
    const minted = await mintCertificate({
      keys: keys[type],
      subject: `CN=${type}.example.com, O=Example, OU=Platform`,
      serialNumber: '7a3f01',
      notBefore: NOT_BEFORE,
      notAfter: NOT_AFTER,
      sans: [`${type}.example.com`, '*.api.example.com', '192.0.2.10'],
    });

    const parsed = parseOne(minted);

    const name = `CN=${type}.example.com, O=Example, OU=Platform`;
    expect(parsed).toEqual({
      der: minted.der,
      pem: expectedPem(minted.der),
      fingerprintSha256: sha('sha256', minted.der),
      fingerprintSha1: sha('sha1', minted.der),
      serialNumber: '7a3f01',
      subject: name,
      issuer: name,
      commonName: `${type}.example.com`,
      subjectOrganization: 'Example',
      subjectOrganizationalUnit: 'Platform',
      issuerCommonName: `${type}.example.com`,
      issuerOrganization: 'Example',
      sans: [`${type}.example.com`, '*.api.example.com', '192.0.2.10'],
      notBefore: NOT_BEFORE,
      notAfter: NOT_AFTER,
      ...key,
      keyUsage: ['digitalSignature', 'keyEncipherment'],
      extendedKeyUsage: ['serverAuth'],
      ocspUrls: [],
      caIssuersUrls: [],
      crlDistributionPoints: [],
      subjectKeyId: expect.stringMatching(/^[0-9a-f]{40}$/),
      authorityKeyId: null,
      isCa: false,
      pathLength: null,
      selfSigned: true,
      subjectDnHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      issuerDnHash: parsed.subjectDnHash,
    });
    expect(parsed.subjectKeyId).toBe(keyIdentifiers(minted).subjectKeyId);
    // A plain Uint8Array that owns its bytes, not a view into the input.
    expect(parsed.der.constructor).toBe(Uint8Array);
    expect(parsed.pem).toBe(minted.pem);
  });
});

describe('extensions', () => {
  it('reports key usage in bit order, named and unknown purposes, AIA, CRL distribution points and path length', async () => {
    const flags = x509.KeyUsageFlags;
    const minted = await mintCertificate({
      keys: keys['ecdsa-p256'],
      subject: 'CN=Everything CA',
      ca: true,
      pathLength: 2,
      // decipherOnly is bit 8, in the second octet of the BIT STRING.
      keyUsage: flags.decipherOnly | flags.cRLSign | flags.keyCertSign | flags.nonRepudiation | flags.digitalSignature,
      extendedKeyUsage: [...Object.values(x509.ExtendedKeyUsage), '1.3.6.1.4.1.311.10.3.4'],
      sans: ['ca.example.com', '2001:DB8:0:0:0:0:0:1', 'pki@example.com', 'https://pki.example.com/ca'],
      ocspUrls: ['http://ocsp.example.com'],
      caIssuersUrls: ['http://pki.example.com/ca.cer', 'ldap://ldap.example.com/cn=ca'],
      crlUrls: ['http://crl.example.com/ca.crl', 'http://crl2.example.com/ca.crl'],
    });

    expect(parseOne(minted)).toMatchObject({
      keyUsage: ['digitalSignature', 'nonRepudiation', 'keyCertSign', 'cRLSign', 'decipherOnly'],
      extendedKeyUsage: [
        'serverAuth',
        'clientAuth',
        'codeSigning',
        'emailProtection',
        'timeStamping',
        'OCSPSigning',
        '1.3.6.1.4.1.311.10.3.4',
      ],
      sans: ['ca.example.com', '2001:db8::1', 'pki@example.com', 'https://pki.example.com/ca'],
      ocspUrls: ['http://ocsp.example.com'],
      caIssuersUrls: ['http://pki.example.com/ca.cer', 'ldap://ldap.example.com/cn=ca'],
      crlDistributionPoints: ['http://crl.example.com/ca.crl', 'http://crl2.example.com/ca.crl'],
      isCa: true,
      pathLength: 2,
    });
  });

  it('reports a CA without a path length constraint', async () => {
    const minted = await mintCertificate({ keys: keys['ecdsa-p256'], subject: 'CN=Unconstrained CA', ca: true });
    expect(parseOne(minted)).toMatchObject({ isCa: true, pathLength: null, keyUsage: ['keyCertSign', 'cRLSign'], extendedKeyUsage: [] });
  });

  it('drops the sign octet DER puts before a serial number whose top bit is set', async () => {
    const minted = await mintCertificate({ keys: keys['ecdsa-p256'], serialNumber: 'c0ffee' });
    // INTEGER, length 4, 00 c0 ff ee.
    expect(Buffer.from(minted.der).includes(Buffer.from('020400c0ffee', 'hex'))).toBe(true);
    expect(parseOne(minted).serialNumber).toBe('c0ffee');
  });
});

describe('names', () => {
  it('has a null common name when the subject has no CN', async () => {
    const minted = await mintCertificate({ keys: keys['ecdsa-p256'], subject: 'O=Example, OU=Devices', sans: ['device.example.com'] });
    expect(parseOne(minted)).toMatchObject({
      subject: 'O=Example, OU=Devices',
      commonName: null,
      subjectOrganization: 'Example',
      subjectOrganizationalUnit: 'Devices',
      issuerCommonName: null,
      sans: ['device.example.com'],
    });
  });

  it('parses an empty subject', async () => {
    const minted = await mintCertificate({ keys: keys['ecdsa-p256'], subject: '', sans: ['empty.example.com'] });
    expect(parseOne(minted)).toMatchObject({ subject: '', commonName: null, subjectOrganization: null, subjectOrganizationalUnit: null });
  });
});

describe('validity dates are reported, not judged', () => {
  it.each([
    ['expired', new Date('2015-03-01T08:30:00Z'), new Date('2016-03-01T08:30:00Z')],
    // After 2049 X.509 switches from UTCTime to GeneralizedTime.
    ['not yet valid', new Date('2060-06-15T12:00:01Z'), new Date('2061-06-15T12:00:01Z')],
  ])('%s', async (_, notBefore, notAfter) => {
    const minted = await mintCertificate({ keys: keys['ecdsa-p256'], notBefore, notAfter });
    expect(parseOne(minted)).toMatchObject({ notBefore, notAfter });
  });
});

describe('a CA -> intermediate -> leaf chain', () => {
  let root: ParsedCertificate;
  let intermediate: ParsedCertificate;
  let leaf: ParsedCertificate;
  let chain: Awaited<ReturnType<typeof mintChain>>;

  beforeAll(async () => {
    // Three different algorithms, so every link also crosses key types.
    chain = await mintChain({ root: keys['rsa-4096'], intermediate: keys['ecdsa-p384'], leaf: keys['ed25519'] });
    [leaf, intermediate, root] = parseCertificates([chain.leaf, chain.intermediate, chain.root].map((c) => c.pem).join('\n')).certificates;
  });

  it('links each certificate to its issuer by key identifier', () => {
    expect(leaf.authorityKeyId).toBe(intermediate.subjectKeyId);
    expect(intermediate.authorityKeyId).toBe(root.subjectKeyId);
    expect(root.authorityKeyId).toBeNull();
    expect(leaf.subjectKeyId).toBe(keyIdentifiers(chain.leaf).subjectKeyId);
    expect(leaf.authorityKeyId).toBe(keyIdentifiers(chain.leaf).authorityKeyId);
  });

  it('knows who issued whom', () => {
    expect(isIssuedBy(leaf, intermediate)).toBe(true);
    expect(isIssuedBy(intermediate, root)).toBe(true);
    expect(isIssuedBy(root, root)).toBe(true);
    expect(isIssuedBy(leaf, root)).toBe(false);
    expect(isIssuedBy(intermediate, leaf)).toBe(false);
  });

  it('tells a CA from another CA with the same name by key identifier', async () => {
    const namesake = parseOne(
      await mintCertificate({ keys: keys['ecdsa-p256'], subject: 'CN=Certkeeper Test Intermediate, O=Certkeeper', ca: true }),
    );
    expect(namesake.subject).toBe(intermediate.subject);
    expect(isIssuedBy(leaf, namesake)).toBe(false);
  });

  it('names the issuer and the algorithms along the chain', () => {
    expect(leaf).toMatchObject({
      issuer: 'CN=Certkeeper Test Intermediate, O=Certkeeper',
      issuerCommonName: 'Certkeeper Test Intermediate',
      issuerOrganization: 'Certkeeper',
      keyAlgorithm: 'Ed25519',
      signatureAlgorithm: 'ecdsa-with-SHA384',
      ocspUrls: ['http://ocsp.example.test'],
      crlDistributionPoints: ['http://crl.example.test/ca.crl'],
    });
    expect(intermediate).toMatchObject({ isCa: true, pathLength: 0, keyCurve: 'P-384', signatureAlgorithm: 'sha384WithRSAEncryption' });
  });

  it('calls only the root self-signed', () => {
    expect([root, intermediate, leaf].map((certificate) => certificate.selfSigned)).toEqual([true, false, false]);
  });

  it('calls a self-signed leaf self-signed', async () => {
    const selfSignedLeaf = parseOne(await mintCertificate({ keys: keys['ecdsa-p256'], subject: 'CN=self.example.com' }));
    expect(selfSignedLeaf).toMatchObject({ selfSigned: true, isCa: false });
  });

  it('does not call a certificate self-signed just because its subject and issuer are equal', async () => {
    const ca = await mintCertificate({ keys: keys['ecdsa-p256'], subject: 'CN=twin.example.com', ca: true });
    const twin = parseOne(await mintCertificate({ keys: keys['ecdsa-p384'], subject: 'CN=twin.example.com', issuer: ca }));
    expect(twin.subject).toBe(twin.issuer);
    expect(twin.subjectDnHash).toBe(twin.issuerDnHash);
    expect(twin.selfSigned).toBe(false);
  });
});
