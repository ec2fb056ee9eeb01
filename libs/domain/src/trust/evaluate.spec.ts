import { createHash, KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import { generateKeyPair, mintCertificate, type MintedCertificate, reissueWithSerials, resignCertificate } from '../../testing';
import { readChildren, readSingleDerElement } from '../x509/der';
import { parseCertificates } from '../x509/parse-certificates';
import { pkijsValidatesPath } from '../../testing/pkijs-oracle';
import type { ParsedCertificate } from '../x509/types';
import { peculiarX509, type PeculiarX509 } from '../x509/x509-library';
import type { RootStoreId } from './ccadb';
import { type TrustAnchor, type TrustCandidate, TrustEvaluator } from './evaluate';

const x509 = peculiarX509();

const ROOT_SUBJECT = 'CN=Certkeeper Test Root, O=Certkeeper';
const INTERMEDIATE_SUBJECT = 'CN=Certkeeper Test Intermediate, O=Certkeeper';

function parsed(minted: MintedCertificate): ParsedCertificate {
  const [certificate] = parseCertificates(minted.pem).certificates;
  if (certificate === undefined) throw new Error('the minted certificate does not parse');
  return certificate;
}

function anchorsOf(root: ParsedCertificate, ...stores: RootStoreId[]): TrustAnchor[] {
  return stores.map((storeId) => ({
    storeId,
    fingerprint: root.fingerprintSha256,
    subjectDnHash: root.subjectDnHash,
    subjectKeyId: root.subjectKeyId,
  }));
}

function trustedBy(pool: TrustCandidate[], anchors: TrustAnchor[], certificate: TrustCandidate): RootStoreId[] {
  return new TrustEvaluator(pool, anchors).evaluate(certificate).trustedBy;
}

/** A CA certificate whose subject key id is chosen, not derived from its key: how a forger copies a CA's identity. */
async function mintCaWithKeyId(options: {
  subject: string;
  subjectKeyId: string;
  keys: webcrypto.CryptoKeyPair;
  issuer?: MintedCertificate;
}): Promise<MintedCertificate> {
  const signer = options.issuer ?? { keys: options.keys, certificate: null };
  const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000);
  const extensions: PeculiarX509.Extension[] = [
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    new x509.SubjectKeyIdentifierExtension(options.subjectKeyId),
  ];
  if (options.issuer) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(options.issuer.keys.publicKey));
  const certificate = await x509.X509CertificateGenerator.create({
    subject: options.subject,
    issuer: signer.certificate?.subjectName ?? options.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + 86_400_000),
    publicKey: options.keys.publicKey,
    signingKey: signer.keys.privateKey,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions,
  });
  return { der: new Uint8Array(certificate.rawData), pem: `${certificate.toString('pem')}\n`, keys: options.keys, certificate };
}

function certificatePem(der: Uint8Array): string {
  return `-----BEGIN CERTIFICATE-----\n${Buffer.from(der).toString('base64')}\n-----END CERTIFICATE-----\n`;
}

/** `count` copies of `template` under new serial numbers, each a real certificate signed by `issuerKey`. */
function reissue(template: ParsedCertificate, issuerKey: KeyObject, count: number): TrustCandidate[] {
  return reissueWithSerials(template.der, issuerKey, count).map((der) => ({
    ...template,
    der,
    fingerprintSha256: createHash('sha256').update(der).digest('hex'),
  }));
}

describe('TrustEvaluator', () => {
  let mintedRoot: MintedCertificate;
  let mintedIntermediate: MintedCertificate;
  let root: ParsedCertificate;
  let intermediate: ParsedCertificate;
  let leaf: ParsedCertificate;
  let attackerKeys: webcrypto.CryptoKeyPair;

  beforeAll(async () => {
    mintedRoot = await mintCertificate({ subject: ROOT_SUBJECT, ca: true });
    mintedIntermediate = await mintCertificate({ subject: INTERMEDIATE_SUBJECT, issuer: mintedRoot, ca: true, pathLength: 0 });
    root = parsed(mintedRoot);
    intermediate = parsed(mintedIntermediate);
    leaf = parsed(await mintCertificate({ issuer: mintedIntermediate, sans: ['leaf.example.com'] }));
    attackerKeys = await generateKeyPair('ecdsa-p256');
  });

  describe('a chain to a store root', () => {
    it('trusts the leaf, the intermediate and the root in the root’s store only', () => {
      const evaluator = new TrustEvaluator([root, intermediate, leaf], anchorsOf(root, 'mozilla'));
      expect(evaluator.evaluate(leaf)).toEqual({ trustedBy: ['mozilla'], isTrustAnchor: false });
      expect(evaluator.evaluate(intermediate)).toEqual({ trustedBy: ['mozilla'], isTrustAnchor: false });
      expect(evaluator.evaluate(root)).toEqual({ trustedBy: ['mozilla'], isTrustAnchor: true });
    });

    it('lists every store that includes the root, in store order whatever the anchor order', () => {
      expect(trustedBy([root, intermediate], anchorsOf(root, 'chrome', 'apple', 'mozilla'), leaf)).toEqual(['mozilla', 'apple', 'chrome']);
    });

    it('evaluates certificates that are not in the pool, and ignores duplicates in it', () => {
      expect(trustedBy([root, intermediate, root, intermediate], anchorsOf(root, 'apple'), leaf)).toEqual(['apple']);
    });

    it('trusts nothing without anchors', () => {
      expect(new TrustEvaluator([root, intermediate], []).evaluate(root)).toEqual({ trustedBy: [], isTrustAnchor: false });
    });
  });

  describe('cross-signed roots', () => {
    let otherRoot: MintedCertificate;
    let crossSigned: ParsedCertificate;

    beforeAll(async () => {
      otherRoot = await mintCertificate({ subject: 'CN=Older Root, O=Elsewhere', ca: true });
      // The same root (subject and keys) issued by another root, as CAs bootstrap trust in older stores.
      crossSigned = parsed(await mintCertificate({ subject: ROOT_SUBJECT, keys: mintedRoot.keys, issuer: otherRoot, ca: true }));
    });

    it('recognises the copy as the anchor and trusts what it issued, with or without the self-signed root stored', () => {
      for (const pool of [
        [crossSigned, intermediate],
        [root, crossSigned, intermediate],
      ]) {
        const evaluator = new TrustEvaluator(pool, anchorsOf(root, 'mozilla'));
        expect(evaluator.evaluate(crossSigned)).toEqual({ trustedBy: ['mozilla'], isTrustAnchor: true });
        expect(evaluator.evaluate(leaf).trustedBy).toEqual(['mozilla']);
      }
    });

    it('keeps climbing past an anchor to the stores of the root that cross-signed it', () => {
      const anchors = [...anchorsOf(root, 'mozilla'), ...anchorsOf(parsed(otherRoot), 'microsoft')];
      const evaluator = new TrustEvaluator([parsed(otherRoot), crossSigned, intermediate], anchors);
      expect(evaluator.evaluate(crossSigned).trustedBy).toEqual(['mozilla', 'microsoft']);
      expect(evaluator.evaluate(leaf).trustedBy).toEqual(['mozilla', 'microsoft']);
      // The self-signed root's signature verifies with the copy's key (the same key), so path
      // builders reach the other root from it too.
      expect(evaluator.evaluate(root).trustedBy).toEqual(['mozilla', 'microsoft']);
    });
  });

  describe('forgeries', () => {
    it('refuses an issuer with the right subject and key id whose key did not make the signature', async () => {
      const forgedIntermediate = parsed(
        await mintCaWithKeyId({
          subject: INTERMEDIATE_SUBJECT,
          subjectKeyId: intermediate.subjectKeyId ?? '',
          keys: attackerKeys,
          issuer: mintedRoot,
        }),
      );
      expect(forgedIntermediate.subjectDnHash).toBe(intermediate.subjectDnHash);
      expect(forgedIntermediate.subjectKeyId).toBe(intermediate.subjectKeyId);
      const evaluator = new TrustEvaluator([root, forgedIntermediate], anchorsOf(root, 'mozilla'));
      // The forged CA itself was really signed by the root; the leaf was not signed by its key.
      expect(evaluator.evaluate(forgedIntermediate).trustedBy).toEqual(['mozilla']);
      expect(evaluator.evaluate(leaf).trustedBy).toEqual([]);
    });

    it('refuses a leaf that names the real intermediate but was signed by another key', async () => {
      const impostor = {
        ...mintedIntermediate,
        keys: { publicKey: mintedIntermediate.keys.publicKey, privateKey: attackerKeys.privateKey },
      };
      const forgedLeaf = parsed(await mintCertificate({ issuer: impostor }));
      expect(forgedLeaf.authorityKeyId).toBe(intermediate.subjectKeyId);
      expect(trustedBy([root, intermediate], anchorsOf(root, 'mozilla'), forgedLeaf)).toEqual([]);
    });

    it('does not take a self-made copy of a root (same subject and key id, other key) for the anchor when the root is stored', async () => {
      const mintedCopy = await mintCaWithKeyId({ subject: ROOT_SUBJECT, subjectKeyId: root.subjectKeyId ?? '', keys: attackerKeys });
      const copy = parsed(mintedCopy);
      const underCopy = parsed(await mintCertificate({ subject: INTERMEDIATE_SUBJECT, issuer: mintedCopy, ca: true }));
      const evaluator = new TrustEvaluator([root, copy, underCopy], anchorsOf(root, 'mozilla'));
      expect(evaluator.evaluate(copy)).toEqual({ trustedBy: [], isTrustAnchor: false });
      expect(evaluator.evaluate(underCopy).trustedBy).toEqual([]);
      // Without the root's certificate, subject and key id are all there is to compare.
      expect(new TrustEvaluator([copy], anchorsOf(root, 'mozilla')).evaluate(copy).isTrustAnchor).toBe(true);
    });
  });

  describe('CA constraints', () => {
    it('refuses an issuer that is not a CA', async () => {
      const notCa = await mintCertificate({ subject: 'CN=Not A CA, O=Certkeeper', issuer: mintedRoot, ca: false });
      const underNotCa = parsed(await mintCertificate({ issuer: notCa }));
      expect(trustedBy([root, parsed(notCa)], anchorsOf(root, 'mozilla'), underNotCa)).toEqual([]);
    });

    it('refuses a path with more intermediates under a CA than its pathLength allows', async () => {
      const subordinate = await mintCertificate({ subject: 'CN=Subordinate, O=Certkeeper', issuer: mintedIntermediate, ca: true });
      const underSubordinate = parsed(await mintCertificate({ issuer: subordinate }));
      // The intermediate has pathLength 0: it may issue leaves, not further CAs.
      expect(trustedBy([root, intermediate, parsed(subordinate)], anchorsOf(root, 'mozilla'), underSubordinate)).toEqual([]);
      expect(trustedBy([root, intermediate], anchorsOf(root, 'mozilla'), parsed(subordinate))).toEqual(['mozilla']);

      const lenient = await mintCertificate({ subject: 'CN=Lenient, O=Certkeeper', issuer: mintedRoot, ca: true, pathLength: 1 });
      const subordinateOfLenient = await mintCertificate({ subject: 'CN=Subordinate, O=Certkeeper', issuer: lenient, ca: true });
      const underLenient = parsed(await mintCertificate({ issuer: subordinateOfLenient }));
      expect(trustedBy([root, parsed(lenient), parsed(subordinateOfLenient)], anchorsOf(root, 'mozilla'), underLenient)).toEqual([
        'mozilla',
      ]);
    });
  });

  describe('nothing to chain to', () => {
    it('does not trust a self-signed leaf', async () => {
      const selfSigned = parsed(await mintCertificate({ subject: 'CN=self.example.com' }));
      const evaluator = new TrustEvaluator([selfSigned, root, intermediate], anchorsOf(root, 'mozilla'));
      expect(evaluator.evaluate(selfSigned)).toEqual({ trustedBy: [], isTrustAnchor: false });
    });

    it('does not trust a chain to a private root', async () => {
      const privateRoot = await mintCertificate({ subject: 'CN=Corp Root, O=Corp', ca: true });
      const privateIntermediate = await mintCertificate({ subject: 'CN=Corp Issuing CA, O=Corp', issuer: privateRoot, ca: true });
      const privateLeaf = parsed(await mintCertificate({ subject: 'CN=intranet.corp', issuer: privateIntermediate }));
      const evaluator = new TrustEvaluator([parsed(privateRoot), parsed(privateIntermediate), root], anchorsOf(root, 'mozilla', 'apple'));
      expect(evaluator.evaluate(privateLeaf)).toEqual({ trustedBy: [], isTrustAnchor: false });
      expect(evaluator.evaluate(parsed(privateRoot)).trustedBy).toEqual([]);
    });

    it('does not trust a leaf whose intermediate is not stored', () => {
      expect(trustedBy([root], anchorsOf(root, 'mozilla'), leaf)).toEqual([]);
    });
  });

  describe('cycles', () => {
    let cycleA: MintedCertificate;
    let cycleB: MintedCertificate;
    let selfSignedB: MintedCertificate;
    let underA: ParsedCertificate;

    beforeAll(async () => {
      const [keysA, keysB] = await Promise.all([generateKeyPair('ecdsa-p256'), generateKeyPair('ecdsa-p256')]);
      const selfSignedA = await mintCertificate({ subject: 'CN=Cycle A', keys: keysA, ca: true });
      selfSignedB = await mintCertificate({ subject: 'CN=Cycle B', keys: keysB, ca: true });
      // A issued by B and B issued by A: each is the other's only stored issuer.
      cycleA = await mintCertificate({ subject: 'CN=Cycle A', keys: keysA, issuer: selfSignedB, ca: true });
      cycleB = await mintCertificate({ subject: 'CN=Cycle B', keys: keysB, issuer: selfSignedA, ca: true });
      underA = parsed(await mintCertificate({ issuer: cycleA }));
    });

    it('ends when certificates issue each other', () => {
      expect(trustedBy([parsed(cycleA), parsed(cycleB)], anchorsOf(root, 'mozilla'), underA)).toEqual([]);
    });

    it('still finds the way out of a cycle to an anchor', () => {
      const pool = [parsed(cycleA), parsed(cycleB), parsed(selfSignedB)];
      expect(trustedBy(pool, anchorsOf(parsed(selfSignedB), 'chrome'), underA)).toEqual(['chrome']);
    });
  });

  describe('signatures verified before', () => {
    it('reports each newly verified (certificate, issuer) pair once, and nothing for pairs the certificate lists', () => {
      const evaluator = new TrustEvaluator([root, intermediate], anchorsOf(root, 'mozilla'));
      evaluator.evaluate(leaf);
      expect(evaluator.takeNewlyVerified()).toEqual(
        new Map([
          [leaf.fingerprintSha256, new Set([intermediate.fingerprintSha256])],
          [intermediate.fingerprintSha256, new Set([root.fingerprintSha256])],
        ]),
      );
      expect(evaluator.takeNewlyVerified().size).toBe(0);

      const listed = { ...leaf, verifiedIssuers: [intermediate.fingerprintSha256] };
      const next = new TrustEvaluator([root, { ...intermediate, verifiedIssuers: [root.fingerprintSha256] }], anchorsOf(root, 'mozilla'));
      expect(next.evaluate(listed).trustedBy).toEqual(['mozilla']);
      expect(next.takeNewlyVerified().size).toBe(0);
    });

    it('takes a listed pair without checking the signature again', async () => {
      const impostor = {
        ...mintedIntermediate,
        keys: { publicKey: mintedIntermediate.keys.publicKey, privateKey: attackerKeys.privateKey },
      };
      const unverifiable = parsed(await mintCertificate({ issuer: impostor }));
      expect(trustedBy([root, intermediate], anchorsOf(root, 'mozilla'), unverifiable)).toEqual([]);
      // Only the service writes verifiedIssuers, after a verification: here it stands for one.
      const listed = { ...unverifiable, verifiedIssuers: [intermediate.fingerprintSha256] };
      expect(trustedBy([root, intermediate], anchorsOf(root, 'mozilla'), listed)).toEqual(['mozilla']);
    });
  });

  /**
   * pkijs validates paths on its own (issuer search, signatures, basicConstraints cA, dates, which
   * every certificate here satisfies): it must agree with us on those. Where it does not check
   * what we check, the tests say so: they are why it stays out of the trust path (decision 0005).
   */
  describe('pkijs as an independent oracle', () => {
    const anchors = () => anchorsOf(root, 'mozilla');

    it('agrees on a chain to the root, on its parts, and on a chain missing its intermediate', async () => {
      const evaluator = new TrustEvaluator([root, intermediate], anchors());
      expect([leaf, intermediate, root].map((certificate) => evaluator.evaluate(certificate).trustedBy)).toEqual([
        ['mozilla'],
        ['mozilla'],
        ['mozilla'],
      ]);
      expect(await pkijsValidatesPath(leaf.der, [intermediate.der], [root.der])).toBe(true);
      expect(await pkijsValidatesPath(intermediate.der, [], [root.der])).toBe(true);
      expect(await pkijsValidatesPath(root.der, [], [root.der])).toBe(true);
      expect(await pkijsValidatesPath(leaf.der, [], [root.der])).toBe(false); // the intermediate is missing
      expect(trustedBy([root], anchors(), leaf)).toEqual([]);
    });

    it('agrees on a leaf signed by another key than its named issuer’s', async () => {
      const impostor = {
        ...mintedIntermediate,
        keys: { publicKey: mintedIntermediate.keys.publicKey, privateKey: attackerKeys.privateKey },
      };
      const forgedLeaf = parsed(await mintCertificate({ issuer: impostor }));
      expect(trustedBy([root, intermediate], anchors(), forgedLeaf)).toEqual([]);
      expect(await pkijsValidatesPath(forgedLeaf.der, [intermediate.der], [root.der])).toBe(false);
    });

    it('agrees on an issuer that is not a CA', async () => {
      const notCa = await mintCertificate({ subject: 'CN=Not A CA, O=Certkeeper', issuer: mintedRoot, ca: false });
      const underNotCa = parsed(await mintCertificate({ issuer: notCa }));
      expect(trustedBy([root, parsed(notCa)], anchors(), underNotCa)).toEqual([]);
      expect(await pkijsValidatesPath(underNotCa.der, [notCa.der], [root.der])).toBe(false);
    });

    it('disagrees on a path longer than a CA’s pathLength allows: pkijs 3 does not enforce it, we do', async () => {
      const subordinate = await mintCertificate({ subject: 'CN=Subordinate, O=Certkeeper', issuer: mintedIntermediate, ca: true });
      const underSubordinate = parsed(await mintCertificate({ issuer: subordinate }));
      expect(trustedBy([root, intermediate, parsed(subordinate)], anchors(), underSubordinate)).toEqual([]);
      expect(await pkijsValidatesPath(underSubordinate.der, [subordinate.der, intermediate.der], [root.der])).toBe(true);
      // Within the limit both accept: the subordinate itself is one step under the intermediate.
      expect(trustedBy([root, intermediate], anchors(), parsed(subordinate))).toEqual(['mozilla']);
      expect(await pkijsValidatesPath(subordinate.der, [intermediate.der], [root.der])).toBe(true);
    });

    it('disagrees on a leaf whose inner and outer signature algorithms differ: pkijs trusts it, we do not', async () => {
      const template = await mintCertificate({ subject: 'CN=mismatch.example.com', issuer: mintedIntermediate });
      const innerAlgorithm = readChildren(readChildren(readSingleDerElement(template.der))[0])[2];
      const lastOidOctet = innerAlgorithm.encoded.byteOffset + innerAlgorithm.encoded.length - 1;
      // The signed part says ecdsa-with-SHA384, the outside ecdsa-with-SHA256, which the signature really uses.
      const der = resignCertificate(template.der, KeyObject.from(mintedIntermediate.keys.privateKey), (tbs, tbsOffset) => {
        tbs[lastOidOctet - tbsOffset] = 0x03;
      });
      const mismatched = parsed({ ...template, der, pem: certificatePem(der) });
      expect(trustedBy([root, intermediate], anchors(), mismatched)).toEqual([]);
      expect(await pkijsValidatesPath(mismatched.der, [intermediate.der], [root.der])).toBe(true);
    });
  });

  describe('many leaves under one intermediate', () => {
    const LEAVES = 2000;
    let leaves: TrustCandidate[];

    beforeAll(async () => {
      const template = parsed(await mintCertificate({ subject: 'CN=host.example.com', issuer: mintedIntermediate }));
      leaves = reissue(template, KeyObject.from(mintedIntermediate.keys.privateKey), LEAVES);
      // The copies are real certificates: OpenSSL accepts their signatures.
      expect(new X509Certificate(leaves[LEAVES - 1].der).verify(new X509Certificate(intermediate.der).publicKey)).toBe(true);
    });

    it('gives the same verdicts with the signatures verified ahead in parallel, each once', async () => {
      const evaluator = new TrustEvaluator([root, intermediate], anchorsOf(root, 'apple'));
      const forged = parsed(
        await mintCertificate({
          issuer: { ...mintedIntermediate, keys: { publicKey: mintedIntermediate.keys.publicKey, privateKey: attackerKeys.privateKey } },
        }),
      );
      await evaluator.prepare([...leaves.slice(0, 50), forged]);
      expect(leaves.slice(0, 50).every((certificate) => evaluator.evaluate(certificate).trustedBy.join() === 'apple')).toBe(true);
      expect(evaluator.evaluate(forged).trustedBy).toEqual([]);
      const verified = evaluator.takeNewlyVerified();
      expect(verified.size).toBe(51); // 50 leaves and the intermediate, not the forgery
      expect(verified.has(forged.fingerprintSha256)).toBe(false);
    });

    it('trusts each of them, reusing what the intermediate reaches', () => {
      const evaluator = new TrustEvaluator([root, intermediate, ...leaves], anchorsOf(root, 'mozilla', 'microsoft'));
      const verdicts = leaves.map((certificate) => evaluator.evaluate(certificate));
      expect(new Set(leaves.map((certificate) => certificate.fingerprintSha256)).size).toBe(LEAVES);
      expect(verdicts.every((verdict) => verdict.trustedBy.join() === 'mozilla,microsoft' && !verdict.isTrustAnchor)).toBe(true);
    });
  });
});
