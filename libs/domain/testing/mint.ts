/**
 * Mints real certificates in memory for tests, so no test depends on checked-in PEM files that
 * expire or hide what they contain. Key generation is the slow part (RSA-4096 takes seconds):
 * generate keys once per test file and pass them in.
 */
import { type KeyObject, sign, webcrypto } from 'node:crypto';
import { readCertificateStructure } from '../src/x509/certificate-structure';
import { readChildren, readSingleDerElement } from '../src/x509/der';
import { parseIpAddress } from '../src/x509/ip-address';
import { peculiarX509, type PeculiarX509 } from '../src/x509/x509-library';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

// Node 20's global `crypto` is this same object; registering it explicitly keeps the factory
// working whichever provider another test registered.
const x509 = peculiarX509();
x509.cryptoProvider.set(webcrypto);

export type KeyType = 'rsa-2048' | 'rsa-4096' | 'rsa-pss-2048' | 'ecdsa-p256' | 'ecdsa-p384' | 'ed25519';
export type HashName = 'SHA-256' | 'SHA-384' | 'SHA-512';

const RSA_PUBLIC_EXPONENT = new Uint8Array([1, 0, 1]);
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A fresh, extractable key pair. For RSA the hash is part of the WebCrypto key, so it is chosen
 * here: it decides between sha256WithRSAEncryption and sha384WithRSAEncryption later.
 */
export async function generateKeyPair(type: KeyType, rsaHash: HashName = 'SHA-256'): Promise<CryptoKeyPair> {
  const usages: webcrypto.KeyUsage[] = ['sign', 'verify'];
  switch (type) {
    case 'rsa-2048':
    case 'rsa-4096':
      return rsaKeyPair('RSASSA-PKCS1-v1_5', type === 'rsa-2048' ? 2048 : 4096, rsaHash);
    case 'rsa-pss-2048':
      return rsaKeyPair('RSA-PSS', 2048, rsaHash);
    case 'ecdsa-p256':
      return webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, usages);
    case 'ecdsa-p384':
      return webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, usages);
    case 'ed25519':
      return webcrypto.subtle.generateKey({ name: 'Ed25519' }, true, usages) as Promise<CryptoKeyPair>;
  }
}

async function rsaKeyPair(name: 'RSASSA-PKCS1-v1_5' | 'RSA-PSS', modulusLength: number, hash: HashName): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey({ name, modulusLength, publicExponent: RSA_PUBLIC_EXPONENT, hash }, true, ['sign', 'verify']);
}

export interface MintOptions {
  /** Distinguished name, e.g. 'CN=api.example.com, O=Example'; '' for an empty subject. Default 'CN=leaf.example.com'. */
  subject?: string;
  /** The certificate's own keys. Default: a fresh P-256 pair (fast). */
  keys?: CryptoKeyPair;
  /** The CA that signs it. Default: the certificate signs itself. */
  issuer?: MintedCertificate;
  /** Hexadecimal. Default: random. */
  serialNumber?: string;
  /** Default: yesterday at a whole second (certificates store seconds). */
  notBefore?: Date;
  /** Default: 90 days after notBefore. */
  notAfter?: Date;
  /** Plain values: IP literals become iPAddress, values with '@' rfc822Name, with '://' URI, the rest dNSName. */
  sans?: string[];
  /** Adds critical basicConstraints cA=true. Default false (no basicConstraints at all). */
  ca?: boolean;
  pathLength?: number;
  /** x509.KeyUsageFlags bits. Default: keyCertSign | cRLSign for a CA, digitalSignature | keyEncipherment otherwise. */
  keyUsage?: number;
  /** OIDs. Default: serverAuth for a leaf, none for a CA. */
  extendedKeyUsage?: string[];
  ocspUrls?: string[];
  caIssuersUrls?: string[];
  crlUrls?: string[];
  /** ECDSA only; RSA takes the hash from its key. Default: SHA-384 on P-384, SHA-256 otherwise. */
  ecdsaHash?: HashName;
}

export interface MintedCertificate {
  der: Uint8Array;
  /** One CERTIFICATE block ending in a newline, as in a .pem file. */
  pem: string;
  keys: CryptoKeyPair;
  certificate: PeculiarX509.X509Certificate;
}

export async function mintCertificate(options: MintOptions = {}): Promise<MintedCertificate> {
  const keys = options.keys ?? (await generateKeyPair('ecdsa-p256'));
  const notBefore = options.notBefore ?? wholeSecond(new Date(Date.now() - DAY_MS));
  const signer = options.issuer ?? { keys, certificate: null };
  const subject = options.subject ?? 'CN=leaf.example.com';
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: options.serialNumber,
    subject,
    // Reusing the issuer's encoded Name keeps issuer and subject byte-identical, as a real CA must.
    issuer: signer.certificate?.subjectName ?? subject,
    notBefore,
    notAfter: options.notAfter ?? new Date(notBefore.getTime() + 90 * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: signer.keys.privateKey,
    signingAlgorithm: signingAlgorithm(signer.keys.privateKey, options.ecdsaHash),
    extensions: await extensions(options, keys, signer.certificate === null ? null : signer.keys),
  });
  const der = new Uint8Array(certificate.rawData);
  return { der, pem: `${certificate.toString('pem')}\n`, keys, certificate };
}

export interface MintedChain {
  root: MintedCertificate;
  intermediate: MintedCertificate;
  leaf: MintedCertificate;
}

/** Root CA -> intermediate CA -> leaf for 'CN=leaf.example.com', all P-256 unless keys are given. */
export async function mintChain(keys: Partial<Record<keyof MintedChain, CryptoKeyPair>> = {}): Promise<MintedChain> {
  const caUrls = { ocspUrls: ['http://ocsp.example.test'], crlUrls: ['http://crl.example.test/ca.crl'] };
  const root = await mintCertificate({ subject: 'CN=Certkeeper Test Root, O=Certkeeper', keys: keys.root, ca: true });
  const intermediate = await mintCertificate({
    subject: 'CN=Certkeeper Test Intermediate, O=Certkeeper',
    keys: keys.intermediate,
    issuer: root,
    ca: true,
    pathLength: 0,
    ...caUrls,
  });
  const leaf = await mintCertificate({ keys: keys.leaf, issuer: intermediate, sans: ['leaf.example.com'], ...caUrls });
  return { root, intermediate, leaf };
}

export interface MintCrlOptions {
  /** Revoked serial numbers (hexadecimal), each with its reason's RFC 5280 name when given. */
  entries?: { serialNumber: string; revokedAt?: Date; reason?: keyof typeof PeculiarX509.X509CrlReason }[];
  /** Default: an hour ago. */
  thisUpdate?: Date;
  /** Default: a day after thisUpdate. */
  nextUpdate?: Date;
}

/** A CRL signed by `issuer` (DER), as a CA publishes it at its distribution point. */
export async function mintCrl(issuer: MintedCertificate, options: MintCrlOptions = {}): Promise<Uint8Array> {
  const thisUpdate = options.thisUpdate ?? wholeSecond(new Date(Date.now() - 60 * 60 * 1000));
  const crl = await x509.X509CrlGenerator.create({
    issuer: issuer.certificate.subjectName,
    thisUpdate,
    nextUpdate: options.nextUpdate ?? new Date(thisUpdate.getTime() + DAY_MS),
    entries: (options.entries ?? []).map((entry) => ({
      serialNumber: entry.serialNumber,
      revocationDate: entry.revokedAt ?? thisUpdate,
      reason: entry.reason === undefined ? undefined : x509.X509CrlReason[entry.reason],
    })),
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: signingAlgorithm(issuer.keys.privateKey, undefined),
  });
  return new Uint8Array(crl.rawData);
}

/** Concatenated PEM, as in a fullchain.pem file. */
export function pemBundle(...certificates: MintedCertificate[]): string {
  return certificates.map((minted) => minted.pem).join('');
}

/**
 * `count` copies of a certificate that differ only in their serial number, each signed anew by
 * `issuerKey` with `hash` (the hash the template's signature algorithm names): minting takes
 * milliseconds a certificate, this microseconds. For tests and benchmarks that need many real
 * certificates; every other field is the template's.
 */
export function reissueWithSerials(templateDer: Uint8Array, issuerKey: KeyObject, count: number, hash = 'sha256'): Buffer[] {
  const serialNumber = readCertificateStructure(templateDer).serialNumber;
  return Array.from({ length: count }, (_, i) =>
    resignCertificate(
      templateDer,
      issuerKey,
      (tbs, tbsOffset) => tbs.writeUInt32BE(i, serialNumber.byteOffset + serialNumber.length - tbsOffset - 4),
      hash,
    ),
  );
}

/**
 * The certificate `templateDer` with its tbsCertificate edited in place by `edit` (which must keep
 * its length) and signed anew by `issuerKey` with `hash`; the outer signatureAlgorithm is kept as
 * it is. `tbsOffset` is where the tbsCertificate starts within templateDer's buffer, so offsets of
 * elements read from templateDer translate into the copy. Makes copies that differ in one field,
 * and certificates no honest CA would sign (inner and outer signature algorithms that disagree).
 */
export function resignCertificate(
  templateDer: Uint8Array,
  issuerKey: KeyObject,
  edit: (tbs: Buffer, tbsOffset: number) => void,
  hash = 'sha256',
): Buffer {
  const [tbsCertificate, signatureAlgorithm] = readChildren(readSingleDerElement(templateDer));
  const tbs = Buffer.from(tbsCertificate.encoded);
  edit(tbs, tbsCertificate.encoded.byteOffset);
  const signature = Buffer.concat([Buffer.of(0), sign(hash, tbs, issuerKey)]);
  return derElement(0x30, Buffer.concat([tbs, signatureAlgorithm.encoded, derElement(0x03, signature)]));
}

function derElement(tag: number, content: Buffer): Buffer {
  if (content.length < 0x80) return Buffer.concat([Buffer.of(tag, content.length), content]);
  const length = Buffer.from(content.length.toString(16).padStart(content.length > 0xff ? 4 : 2, '0'), 'hex');
  return Buffer.concat([Buffer.of(tag, 0x80 | length.length), length, content]);
}

async function extensions(options: MintOptions, keys: CryptoKeyPair, issuerKeys: CryptoKeyPair | null): Promise<PeculiarX509.Extension[]> {
  const isCa = options.ca ?? false;
  const list: PeculiarX509.Extension[] = [
    new x509.KeyUsagesExtension(options.keyUsage ?? defaultKeyUsage(isCa), true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  if (isCa) list.push(new x509.BasicConstraintsExtension(true, options.pathLength, true));
  if (issuerKeys !== null) list.push(await x509.AuthorityKeyIdentifierExtension.create(issuerKeys.publicKey));
  const extendedKeyUsage = options.extendedKeyUsage ?? (isCa ? [] : [x509.ExtendedKeyUsage.serverAuth]);
  if (extendedKeyUsage.length > 0) list.push(new x509.ExtendedKeyUsageExtension(extendedKeyUsage));
  if (options.sans?.length) list.push(new x509.SubjectAlternativeNameExtension(options.sans.map(generalName)));
  if (options.ocspUrls?.length || options.caIssuersUrls?.length) {
    list.push(new x509.AuthorityInfoAccessExtension({ ocsp: options.ocspUrls ?? [], caIssuers: options.caIssuersUrls ?? [] }));
  }
  if (options.crlUrls?.length) list.push(new x509.CRLDistributionPointsExtension(options.crlUrls));
  return list;
}

function defaultKeyUsage(isCa: boolean): number {
  const flags = x509.KeyUsageFlags;
  return isCa ? flags.keyCertSign | flags.cRLSign : flags.digitalSignature | flags.keyEncipherment;
}

function generalName(value: string): PeculiarX509.JsonGeneralName {
  if (parseIpAddress(value) !== null) return { type: 'ip', value };
  if (value.includes('@')) return { type: 'email', value };
  if (value.includes('://')) return { type: 'url', value };
  return { type: 'dns', value };
}

/**
 * @peculiar/x509 merges this with the signing key's own algorithm, which already names the hash for
 * RSA and the curve for ECDSA; ECDSA still needs a hash, RSA-PSS a salt length.
 */
function signingAlgorithm(
  signingKey: webcrypto.CryptoKey,
  ecdsaHash: HashName | undefined,
): webcrypto.Algorithm | webcrypto.EcdsaParams | webcrypto.RsaPssParams {
  const algorithm = signingKey.algorithm as webcrypto.EcKeyAlgorithm;
  switch (algorithm.name) {
    case 'ECDSA':
      return { name: 'ECDSA', hash: ecdsaHash ?? (algorithm.namedCurve === 'P-384' ? 'SHA-384' : 'SHA-256') };
    case 'RSA-PSS':
      return { name: 'RSA-PSS', saltLength: 32 };
    default:
      return algorithm;
  }
}

function wholeSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** A private key (of a minted certificate) as PKCS#8 PEM, for test TLS servers. */
export async function privateKeyPem(privateKey: webcrypto.CryptoKey): Promise<string> {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', privateKey));
  return `-----BEGIN PRIVATE KEY-----\n${(pkcs8.toString('base64').match(/.{1,64}/g) ?? []).join('\n')}\n-----END PRIVATE KEY-----\n`;
}
