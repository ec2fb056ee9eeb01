import { createHash } from 'node:crypto';
import { generateKeyPair, mintCertificate, type MintedCertificate, pemBundle } from '@certkeeper/domain/testing';
import type { RootStoreId } from '@certkeeper/domain/trust';
import { DataSource } from 'typeorm';
import { TrustVerdictsService } from '../src/modules/trust/trust-verdicts.service';
import { TrustRepository } from '../src/modules/trust/trust.repository';
import { hostScanResult } from './support/scan-results';
import { bearer, createScanner, createTestApp, login, type TestApp } from './support/test-app';

interface Verdict {
  trustedBy: string[];
  isTrustAnchor: boolean;
}

const sha256 = (certificate: MintedCertificate) => createHash('sha256').update(certificate.der).digest('hex');

/** Three-level PKIs: a root, an intermediate under it, and leaves under the intermediate. */
async function mintPki(name: string): Promise<{ root: MintedCertificate; intermediate: MintedCertificate }> {
  const root = await mintCertificate({ subject: `CN=${name} Root, O=${name}`, ca: true });
  const intermediate = await mintCertificate({ subject: `CN=${name} Issuing CA, O=${name}`, ca: true, pathLength: 0, issuer: root });
  return { root, intermediate };
}

describe('trust verdicts', () => {
  let t: TestApp;
  let admin: string;
  let publicPki: { root: MintedCertificate; intermediate: MintedCertificate };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    publicPki = await mintPki('Public Trust');
    await upload(publicPki.root);
    await setAnchors('apple', [publicPki.root]);
  });
  afterAll(() => t.close());

  async function upload(...certificates: MintedCertificate[]): Promise<Verdict & { fingerprint: string }> {
    const response = await t.http
      .post('/api/v1/certificates')
      .set(bearer(admin))
      .set('content-type', 'application/x-pem-file')
      .send(pemBundle(...certificates));
    expect([200, 201]).toContain(response.status);
    return response.body as Verdict & { fingerprint: string };
  }

  async function verdictOf(certificate: MintedCertificate): Promise<Verdict> {
    const body = (
      await t.http
        .get(`/api/v1/certificates/${sha256(certificate)}`)
        .set(bearer(admin))
        .expect(200)
    ).body as Verdict;
    return { trustedBy: body.trustedBy, isTrustAnchor: body.isTrustAnchor };
  }

  /** What a refresh does with its anchors (the refresh itself is tested on its own): replace, then re-evaluate. */
  async function setAnchors(store: RootStoreId, anchors: MintedCertificate[]): Promise<void> {
    const trust = t.app.get(TrustRepository);
    await trust.inTransaction((transaction) => trust.replaceAnchors(store, anchors.map(sha256), 'test', t.clock.now(), transaction));
    await t.app.get(TrustVerdictsService).reevaluateAll();
  }

  /** Polls until the background pass a new CA started has written the expected verdict. */
  async function eventually(certificate: MintedCertificate, expected: Verdict): Promise<void> {
    const deadline = Date.now() + 4_000;
    while (JSON.stringify(await verdictOf(certificate)) !== JSON.stringify(expected) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await verdictOf(certificate)).toEqual(expected);
  }

  it('trusts leaf, intermediate and root in the root’s store only, from the upload’s own answer on', async () => {
    const leaf = await mintCertificate({ sans: ['shop.example.com'], issuer: publicPki.intermediate });
    const uploaded = await upload(leaf, publicPki.intermediate);
    expect(uploaded).toMatchObject({ fingerprint: sha256(leaf), trustedBy: ['apple'], isTrustAnchor: false });
    expect(await verdictOf(publicPki.intermediate)).toEqual({ trustedBy: ['apple'], isTrustAnchor: false });
    expect(await verdictOf(publicPki.root)).toEqual({ trustedBy: ['apple'], isTrustAnchor: true });

    // The anchor list row says the same.
    const anchors = (await t.http.get('/api/v1/root-stores/apple/anchors').set(bearer(admin)).expect(200)).body as (Verdict & {
      fingerprint: string;
    })[];
    expect(anchors).toEqual([expect.objectContaining({ fingerprint: sha256(publicPki.root), trustedBy: ['apple'], isTrustAnchor: true })]);
  });

  it('does not let validity dates remove a store', async () => {
    const expired = await mintCertificate({
      sans: ['old.example.com'],
      issuer: publicPki.intermediate,
      notBefore: new Date(Date.now() - 400 * 86_400_000),
      notAfter: new Date(Date.now() - 30 * 86_400_000),
    });
    expect(await upload(expired, publicPki.intermediate)).toMatchObject({ trustedBy: ['apple'] });
  });

  it('recognises a cross-signed copy of a root as an anchor, and trusts what it issued', async () => {
    const rootKeys = await generateKeyPair('ecdsa-p256');
    const root = await mintCertificate({ subject: 'CN=New Root R2, O=Cross', ca: true, keys: rootKeys });
    const oldRoot = await mintCertificate({ subject: 'CN=Old Root R1, O=Cross', ca: true });
    // Same subject and key (so the same key id) as the new root, issued by the old one.
    const crossSigned = await mintCertificate({ subject: 'CN=New Root R2, O=Cross', ca: true, keys: rootKeys, issuer: oldRoot });
    await upload(root, oldRoot);
    await setAnchors('chrome', [root]);

    expect(await upload(crossSigned)).toMatchObject({ isTrustAnchor: true, trustedBy: ['chrome'] });
    expect(sha256(crossSigned)).not.toBe(sha256(root));
    const leaf = await mintCertificate({ sans: ['cross.example.com'], issuer: { ...crossSigned, keys: rootKeys } });
    expect(await upload(leaf)).toMatchObject({ isTrustAnchor: false, trustedBy: ['chrome'] });
    // The old root is no anchor and chains to none.
    expect(await verdictOf(oldRoot)).toEqual({ trustedBy: [], isTrustAnchor: false });
  });

  it('gives a self-signed leaf and a private CA’s chain no store', async () => {
    const selfSigned = await mintCertificate({ subject: 'CN=nas.local', sans: ['nas.local'] });
    expect(await upload(selfSigned)).toMatchObject({ trustedBy: [], isTrustAnchor: false, selfSigned: true });

    const privatePki = await mintPki('Corp Internal');
    const leaf = await mintCertificate({ sans: ['intranet.corp'], issuer: privatePki.intermediate });
    expect(await upload(leaf, privatePki.intermediate, privatePki.root)).toMatchObject({ trustedBy: [], isTrustAnchor: false });
    expect(await verdictOf(privatePki.root)).toEqual({ trustedBy: [], isTrustAnchor: false });
  });

  it('gives a leaf whose intermediate was never seen no store and its endpoint chainComplete false, until the intermediate arrives', async () => {
    const pki = await mintPki('Late Intermediate');
    await upload(pki.root);
    await setAnchors('microsoft', [pki.root]);
    const leaf = await mintCertificate({ subject: 'CN=late.example.com', sans: ['late.example.com'], issuer: pki.intermediate });

    const scanner = await createScanner(t);
    const endpointId = (
      (
        await t.http
          .post('/api/v1/endpoints')
          .set(bearer(admin))
          .send({ name: 'late', dnsName: 'late.example.com', scannerId: scanner.id })
          .expect(201)
      ).body as { id: string }
    ).id;
    const scan = async (chain: MintedCertificate[]) =>
      t.http
        .post('/api/v1/scanner/results')
        .set(bearer(scanner.token))
        .send({
          results: [hostScanResult(endpointId, chain, t.clock.now(), { authorizationError: 'unable to verify the first certificate' })],
        })
        .expect(200);
    const chainComplete = async () =>
      ((await t.http.get(`/api/v1/endpoints/${endpointId}`).set(bearer(admin)).expect(200)).body as { chainComplete: boolean | null })
        .chainComplete;

    await scan([leaf]);
    expect(await verdictOf(leaf)).toEqual({ trustedBy: [], isTrustAnchor: false });
    expect(await chainComplete()).toBe(false);

    // The server starts sending its intermediate: the chain ends at a certificate an anchor issued.
    t.clock.advance(60_000);
    await scan([leaf, pki.intermediate]);
    expect(await chainComplete()).toBe(true);
    // The new CA completes the path of the leaf stored before it (a background pass).
    await eventually(leaf, { trustedBy: ['microsoft'], isTrustAnchor: false });
    expect(await verdictOf(pki.intermediate)).toEqual({ trustedBy: ['microsoft'], isTrustAnchor: false });

    // Known here is not sent by the server: the leaf alone is incomplete again.
    t.clock.advance(60_000);
    await scan([leaf]);
    expect(await chainComplete()).toBe(false);
    // In the wrong order it is not complete either.
    t.clock.advance(60_000);
    await scan([pki.intermediate, leaf]);
    expect(await chainComplete()).toBe(false);
  });

  it('follows the anchors: a store that drops a root drops its chains, and a pass changes only what changed', async () => {
    const pki = await mintPki('Dropped');
    const leaf = await mintCertificate({ sans: ['dropped.example.com'], issuer: pki.intermediate });
    await upload(pki.root);
    await setAnchors('mozilla', [pki.root]);
    expect(await upload(leaf, pki.intermediate)).toMatchObject({ trustedBy: ['mozilla'] });

    const verdicts = t.app.get(TrustVerdictsService);
    expect((await verdicts.reevaluateAll()).changed).toBe(0);
    await setAnchors('mozilla', []);
    expect(await verdictOf(leaf)).toEqual({ trustedBy: [], isTrustAnchor: false });
    expect(await verdictOf(pki.root)).toEqual({ trustedBy: [], isTrustAnchor: false });
  });

  it('stores the signatures it verified, so a re-evaluation does not verify them again', async () => {
    const pki = await mintPki('Remembered');
    const leaf = await mintCertificate({ sans: ['remembered.example.com'], issuer: pki.intermediate });
    await upload(pki.root, pki.intermediate);
    await setAnchors('mozilla', [pki.root]);
    await upload(leaf);
    const sql = t.app.get(DataSource);
    const listed = async (certificate: MintedCertificate) =>
      (
        await sql.query<{ v: string[] }[]>('SELECT verified_issuers AS v FROM certificates WHERE fingerprint = $1', [sha256(certificate)])
      )[0].v;
    expect(await listed(leaf)).toEqual([sha256(pki.intermediate)]);
    expect(await listed(pki.intermediate)).toEqual([sha256(pki.root)]);
  });
});
