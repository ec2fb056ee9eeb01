import { X509Certificate } from 'node:crypto';
import { generateKeyPair, type HashName, type KeyType, mintCertificate, type MintedCertificate } from '../testing';
import { verifyCertificateSignature, verifyCertificateSignatureAsync } from './signature';

const publicKeyOf = (minted: MintedCertificate) => new X509Certificate(minted.der).publicKey;

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
  ])('agrees with X509Certificate.verify for an issuer with a %s key (%s)', async (keyType, hash) => {
    const keys = await generateKeyPair(keyType, keyType.startsWith('rsa') ? hash : undefined);
    const issuer = await mintCertificate({ subject: 'CN=Issuing CA', keys, ca: true });
    const child = await mintCertificate({ issuer, ecdsaHash: keyType.startsWith('ecdsa') ? hash : undefined });
    for (const key of [publicKeyOf(issuer), publicKeyOf(unrelated), publicKeyOf(child)]) {
      const expected = new X509Certificate(child.der).verify(key);
      expect(verifyCertificateSignature(child.der, key)).toBe(expected);
      expect(await verifyCertificateSignatureAsync(child.der, key)).toBe(expected);
    }
    expect(verifyCertificateSignature(child.der, publicKeyOf(issuer))).toBe(true);
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
  });
});
