import { createHash } from 'node:crypto';
import * as pkijs from 'pkijs';
import { readChildren, readSingleDerElement } from './der';
import { parseCertificates, parseFirstCertificate } from './parse-certificates';
import { mintCertificate, mintChain, type MintedCertificate, type MintedChain } from '../../testing/mint';
import type { CertificateParseResult } from './types';

let chain: MintedChain;
let unrelated: MintedCertificate;

beforeAll(async () => {
  chain = await mintChain();
  unrelated = await mintCertificate({ subject: 'CN=unrelated.example.com' });
});

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const fingerprints = (result: CertificateParseResult) => result.certificates.map((certificate) => certificate.fingerprintSha256);
const fingerprintsOf = (...minted: MintedCertificate[]) => minted.map((certificate) => sha256(certificate.der));
const pemBlock = (label: string, bytes: Uint8Array) =>
  `-----BEGIN ${label}-----\n${Buffer.from(bytes).toString('base64').replace(/.{64}/g, '$&\n')}\n-----END ${label}-----\n`;

/** A certs-only SignedData, as `openssl crl2pkcs7 -nocrl` writes it, built by pkijs with the certificates in this order. */
function bundle(...certificates: MintedCertificate[]): Uint8Array {
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: pkijs.ContentInfo.DATA }),
    ...(certificates.length > 0 ? { certificates: certificates.map((minted) => pkijs.Certificate.fromBER(minted.der)) } : {}),
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema() });
  return new Uint8Array(contentInfo.toSchema().toBER());
}

/** ContentInfo { contentType, [0] EXPLICIT content }, short lengths only. */
function contentInfoOf(contentTypeHex: string, content: number[]): Uint8Array {
  const oid = [0x06, contentTypeHex.length / 2, ...Buffer.from(contentTypeHex, 'hex')];
  const explicit = [0xa0, content.length, ...content];
  return Uint8Array.from([0x30, oid.length + explicit.length, ...oid, ...explicit]);
}

const DATA_OID = '2a864886f70d010701';
const ENVELOPED_DATA_OID = '2a864886f70d010703';

describe('PKCS #7 bundles', () => {
  it('reads every certificate of a DER bundle, leaf first whatever the bundle order, byte for byte', () => {
    const der = bundle(chain.root, chain.leaf, chain.intermediate);
    const result = parseCertificates(der);
    expect(result.errors).toEqual([]);
    expect(fingerprints(result)).toEqual(fingerprintsOf(chain.leaf, chain.root, chain.intermediate));
    expect(result.certificates[0].der).toEqual(chain.leaf.der);
    expect(parseCertificates(bundle(chain.intermediate, chain.root, chain.leaf)).certificates[0].commonName).toBe('leaf.example.com');
  });

  it.each(['PKCS7', 'CMS', 'PKCS #7 SIGNED DATA'])('reads a %s PEM block, as text and as bytes', (label) => {
    const pem = pemBlock(label, bundle(chain.intermediate, chain.leaf));
    for (const input of [pem, new TextEncoder().encode(pem), pem.replace(/\n/g, '\r\n')]) {
      const result = parseCertificates(input);
      expect(result.errors).toEqual([]);
      expect(fingerprints(result)).toEqual(fingerprintsOf(chain.leaf, chain.intermediate));
    }
  });

  it('reads a bundle as bare base64, and as DER followed by a newline', () => {
    const der = bundle(chain.root, chain.leaf);
    expect(fingerprints(parseCertificates(Buffer.from(der).toString('base64').replace(/.{76}/g, '$&\n')))).toEqual(
      fingerprintsOf(chain.leaf, chain.root),
    );
    expect(fingerprints(parseCertificates(Buffer.concat([der, Buffer.from('\r\n')])))).toEqual(fingerprintsOf(chain.leaf, chain.root));
  });

  it('reads PKCS7 blocks among CERTIFICATE blocks in input order, each certificate once, other blocks skipped', () => {
    const input = [
      unrelated.pem,
      'Bag Attributes: none',
      pemBlock('PKCS7', bundle(chain.root, chain.intermediate, chain.leaf)),
      pemBlock('PRIVATE KEY', Uint8Array.from([0x30, 0x00])),
      chain.leaf.pem,
    ].join('\n');
    const result = parseCertificates(input);
    expect(result.errors).toEqual([]);
    expect(fingerprints(result)).toEqual(fingerprintsOf(unrelated, chain.leaf, chain.root, chain.intermediate));
  });

  it('reads BER with indefinite lengths, as streaming encoders write it', () => {
    const [contentType, explicitContent] = readChildren(readSingleDerElement(bundle(chain.intermediate, chain.leaf)));
    const [signedData] = readChildren(explicitContent);
    const ber = Buffer.concat([
      Buffer.from([0x30, 0x80]),
      contentType.encoded,
      Buffer.from([0xa0, 0x80]),
      signedData.encoded,
      Buffer.from([0, 0, 0, 0]),
    ]);
    const result = parseCertificates(ber);
    expect(result.errors).toEqual([]);
    expect(fingerprints(result)).toEqual(fingerprintsOf(chain.leaf, chain.intermediate));
  });

  describe('the leaf', () => {
    it('is a lone certificate, self-signed root included', () => {
      expect(fingerprints(parseCertificates(bundle(chain.root)))).toEqual(fingerprintsOf(chain.root));
    });

    it('is the lowest certificate of a partial chain', () => {
      expect(fingerprints(parseCertificates(bundle(chain.root, chain.intermediate)))).toEqual(
        fingerprintsOf(chain.intermediate, chain.root),
      );
    });

    it('is the first in bundle order when several issued none of the others, preferring one that is not a CA', () => {
      expect(fingerprints(parseCertificates(bundle(chain.intermediate, unrelated, chain.leaf)))).toEqual(
        fingerprintsOf(unrelated, chain.intermediate, chain.leaf),
      );
      // Without its intermediate the chain falls apart: the root issued neither, and is a CA.
      expect(fingerprints(parseCertificates(bundle(chain.root, chain.leaf)))).toEqual(fingerprintsOf(chain.leaf, chain.root));
    });

    it('is what parseFirstCertificate returns', () => {
      expect(parseFirstCertificate(bundle(chain.root, chain.intermediate, chain.leaf))).toEqual({
        certificate: expect.objectContaining({ fingerprintSha256: sha256(chain.leaf.der) }),
      });
      expect(parseFirstCertificate(pemBlock('PKCS7', bundle(chain.intermediate, chain.leaf)) + unrelated.pem)).toEqual({
        certificate: expect.objectContaining({ commonName: 'leaf.example.com' }),
      });
    });
  });

  describe('partial failure', () => {
    /** The bundle with the signature BIT STRING of `broken` retagged as an OCTET STRING: the lengths still hold. */
    function bundleWithBrokenCertificate(broken: MintedCertificate, ...certificates: MintedCertificate[]): Buffer {
      const der = Buffer.from(bundle(...certificates));
      const [, , signatureValue] = readChildren(readSingleDerElement(broken.der));
      const at = der.indexOf(Buffer.from(broken.der)) + broken.der.length - signatureValue.encoded.length;
      der[at] = 0x04;
      return der;
    }

    it('returns the good certificates of a bundle next to an error for the malformed one', () => {
      const der = bundleWithBrokenCertificate(chain.intermediate, chain.root, chain.intermediate, chain.leaf);
      const result = parseCertificates(der);
      expect(fingerprints(result)).toEqual(fingerprintsOf(chain.leaf, chain.root));
      expect(result.errors).toEqual([
        { index: 0, positionInBundle: 1, code: 'invalid_der', message: 'The data is not a valid DER-encoded X.509 certificate.' },
      ]);
    });

    it('gives the bundle’s block index in PEM, and parseFirstCertificate the error, since it might be the leaf’s', () => {
      const pkcs7 = pemBlock('PKCS7', bundleWithBrokenCertificate(chain.leaf, chain.intermediate, chain.leaf));
      expect(parseCertificates(unrelated.pem + pkcs7).errors).toMatchObject([{ index: 1, positionInBundle: 1, code: 'invalid_der' }]);
      expect(parseFirstCertificate(pkcs7)).toEqual({
        error: { index: 0, positionInBundle: 1, code: 'invalid_der', message: 'The data is not a valid DER-encoded X.509 certificate.' },
      });
    });

    it('reports a PKCS7 block without certificates next to the good CERTIFICATE blocks', () => {
      const result = parseCertificates(unrelated.pem + pemBlock('PKCS7', bundle()));
      expect(fingerprints(result)).toEqual(fingerprintsOf(unrelated));
      expect(result.errors).toEqual([{ index: 1, code: 'invalid_pkcs7', message: 'The PKCS #7 bundle has no certificates.' }]);
    });
  });

  describe('what is refused', () => {
    it.each([
      ['Data', () => contentInfoOf(DATA_OID, [0x04, 0x02, 0x68, 0x69]), 'The PKCS #7 data is Data, not SignedData'],
      ['EnvelopedData', () => contentInfoOf(ENVELOPED_DATA_OID, [0x30, 0x00]), 'The PKCS #7 data is EnvelopedData, not SignedData'],
      ['an unknown content type', () => contentInfoOf('2a0304', [0x30, 0x00]), 'The PKCS #7 data is of type 1.2.3.4, not SignedData'],
      ['a SignedData without certificates', () => bundle(), 'The PKCS #7 bundle has no certificates.'],
      [
        'a SignedData that is not one',
        () => contentInfoOf('2a864886f70d010702', [0x30, 0x03, 0x02, 0x01, 0x01]),
        'The PKCS #7 SignedData is malformed.',
      ],
      ['a truncated bundle', () => bundle(chain.leaf).subarray(0, 300), 'The PKCS #7 data is truncated or malformed.'],
      ['a bundle followed by other data', () => Buffer.concat([bundle(chain.leaf), Buffer.from('garbage')]), 'Unexpected bytes follow'],
    ])("refuses %s as 'invalid_pkcs7' with a sentence saying why", (_, input, message) => {
      for (const form of [input(), Buffer.from(input()).toString('base64'), pemBlock('PKCS7', input())]) {
        const result = parseCertificates(form);
        expect(result.certificates).toEqual([]);
        expect(result.errors).toEqual([{ index: 0, code: 'invalid_pkcs7', message: expect.stringContaining(message) }]);
      }
    });

    it('counts the certificates inside bundles against the limit', () => {
      const der = bundle(chain.root, chain.intermediate, chain.leaf);
      expect(parseCertificates(der, { maxCertificates: 2 })).toEqual({
        certificates: [],
        errors: [{ index: 0, code: 'too_many', message: 'The input has 3 certificates; at most 2 are accepted at once.' }],
      });
      expect(parseCertificates(unrelated.pem + pemBlock('PKCS7', der), { maxCertificates: 3 }).errors).toEqual([
        { index: 1, code: 'too_many', message: 'The input has 4 certificates; at most 3 are accepted at once.' },
      ]);
      expect(parseCertificates(der, { maxCertificates: 3 }).certificates).toHaveLength(3);
    });

    it('survives every single-byte corruption and every truncation of a bundle', () => {
      const der = bundle(unrelated);
      for (let position = 0; position < der.length; position++) {
        const corrupted = Uint8Array.from(der);
        corrupted[position] ^= 0xff;
        const result = parseCertificates(corrupted);
        expect(result.certificates.length + result.errors.length).toBeGreaterThan(0);
      }
      for (let length = 0; length < der.length; length++) {
        const result = parseCertificates(der.subarray(0, length));
        expect(result.certificates).toEqual([]);
        expect(result.errors).toHaveLength(1);
      }
    });
  });
});
