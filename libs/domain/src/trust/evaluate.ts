import { KeyObject, X509Certificate } from 'node:crypto';
import { readCertificateStructure } from '../x509/certificate-structure';
import { isIssuedBy } from '../x509/issued-by';
import type { ParsedCertificate } from '../x509/types';
import { ROOT_STORE_IDS, type RootStoreId } from './ccadb';
import { verifyCertificateSignature, verifyCertificateSignatureAsync } from './signature';

/** One root of one store, as the evaluator needs it (a root in several stores is several anchors). */
export interface TrustAnchor {
  storeId: RootStoreId;
  /** SHA-256 of the root's DER, 64 lower-case hex digits. */
  fingerprint: string;
  subjectDnHash: string | undefined;
  subjectKeyId: string | null;
}

/** A certificate known to the service (stored), as the evaluator needs it. */
export type TrustCandidate = Pick<
  ParsedCertificate,
  | 'der'
  | 'fingerprintSha256'
  | 'subject'
  | 'issuer'
  | 'subjectDnHash'
  | 'issuerDnHash'
  | 'subjectKeyId'
  | 'authorityKeyId'
  | 'isCa'
  | 'pathLength'
  | 'selfSigned'
> & {
  /**
   * Issuers (SHA-256 fingerprints) whose signature on this certificate was verified before:
   * a signature never changes, so a stored verdict spares re-evaluations the expensive step.
   */
  verifiedIssuers?: readonly string[];
};

export interface TrustVerdict {
  /** Stores in which the certificate chains to an anchor, in ROOT_STORE_IDS order; [] for none. */
  trustedBy: RootStoreId[];
  /**
   * The certificate is a root of some store, or a copy of one issued by someone else (same subject
   * and key id, and the same key whenever the root's own certificate is in the pool).
   */
  isTrustAnchor: boolean;
}

/**
 * Intermediates allowed between a certificate and its anchor. Web PKI paths have at most three or
 * four; the limit also bounds the walk through cross-signed cycles.
 */
const MAX_INTERMEDIATES = 8;

// Store sets are bit masks (bit i = ROOT_STORE_IDS[i]): unions are one `|`, memo entries one number.
const NO_STORES = 0;
const ALL_STORES = (1 << ROOT_STORE_IDS.length) - 1;
const storeBit = (store: RootStoreId): number => 1 << ROOT_STORE_IDS.indexOf(store);
const storeIds = (stores: number): RootStoreId[] => ROOT_STORE_IDS.filter((store) => (stores & storeBit(store)) !== 0);

/**
 * Decides, for stored certificates, which root stores trust them, by building paths through the
 * stored certificates (`pool`) up to the stores' anchors. A path holds when every signature in it
 * verifies and every issuer is a CA whose pathLength allows the intermediates below it; validity
 * dates are not considered (expiry is reported on its own). Every path is explored, since
 * cross-signs and re-keyed CAs give a certificate several candidate issuers, and an anchor for one
 * store may itself be cross-signed by a root of another.
 *
 * Index once, evaluate many: what a CA reaches is memoised per (CA, intermediates below it), so the
 * leaves under one intermediate cost one signature check each. Construction iterates `pool` and
 * `anchors` once; only CAs and anchor look-alikes of the pool are kept.
 */
export class TrustEvaluator {
  private readonly anchorStoresByFingerprint = new Map<string, number>();
  /** subject + key id -> anchor fingerprint -> its stores. */
  private readonly anchorsBySubjectAndKeyId = new Map<string, Map<string, number>>();
  /** Public key (base64 SPKI) of each anchor whose certificate is in the pool. */
  private readonly anchorPublicKeys = new Map<string, string | null>();
  private readonly issuersByName = new Map<string, TrustCandidate[]>();
  private readonly retained = new Set<string>();
  private readonly anchorStoresMemo = new Map<string, number>();
  private readonly storesThroughMemo = new Map<string, number>();
  private readonly signatureMemo = new Map<string, boolean>();
  /** Signatures `prepare` verified ahead (child + issuer fingerprints), each taken once by the evaluation. */
  private readonly prepared = new Map<string, boolean>();
  /** child -> issuers whose signatures this evaluator verified and the child did not list yet. */
  private readonly newlyVerified = new Map<string, Set<string>>();
  private readonly publicKeys = new Map<string, KeyObject | null>();

  constructor(pool: Iterable<TrustCandidate>, anchors: Iterable<TrustAnchor>) {
    for (const anchor of anchors) this.indexAnchor(anchor);
    for (const certificate of pool) this.indexPoolCertificate(certificate);
  }

  evaluate(certificate: TrustCandidate): TrustVerdict {
    const anchorStores = this.anchorStoresOf(certificate);
    const stores = this.storesAbove(certificate, 0, anchorStores);
    return { trustedBy: storeIds(stores), isTrustAnchor: anchorStores !== NO_STORES };
  }

  /**
   * Verifies ahead, in parallel on libuv's thread pool, the signatures that evaluating these
   * certificates would verify one after the other: on each certificate, those of its issuers that
   * reach a store and that it does not list as verified. Optional; evaluate() gives the same
   * verdicts without it, only slower on many cores.
   */
  async prepare(certificates: Iterable<TrustCandidate>): Promise<void> {
    const checks = new Map<string, Promise<boolean>>();
    for (const certificate of certificates) {
      for (const issuer of this.issuersOf(certificate)) {
        const key = certificate.fingerprintSha256 + issuer.fingerprintSha256;
        if (certificate.verifiedIssuers?.includes(issuer.fingerprintSha256) || checks.has(key)) continue;
        if (this.prepared.has(key) || this.signatureMemo.has(key)) continue;
        const issuerKey = this.publicKey(issuer);
        if (issuerKey === null || this.storesThrough(issuer, 0) === NO_STORES) continue;
        checks.set(key, verifyCertificateSignatureAsync(certificate.der, issuerKey));
      }
    }
    for (const [key, check] of checks) this.prepared.set(key, await check);
  }

  /**
   * The (certificate, issuer) signatures verified since the last call that the certificates did
   * not already list in `verifiedIssuers`: for the caller to store, so the next evaluation skips them.
   */
  takeNewlyVerified(): Map<string, Set<string>> {
    const taken = new Map(this.newlyVerified);
    this.newlyVerified.clear();
    return taken;
  }

  private indexAnchor(anchor: TrustAnchor): void {
    const bit = storeBit(anchor.storeId);
    const fingerprint = anchor.fingerprint.toLowerCase();
    this.anchorStoresByFingerprint.set(fingerprint, (this.anchorStoresByFingerprint.get(fingerprint) ?? NO_STORES) | bit);
    const key = subjectAndKeyId(anchor.subjectDnHash, anchor.subjectKeyId);
    if (key === null) return;
    const sameSubjectAndKeyId = this.anchorsBySubjectAndKeyId.get(key) ?? new Map<string, number>();
    sameSubjectAndKeyId.set(fingerprint, (sameSubjectAndKeyId.get(fingerprint) ?? NO_STORES) | bit);
    this.anchorsBySubjectAndKeyId.set(key, sameSubjectAndKeyId);
  }

  /**
   * Keeps what can stand above another certificate in a path: CAs, and certificates that match an
   * anchor (v1 roots carry no basicConstraints). Leaves are not kept: 100,000 of them would only
   * cost memory.
   */
  private indexPoolCertificate(certificate: TrustCandidate): void {
    const fingerprint = certificate.fingerprintSha256;
    if (this.retained.has(fingerprint)) return;
    const isAnchorCertificate = this.anchorStoresByFingerprint.has(fingerprint);
    if (isAnchorCertificate) this.anchorPublicKeys.set(fingerprint, encodedPublicKey(certificate));
    const key = subjectAndKeyId(certificate.subjectDnHash, certificate.subjectKeyId);
    const looksLikeAnchor = key !== null && this.anchorsBySubjectAndKeyId.has(key);
    if (!certificate.isCa && !isAnchorCertificate && !looksLikeAnchor) return;
    this.retained.add(fingerprint);
    const name = nameKey(certificate.subject);
    const sameName = this.issuersByName.get(name) ?? [];
    sameName.push(certificate);
    this.issuersByName.set(name, sameName);
  }

  /**
   * The stores of the anchors this certificate is, by fingerprint or by subject and key id (a
   * cross-signed copy of a root). Subject and key id are only names a certificate gives itself, so
   * when the anchor's own certificate is in the pool its public key must match too; otherwise
   * anyone could mint a "copy" of a root and have it trusted.
   */
  private anchorStoresOf(certificate: TrustCandidate): number {
    const fingerprint = certificate.fingerprintSha256;
    const memoised = this.anchorStoresMemo.get(fingerprint);
    if (memoised !== undefined) return memoised;
    let stores = this.anchorStoresByFingerprint.get(fingerprint) ?? NO_STORES;
    const key = subjectAndKeyId(certificate.subjectDnHash, certificate.subjectKeyId);
    const sameSubjectAndKeyId = key === null ? undefined : this.anchorsBySubjectAndKeyId.get(key);
    const ownPublicKey = once(() => encodedPublicKey(certificate));
    for (const [anchorFingerprint, anchorStores] of sameSubjectAndKeyId ?? []) {
      const anchorPublicKey = this.anchorPublicKeys.get(anchorFingerprint);
      if (anchorPublicKey === undefined || anchorPublicKey === ownPublicKey()) stores |= anchorStores;
    }
    if (this.retained.has(fingerprint)) this.anchorStoresMemo.set(fingerprint, stores);
    return stores;
  }

  /**
   * `found` plus the stores reached through the issuers of `child`; `below` is the number of
   * intermediates between those issuers and the evaluated certificate. Signatures are checked only
   * for issuers that would add a store: verification is the expensive step.
   */
  private storesAbove(child: TrustCandidate, below: number, found: number): number {
    if (below > MAX_INTERMEDIATES) return found;
    let stores = found;
    for (const issuer of this.issuersOf(child)) {
      if (stores === ALL_STORES) break;
      const through = this.storesThrough(issuer, below);
      if ((through & ~stores) !== NO_STORES && this.signatureVerifies(child, issuer)) stores |= through;
    }
    return stores;
  }

  /**
   * The stores reached by a path that continues at `issuer` with `below` intermediates under it.
   * `below` grows by one at every step up, so a cycle of cross-signs never revisits a memo key
   * and ends at MAX_INTERMEDIATES; the memo keeps the revisits cheap.
   */
  private storesThrough(issuer: TrustCandidate, below: number): number {
    const key = `${issuer.fingerprintSha256}/${below}`;
    const memoised = this.storesThroughMemo.get(key);
    if (memoised !== undefined) return memoised;
    const stores = this.computeStoresThrough(issuer, below);
    this.storesThroughMemo.set(key, stores);
    return stores;
  }

  private computeStoresThrough(issuer: TrustCandidate, below: number): number {
    if (issuer.pathLength !== null && below > issuer.pathLength) return NO_STORES;
    const anchorStores = this.anchorStoresOf(issuer);
    // A store vouches for its anchors as CAs (v1 roots have no basicConstraints); anything else must say it is one.
    if (!issuer.isCa) return anchorStores;
    return this.storesAbove(issuer, below + 1, anchorStores);
  }

  /** Stored certificates whose subject is the child's issuer (by DER name hash and key id, as isIssuedBy decides), itself excepted. */
  private issuersOf(child: TrustCandidate): TrustCandidate[] {
    const sameName = this.issuersByName.get(nameKey(child.issuer)) ?? [];
    return sameName.filter((issuer) => issuer.fingerprintSha256 !== child.fingerprintSha256 && isIssuedBy(child, issuer));
  }

  /** Memoised for retained children (CAs are revisited per `below`); a leaf is checked once per evaluation anyway. */
  private signatureVerifies(child: TrustCandidate, issuer: TrustCandidate): boolean {
    if (child.verifiedIssuers?.includes(issuer.fingerprintSha256)) return true;
    const memoKey = child.fingerprintSha256 + issuer.fingerprintSha256;
    const memoised = this.signatureMemo.get(memoKey);
    if (memoised !== undefined) return memoised;
    const prepared = this.prepared.get(memoKey);
    this.prepared.delete(memoKey);
    const issuerKey = this.publicKey(issuer);
    const verifies = prepared ?? (issuerKey !== null && verifyCertificateSignature(child.der, issuerKey));
    if (verifies) this.recordVerified(child.fingerprintSha256, issuer.fingerprintSha256);
    if (this.retained.has(child.fingerprintSha256)) this.signatureMemo.set(memoKey, verifies);
    return verifies;
  }

  private recordVerified(child: string, issuer: string): void {
    const issuers = this.newlyVerified.get(child) ?? new Set<string>();
    issuers.add(issuer);
    this.newlyVerified.set(child, issuers);
  }

  /** Issuers are always retained certificates: each key is parsed once. */
  private publicKey(issuer: TrustCandidate): KeyObject | null {
    const fingerprint = issuer.fingerprintSha256;
    if (!this.publicKeys.has(fingerprint)) this.publicKeys.set(fingerprint, readPublicKey(issuer.der));
    return this.publicKeys.get(fingerprint) ?? null;
  }
}

function subjectAndKeyId(subjectDnHash: string | undefined, subjectKeyId: string | null): string | null {
  return subjectDnHash === undefined ? null : `${subjectDnHash}/${subjectKeyId?.toLowerCase() ?? ''}`;
}

/**
 * Buckets issuers by the printed name, which every candidate has (stored values may lack the DER
 * hashes). isIssuedBy then compares the hashes exactly when both sides have them; it normalises
 * names the same way when they do not.
 */
function nameKey(distinguishedName: string): string {
  return distinguishedName.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Base64 of the DER SubjectPublicKeyInfo; null when the certificate cannot be read. */
function encodedPublicKey(certificate: TrustCandidate): string | null {
  try {
    return Buffer.from(readCertificateStructure(certificate.der).subjectPublicKeyInfo.encoded).toString('base64');
  } catch {
    return null;
  }
}

function readPublicKey(der: Uint8Array): KeyObject | null {
  try {
    return new X509Certificate(der).publicKey;
  } catch {
    return null;
  }
}

function once<V>(compute: () => V): () => V {
  let computed: { value: V } | undefined;
  return () => (computed ??= { value: compute() }).value;
}
