import { KeyObject, X509Certificate } from 'node:crypto';
import { generateKeyPair, type HashName, type KeyType, mintCertificate, type MintedCertificate, resignCertificate } from '../../testing';
import { readChildren, readSingleDerElement } from '../x509/der';
import { pkijsVerifiesSignature } from '../../testing/pkijs-oracle';
import { verifyCertificateSignature, verifyCertificateSignatureAsync } from './signature';

const publicKeyOf = (minted: MintedCertificate) => new X509Certificate(minted.der).publicKey;
/** pkijs's verdict, an algorithm or key it cannot use counting as "does not verify", as it does for us. */
const pkijsVerdict = (der: Uint8Array, issuerDer: Uint8Array) => pkijsVerifiesSignature(der, issuerDer).catch(() => false);

describe('verifyCertificateSignature', () => {
  let unrelated: MintedCertificate;

  beforeAll(async () => {
    unrelated = await mintCertificate({ subject: 'CN=Unrelated CA', ca: true });
  });

  it.each<[KeyType, HashName | undefined]>([
    ['ecdsa-p256', undefined],
    ['ecdsa-p256', 'SHA-384'],
    ['ecdsa-p384', undefined],
    ['rsa-2048', 'SHA-256'],
    ['rsa-2048', 'SHA-512'],
    ['rsa-pss-2048', 'SHA-256'], // not verified directly: goes through X509Certificate
    ['ed25519', undefined],
  ])('agrees with X509Certificate.verify and with pkijs for an issuer with a %s key (%s)', async (keyType, hash) => {
    const keys = await generateKeyPair(keyType, keyType.startsWith('rsa') ? hash : undefined);
    const issuer = await mintCertificate({ subject: 'CN=Issuing CA', keys, ca: true });
    const child = await mintCertificate({ issuer, ecdsaHash: keyType.startsWith('ecdsa') ? hash : undefined });
    for (const candidate of [issuer, unrelated, child]) {
      const key = publicKeyOf(candidate);
      const expected = new X509Certificate(child.der).verify(key);
      expect(verifyCertificateSignature(child.der, key)).toBe(expected);
      expect(await verifyCertificateSignatureAsync(child.der, key)).toBe(expected);
      // pkijs 3 has no Ed25519: it refuses to verify rather than answer (asserted below).
      if (keyType !== 'ed25519') expect(await pkijsVerdict(child.der, candidate.der)).toBe(expected);
    }
    expect(verifyCertificateSignature(child.der, publicKeyOf(issuer))).toBe(true);
    if (keyType === 'ed25519') {
      await expect(pkijsVerifiesSignature(child.der, issuer.der)).rejects.toThrow('Unsupported signature algorithm: 1.3.101.112');
    } else {
      expect(await pkijsVerifiesSignature(child.der, issuer.der)).toBe(true);
    }
  });

  it('refuses a certificate altered after signing, and bytes that are no certificate', async () => {
    const issuer = await mintCertificate({ subject: 'CN=Issuing CA', ca: true });
    const child = await mintCertificate({ issuer, subject: 'CN=aaaa.example.com' });
    const altered = Buffer.from(child.der);
    const at = altered.indexOf('aaaa.example.com');
    altered[at] = 'b'.charCodeAt(0);
    expect(verifyCertificateSignature(altered, publicKeyOf(issuer))).toBe(false);
    expect(verifyCertificateSignature(child.der.subarray(0, 100), publicKeyOf(issuer))).toBe(false);
    expect(verifyCertificateSignature(new Uint8Array([0x30, 0x00]), publicKeyOf(issuer))).toBe(false);
    expect(await verifyCertificateSignatureAsync(altered, publicKeyOf(issuer))).toBe(false);
    expect(await verifyCertificateSignatureAsync(child.der.subarray(0, 100), publicKeyOf(issuer))).toBe(false);
    expect(await pkijsVerifiesSignature(altered, issuer.der)).toBe(false);
    expect(await pkijsVerifiesSignature(child.der, issuer.der)).toBe(true);
  });

  /**
   * RFC 5280 4.1.1.2: the signatureAlgorithm outside the signed part must equal the signature field
   * inside it, or what the signer committed to is not what a verifier checks. Here the inside says
   * ecdsa-with-SHA384, the outside ecdsa-with-SHA256, and the signature really is ECDSA with SHA-256
   * over the edited tbsCertificate.
   */
  it('refuses a certificate whose inner and outer signature algorithms differ, which pkijs accepts', async () => {
    const issuer = await mintCertificate({ subject: 'CN=Issuing CA', ca: true });
    const child = await mintCertificate({ issuer, subject: 'CN=mismatch.example.com' });
    const issuerPrivateKey = KeyObject.from(issuer.keys.privateKey);
    const [tbsCertificate, outerAlgorithm] = readChildren(readSingleDerElement(child.der));
    const innerAlgorithm = readChildren(tbsCertificate)[2]; // after [0] version and serialNumber
    expect(Buffer.from(innerAlgorithm.encoded).toString('hex')).toBe('300a06082a8648ce3d040302'); // ecdsa-with-SHA256
    const lastOidOctet = innerAlgorithm.encoded.byteOffset + innerAlgorithm.encoded.length - 1;

    const resigned = resignCertificate(child.der, issuerPrivateKey, () => undefined);
    const mismatched = resignCertificate(child.der, issuerPrivateKey, (tbs, tbsOffset) => {
      tbs[lastOidOctet - tbsOffset] = 0x03; // ecdsa-with-SHA384
    });
    const [, outerOfMismatched] = readChildren(readSingleDerElement(mismatched));
    expect(Buffer.from(outerOfMismatched.encoded)).toEqual(Buffer.from(outerAlgorithm.encoded));

    // Signed anew without the edit, the certificate verifies everywhere: only the mismatch differs.
    expect(verifyCertificateSignature(resigned, publicKeyOf(issuer))).toBe(true);
    expect(await pkijsVerifiesSignature(resigned, issuer.der)).toBe(true);

    expect(verifyCertificateSignature(mismatched, publicKeyOf(issuer))).toBe(false);
    expect(await verifyCertificateSignatureAsync(mismatched, publicKeyOf(issuer))).toBe(false);
    expect(new X509Certificate(mismatched).verify(publicKeyOf(issuer))).toBe(false); // OpenSSL refuses too
    // pkijs checks the signature with the outer algorithm and never reads the inner one.
    expect(await pkijsVerifiesSignature(mismatched, issuer.der)).toBe(true);
  });
});
