import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { mintCertificate, mintChain, pemBundle, type MintedCertificate } from '@certkeeper/domain/testing';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';
import { HOUR, DAY, SECOND } from './support/fake-clock';

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const sha1 = (der: Uint8Array) => createHash('sha1').update(der).digest('hex');
const colons = (hex: string) => hex.toUpperCase().match(/../g)!.join(':');

// The PKCS #7 upload tests use bundles made by the real `openssl crl2pkcs7`. CI must have openssl:
// there a missing one fails the tests; elsewhere it skips them, saying so in their names.
const SKIP_WITHOUT_OPENSSL = spawnSync('openssl', ['version']).status !== 0 && process.env.CI !== 'true';
const itWithOpenssl = SKIP_WITHOUT_OPENSSL ? it.skip : it;
const OPENSSL_NOTE = SKIP_WITHOUT_OPENSSL ? ' [skipped: openssl is not on the PATH; with CI=true this fails instead]' : '';

/** Runs openssl with `files` written to a temporary directory (`{dir}` in args names it) and returns what it wrote to `out`. */
function openssl(args: string[], files: Record<string, string>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'certkeeper-openssl-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    const run = spawnSync('openssl', [...args.map((arg) => arg.replaceAll('{dir}', dir)), '-out', join(dir, 'out')]);
    if (run.error) throw new Error(`openssl could not be run (${run.error.message}): install OpenSSL, CI needs it for the PKCS #7 tests.`);
    if (run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr.toString()}`);
    return readFileSync(join(dir, 'out'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `openssl crl2pkcs7 -nocrl -certfile chain.pem`: the usual way to make a .p7b (PEM) or .p7c (DER). */
const crl2pkcs7 = (chainPem: string, outform: 'PEM' | 'DER') =>
  openssl(['crl2pkcs7', '-nocrl', '-certfile', '{dir}/chain.pem', '-outform', outform], { 'chain.pem': chainPem });

interface Summary {
  fingerprint: string;
  commonName: string | null;
  daysRemaining: number;
  notAfter: string;
}

describe('certificates', () => {
  let t: TestApp;
  let admin: string;
  let sql: DataSource;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    sql = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const countCertificates = async () => (await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM certificates'))[0].n;
  const upload = (body: string | Buffer | object, contentType = 'application/x-pem-file') =>
    t.http.post('/api/v1/certificates').set(bearer(admin)).set('Content-Type', contentType).send(body);
  const endpoint = async (body: Record<string, unknown>) =>
    ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
  const uploadTo = (endpointId: string, body: string | object, query: Record<string, string> = {}) =>
    t.http.post(`/api/v1/endpoints/${endpointId}/certificate`).query(query).set(bearer(admin)).send(body);

  describe('POST /certificates', () => {
    it('answers 201 for a new fingerprint and 200 for a stored one, storing it once', async () => {
      const minted = await mintCertificate({ subject: 'CN=once.example.com', sans: ['once.example.com'] });
      const first = await upload(minted.pem).expect(201);
      expect(first.body).toMatchObject({ fingerprint: sha256(minted.der), commonName: 'once.example.com', sans: ['once.example.com'] });
      await upload(minted.pem).expect(200);
      await upload({ pem: minted.pem }, 'application/json').expect(200);
      const rows = await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM certificates WHERE fingerprint = $1', [
        sha256(minted.der),
      ]);
      expect(rows[0].n).toBe(1);
    });

    it('accepts PEM with text around it, base64 DER and raw DER', async () => {
      const [a, b, c] = await Promise.all([
        mintCertificate({ subject: 'CN=a.test' }),
        mintCertificate({ subject: 'CN=b.test' }),
        mintCertificate({ subject: 'CN=c.test' }),
      ]);
      await upload(`subject=CN=a.test\r\n\r\n  ${a.pem.replace(/\n/g, '\r\n')}trailing words`, 'text/plain').expect(201);
      await upload(Buffer.from(b.der).toString('base64'), 'text/plain').expect(201);
      await upload(Buffer.from(c.der), 'application/pkix-cert').expect(201);
    });

    it('stores every certificate of a chain and resolves each issuer', async () => {
      const chain = await mintChain();
      const response = await upload(pemBundle(chain.leaf, chain.intermediate, chain.root)).expect(201);
      const leaf = response.body as Record<string, unknown>;
      expect(leaf).toMatchObject({
        fingerprint: sha256(chain.leaf.der),
        issuerFingerprint: sha256(chain.intermediate.der),
        selfSigned: false,
        isCa: false,
      });
      const intermediate = (
        await t.http
          .get(`/api/v1/certificates/${sha256(chain.intermediate.der)}`)
          .set(bearer(admin))
          .expect(200)
      ).body as Record<string, unknown>;
      expect(intermediate).toMatchObject({ issuerFingerprint: sha256(chain.root.der), isCa: true, pathLength: 0 });
      const root = (
        await t.http
          .get(`/api/v1/certificates/${sha256(chain.root.der)}`)
          .set(bearer(admin))
          .expect(200)
      ).body as Record<string, unknown>;
      expect(root).toMatchObject({ issuerFingerprint: sha256(chain.root.der), selfSigned: true });
    });

    it('leaves issuerFingerprint null while the issuer is not stored', async () => {
      const chain = await mintChain();
      const response = await upload(chain.leaf.pem).expect(201);
      expect((response.body as { issuerFingerprint: string | null }).issuerFingerprint).toBeNull();
    });

    it.each([
      ['a PNG', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'application/pkix-cert'],
      ['a PNG sent as PEM text', '\u0089PNG\r\n\u001a\n', 'application/x-pem-file'],
      ['plain words', 'hello world', 'text/plain'],
      ['an empty JSON pem', { pem: '' }, 'application/json'],
      ['a JSON pem that is not a string', { pem: 42 }, 'application/json'],
      ['an unknown JSON property', { pem: '-----BEGIN CERTIFICATE-----', owner: 'x' }, 'application/json'],
      ['a JSON array', ['x'], 'application/json'],
    ])('refuses %s with 400 and stores nothing', async (_label, body, contentType) => {
      const before = await countCertificates();
      const response = await upload(body as string, contentType).expect(400);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.text.length).toBeGreaterThan(5);
      expect(await countCertificates()).toBe(before);
    });

    it('refuses a truncated DER and a PEM bundle with one broken block, storing nothing', async () => {
      const minted = await mintCertificate({ subject: 'CN=truncated.test' });
      const before = await countCertificates();
      const truncated = await upload(Buffer.from(minted.der.slice(0, minted.der.length - 20)), 'application/pkix-cert').expect(400);
      expect(truncated.text).toMatch(/DER|truncated|certificate/i);
      const good = await mintCertificate({ subject: 'CN=good.test' });
      const broken = minted.pem.replace(/[A-Za-z]{8}\n/, '!!!!!!!!\n');
      const bundle = await upload(good.pem + broken).expect(400);
      expect(bundle.text).toContain('certificate 2');
      expect(await countCertificates()).toBe(before);
    });

    it('refuses a 100-certificate bundle with a clear message, storing nothing', async () => {
      const one = await mintCertificate({ subject: 'CN=bundle.test' });
      const others = await Promise.all(
        Array.from({ length: 99 }, (_, i) => mintCertificate({ subject: `CN=bundle-${i}.test`, keys: one.keys })),
      );
      const before = await countCertificates();
      const response = await upload(pemBundle(one, ...others)).expect(400);
      expect(response.text).toContain('At most 20 certificates per upload.');
      expect(await countCertificates()).toBe(before);
    }, 60_000);
  });

  describe('PKCS #7 bundles made by openssl crl2pkcs7', () => {
    itWithOpenssl(
      `stores every certificate of a PEM or DER bundle and describes its leaf, whatever the bundle order${OPENSSL_NOTE}`,
      async () => {
        const chain = await mintChain();
        // Root first: the order inside the bundle must not decide which certificate is described.
        const chainPem = pemBundle(chain.root, chain.intermediate, chain.leaf);
        const p7b = crl2pkcs7(chainPem, 'PEM').toString('utf8');
        const p7c = crl2pkcs7(chainPem, 'DER');
        expect(p7b).toMatch(/^-----BEGIN PKCS7-----\n/);
        const before = await countCertificates();

        const created = await upload(p7b).expect(201);
        expect(created.body).toMatchObject({
          fingerprint: sha256(chain.leaf.der),
          commonName: 'leaf.example.com',
          issuerFingerprint: sha256(chain.intermediate.der),
          pem: chain.leaf.pem,
        });
        expect(await countCertificates()).toBe(before + 3);
        for (const minted of [chain.root, chain.intermediate]) {
          await t.http
            .get(`/api/v1/certificates/${sha256(minted.der)}`)
            .set(bearer(admin))
            .expect(200);
        }

        for (const [body, contentType] of [
          [p7c, 'application/octet-stream'],
          [p7c.toString('base64'), 'text/plain'],
          [{ pem: p7b }, 'application/json'],
          [`Certificate chain of leaf.example.com\n${chain.leaf.pem}${p7b}`, 'application/x-pem-file'],
        ] as const) {
          expect((await upload(body, contentType).expect(200)).body).toMatchObject({ fingerprint: sha256(chain.leaf.der) });
        }
        expect(await countCertificates()).toBe(before + 3);
      },
    );

    itWithOpenssl(`links the leaf of a bundle uploaded to an endpoint${OPENSSL_NOTE}`, async () => {
      const chain = await mintChain();
      const id = await endpoint({ name: 'pkcs7 upload', type: 'manual' });
      const p7c = crl2pkcs7(pemBundle(chain.intermediate, chain.root, chain.leaf), 'DER');
      const created = await t.http
        .post(`/api/v1/endpoints/${id}/certificate`)
        .set(bearer(admin))
        .set('Content-Type', 'application/octet-stream')
        .send(p7c)
        .expect(201);
      expect(created.body).toMatchObject({ link: 'created', certUse: 'manual', certificate: { fingerprint: sha256(chain.leaf.der) } });
      const p7b = crl2pkcs7(pemBundle(chain.leaf, chain.intermediate), 'PEM').toString('utf8');
      expect((await uploadTo(id, { pem: p7b, certUse: 'manual' }).expect(200)).body).toMatchObject({ link: 'unchanged' });
      const detail = (await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as {
        currentCertificates: { fingerprint: string }[];
      };
      expect(detail.currentCertificates.map((c) => c.fingerprint)).toEqual([sha256(chain.leaf.der)]);
    });

    itWithOpenssl(`refuses a bundle without certificates and a CMS that is not SignedData, storing nothing${OPENSSL_NOTE}`, async () => {
      const empty = openssl(['crl2pkcs7', '-nocrl'], {}).toString('utf8');
      const data = openssl(['cms', '-data_create', '-in', '{dir}/message.txt', '-outform', 'PEM'], { 'message.txt': 'hello' });
      const before = await countCertificates();
      expect((await upload(empty).expect(400)).text.trimEnd()).toBe('The PKCS #7 bundle has no certificates.');
      expect((await upload(data.toString('utf8'), 'text/plain').expect(400)).text).toMatch(/^The PKCS #7 data is Data, not SignedData/);
      const id = await endpoint({ name: 'pkcs7 refused', type: 'manual' });
      await uploadTo(id, empty).expect(400);
      expect(await countCertificates()).toBe(before);
    });

    itWithOpenssl(`refuses a bundle with one malformed certificate, saying which, and stores nothing${OPENSSL_NOTE}`, async () => {
      const [good, bad] = await Promise.all([
        mintCertificate({ subject: 'CN=pkcs7-good.test' }),
        mintCertificate({ subject: 'CN=pkcs7-bad.test' }),
      ]);
      const p7c = crl2pkcs7(pemBundle(good, bad), 'DER');
      // The second certificate's signature BIT STRING, right after its outer ecdsa-with-SHA256, becomes an OCTET STRING.
      const signatureAlgorithm = Buffer.from('300a06082a8648ce3d040302', 'hex');
      const bitString =
        p7c.indexOf(Buffer.from(bad.der)) + Buffer.from(bad.der).lastIndexOf(signatureAlgorithm) + signatureAlgorithm.length;
      expect(p7c[bitString]).toBe(0x03);
      p7c[bitString] = 0x04;
      const before = await countCertificates();
      const response = await upload(p7c, 'application/octet-stream').expect(400);
      expect(response.text.trimEnd()).toBe('certificate 2 of the PKCS #7 bundle: The data is not a valid DER-encoded X.509 certificate.');
      expect(await countCertificates()).toBe(before);
    });
  });

  describe('detail', () => {
    it('has every attribute, found by any fingerprint form', async () => {
      const minted = await mintCertificate({
        subject: 'CN=detail.example.com, O=Example Org, OU=Ops',
        sans: ['detail.example.com', '10.1.2.3'],
        ocspUrls: ['http://ocsp.test'],
      });
      await upload(minted.pem).expect(201);
      const fingerprint = sha256(minted.der);
      for (const form of [fingerprint, fingerprint.toUpperCase(), colons(fingerprint)]) {
        const detail = (
          await t.http
            .get(`/api/v1/certificates/${encodeURIComponent(form)}`)
            .set(bearer(admin))
            .expect(200)
        ).body as Record<string, unknown>;
        expect(detail).toMatchObject({
          fingerprint,
          sha1Fingerprint: sha1(minted.der),
          commonName: 'detail.example.com',
          subjectOrganization: 'Example Org',
          subjectOrganizationalUnit: 'Ops',
          sans: ['detail.example.com', '10.1.2.3'],
          keyAlgorithm: 'ECDSA',
          keySize: 256,
          keyCurve: 'P-256',
          signatureAlgorithm: 'ecdsa-with-SHA256',
          keyUsage: ['digitalSignature', 'keyEncipherment'],
          extendedKeyUsage: ['serverAuth'],
          ocspUrls: ['http://ocsp.test'],
          selfSigned: true,
          trustedBy: [],
          isTrustAnchor: false,
          currentEndpoints: [],
          historicalEndpoints: [],
        });
        expect(detail.pem).toBe(minted.pem);
      }
      await t.http.get('/api/v1/certificates/not-a-fingerprint').set(bearer(admin)).expect(400);
      await t.http
        .get(`/api/v1/certificates/${sha1(minted.der)}`)
        .set(bearer(admin))
        .expect(400);
      await t.http
        .get(`/api/v1/certificates/${'0'.repeat(64)}`)
        .set(bearer(admin))
        .expect(404);
    });
  });

  describe('links through uploads to an endpoint', () => {
    let a: MintedCertificate;
    let b: MintedCertificate;

    beforeAll(async () => {
      [a, b] = await Promise.all([mintCertificate({ subject: 'CN=a.rotation.test' }), mintCertificate({ subject: 'CN=b.rotation.test' })]);
    });

    const current = async (endpointId: string) =>
      (
        (await t.http.get(`/api/v1/endpoints/${endpointId}`).set(bearer(admin)).expect(200)).body as {
          currentCertificates: { fingerprint: string; certUse: string }[];
        }
      ).currentCertificates
        .map((c) => [c.certUse, c.fingerprint])
        .sort();

    it('walk every transition of the state machine', async () => {
      const id = await endpoint({ name: 'rotation', type: 'manual' });
      const created = await uploadTo(id, a.pem).expect(201);
      expect(created.body).toMatchObject({ link: 'created', certUse: 'manual', retired: [], certificate: { fingerprint: sha256(a.der) } });
      expect(await current(id)).toEqual([['manual', sha256(a.der)]]);

      expect((await uploadTo(id, a.pem).expect(200)).body).toMatchObject({ link: 'unchanged' });

      const rotated = await uploadTo(id, b.pem).expect(201);
      expect(rotated.body).toMatchObject({ link: 'created', retired: [sha256(a.der)] });
      expect(await current(id)).toEqual([['manual', sha256(b.der)]]);
      const historical = (
        await t.http
          .get(`/api/v1/certificates/${sha256(a.der)}/endpoints/historical`)
          .set(bearer(admin))
          .expect(200)
      ).body as unknown[];
      expect(historical).toEqual([
        expect.objectContaining({ endpointId: id, endpointName: 'rotation', endpointType: 'manual', certUse: 'manual' }),
      ]);
      const detailA = (
        await t.http
          .get(`/api/v1/certificates/${sha256(a.der)}`)
          .set(bearer(admin))
          .expect(200)
      ).body as Record<string, unknown[]>;
      expect([detailA.currentEndpoints, detailA.historicalEndpoints.length]).toEqual([[], 1]);
      const detailB = (
        await t.http
          .get(`/api/v1/certificates/${sha256(b.der)}`)
          .set(bearer(admin))
          .expect(200)
      ).body as Record<string, unknown[]>;
      expect([detailB.currentEndpoints.length, detailB.historicalEndpoints]).toEqual([1, []]);

      const back = await uploadTo(id, a.pem).expect(200);
      expect(back.body).toMatchObject({ link: 'reactivated', retired: [sha256(b.der)] });
      expect(await current(id)).toEqual([['manual', sha256(a.der)]]);
      const links = await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM endpoint_certificates WHERE endpoint_id = $1', [id]);
      expect(links[0].n).toBe(2);

      expect((await uploadTo(id, b.pem, { replace: 'false' }).expect(200)).body).toMatchObject({ link: 'reactivated', retired: [] });
      expect(await current(id)).toEqual(
        [
          ['manual', sha256(a.der)],
          ['manual', sha256(b.der)],
        ].sort(),
      );
    });

    it('keeps signing and encryption links to the same certificate, chosen by query, alias or JSON', async () => {
      const id = await endpoint({ name: 'sp keys', type: 'manual' });
      await uploadTo(id, a.pem, { certUse: 'signing' }).expect(201);
      await uploadTo(id, a.pem, { cert_use: 'encryption' }).expect(201);
      await uploadTo(id, { pem: b.pem, certUse: 'signing' }, {}).expect(201);
      expect(await current(id)).toEqual(
        [
          ['encryption', sha256(a.der)],
          ['signing', sha256(b.der)],
        ].sort(),
      );
      const endpoints = (
        await t.http
          .get(`/api/v1/certificates/${sha256(a.der)}/endpoints`)
          .set(bearer(admin))
          .expect(200)
      ).body as { certUse: string }[];
      expect(endpoints.filter((e) => e.certUse === 'encryption')).toHaveLength(1);
    });

    it('works on scanned endpoints and refuses bad input, changing nothing', async () => {
      const id = await endpoint({ name: 'scanned', dnsName: 'upload.example.com' });
      await uploadTo(id, a.pem, { certUse: 'tls' }).expect(201);
      await uploadTo(id, a.pem, { certUse: 'bogus' }).expect(400);
      await uploadTo(id, a.pem, { replace: 'sometimes' }).expect(400);
      await uploadTo(id, 'not a certificate').expect(400);
      await uploadTo('00000000-0000-4000-8000-000000000000', b.pem).expect(404);
      expect(await current(id)).toEqual([['tls', sha256(a.der)]]);
    });

    it('is safe under two concurrent uploads: one current certificate, no duplicate links', async () => {
      const id = await endpoint({ name: 'race', type: 'manual' });
      const [c, d] = await Promise.all([mintCertificate({ subject: 'CN=c.race.test' }), mintCertificate({ subject: 'CN=d.race.test' })]);
      const statuses = (await Promise.all([uploadTo(id, c.pem), uploadTo(id, d.pem), uploadTo(id, c.pem)])).map((r) => r.status);
      expect(statuses.every((status) => status === 200 || status === 201)).toBe(true);
      expect(await current(id)).toHaveLength(1);
      const links = await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM endpoint_certificates WHERE endpoint_id = $1', [id]);
      expect(links[0].n).toBe(2);
    });
  });

  describe('delete', () => {
    it('is refused while any link references the certificate, current or historical', async () => {
      const [x, y] = await Promise.all([
        mintCertificate({ subject: 'CN=x.delete.test' }),
        mintCertificate({ subject: 'CN=y.delete.test' }),
      ]);
      const id = await endpoint({ name: 'delete-links', type: 'manual' });
      await uploadTo(id, x.pem).expect(201);
      await t.http
        .delete(`/api/v1/certificates/${sha256(x.der)}`)
        .set(bearer(admin))
        .expect(409);
      await uploadTo(id, y.pem).expect(201); // x is now historical
      const refused = await t.http
        .delete(`/api/v1/certificates/${sha256(x.der)}`)
        .set(bearer(admin))
        .expect(409);
      expect(refused.text).toContain('cannot be deleted');

      const loose = await mintCertificate({ subject: 'CN=loose.delete.test' });
      await upload(loose.pem).expect(201);
      await t.http
        .delete(`/api/v1/certificates/${colons(sha256(loose.der))}`)
        .set(bearer(admin))
        .expect(204);
      await t.http
        .get(`/api/v1/certificates/${sha256(loose.der)}`)
        .set(bearer(admin))
        .expect(404);
      await t.http
        .delete(`/api/v1/certificates/${sha256(loose.der)}`)
        .set(bearer(admin))
        .expect(404);
    });
  });

  describe('in use and anchors', () => {
    const names = async (query: Record<string, unknown>) => {
      const response = await t.http
        .get('/api/v1/certificates')
        .query({ q: 'usage.test', ...query })
        .set(bearer(admin))
        .expect(200);
      expect(response.headers['x-total-count']).toBe(String((response.body as unknown[]).length));
      return (response.body as Summary[]).map((row) => row.commonName).sort();
    };

    beforeAll(async () => {
      const [current, historical, stored, anchor] = await Promise.all(
        ['current', 'historical', 'stored', 'anchor'].map((name) => mintCertificate({ subject: `CN=${name}.usage.test` })),
      );
      const id = await endpoint({ name: 'usage', type: 'manual' });
      await uploadTo(id, historical.pem).expect(201);
      await uploadTo(id, current.pem).expect(201); // replaces: historical is no longer current anywhere
      await upload(stored.pem).expect(201);
      await upload(anchor.pem).expect(201);
      // A root store's certificate, without importing a root store.
      await sql.query('UPDATE certificates SET is_trust_anchor = true WHERE fingerprint = $1', [sha256(anchor.der)]);
    });

    it.each([
      [{}, ['anchor', 'current', 'historical', 'stored']],
      [{ inUse: 'true' }, ['current']],
      [{ inUse: 'false' }, ['anchor', 'historical', 'stored']],
      [{ anchors: 'false' }, ['current', 'historical', 'stored']],
      [{ anchors: 'true' }, ['anchor', 'current', 'historical', 'stored']],
      [{ inUse: 'false', anchors: 'false' }, ['historical', 'stored']],
    ])('filters %j', async (query, expected) => {
      expect(await names(query)).toEqual(expected.map((name) => `${name}.usage.test`));
    });

    it('exports the same rows as CSV', async () => {
      const csv = await t.http
        .get('/api/v1/certificates')
        .query({ q: 'usage.test', inUse: 'false', anchors: 'false', format: 'csv' })
        .set(bearer(admin));
      expect(csv.status).toBe(200);
      const lines = csv.text.trim().split('\r\n');
      expect(lines.length).toBe(3);
      expect(lines.slice(1).some((line) => line.includes('historical.usage.test'))).toBe(true);
      expect(lines.slice(1).some((line) => line.includes('stored.usage.test'))).toBe(true);
    });

    it.each([{ inUse: 'yes' }, { inUse: '1' }, { anchors: 'none' }])('refuses %j with 400', async (query) => {
      const response = await t.http.get('/api/v1/certificates').query(query).set(bearer(admin)).expect(400);
      expect(response.text).toMatch(/(inUse|anchors) must be true or false/);
    });
  });

  describe('lists over time', () => {
    let lists: TestApp;
    let token: string;
    const fp: Record<string, string> = {};

    beforeAll(async () => {
      lists = await createTestApp();
      token = await login(lists);
      const now = lists.clock.now().getTime();
      const at = (ms: number) => new Date(Math.floor((now + ms) / 1000) * 1000);
      const certificates = {
        justExpired: await mintCertificate({ subject: 'CN=just-expired.test', notBefore: at(-30 * DAY), notAfter: at(-SECOND) }),
        tenHours: await mintCertificate({ subject: 'CN=ten-hours.test', notBefore: at(-30 * DAY), notAfter: at(10 * HOUR) }),
        twelveDays: await mintCertificate({ subject: 'CN=twelve-days.test', notBefore: at(-30 * DAY), notAfter: at(12 * DAY + HOUR) }),
        wildcard: await mintCertificate({
          subject: 'CN=*.example.com',
          sans: ['*.example.com'],
          notBefore: at(-DAY),
          notAfter: at(200 * DAY),
          serialNumber: '0a1b2c3d',
        }),
      };
      const endpoints = {
        host: (
          (
            await lists.http
              .post('/api/v1/endpoints')
              .set(bearer(token))
              .send({ name: 'web', dnsName: 'web.example.com', tags: ['env:prod'] })
              .expect(201)
          ).body as { id: string }
        ).id,
        manual: (
          (
            await lists.http
              .post('/api/v1/endpoints')
              .set(bearer(token))
              .send({ name: 'vault', type: 'manual', tags: ['env:test'] })
              .expect(201)
          ).body as { id: string }
        ).id,
      };
      const link = (endpointId: string, minted: MintedCertificate, certUse: string) =>
        lists.http
          .post(`/api/v1/endpoints/${endpointId}/certificate`)
          .query({ certUse, replace: 'false' })
          .set(bearer(token))
          .send(minted.pem)
          .expect(201);
      await link(endpoints.host, certificates.tenHours, 'tls');
      await link(endpoints.manual, certificates.justExpired, 'manual');
      await link(endpoints.manual, certificates.twelveDays, 'manual');
      await link(endpoints.host, certificates.wildcard, 'tls');
      for (const [name, minted] of Object.entries(certificates)) fp[name] = sha256(minted.der);
    });
    afterAll(() => lists.close());

    const get = async (path: string, query: Record<string, unknown> = {}) => {
      const response = await lists.http.get(path).query(query).set(bearer(token)).expect(200);
      return { rows: response.body as (Summary & { endpointName?: string })[], total: response.headers['x-total-count'] };
    };

    it('computes daysRemaining at the boundaries', async () => {
      const { rows, total } = await get('/api/v1/certificates');
      expect(total).toBe('4');
      expect(rows.map((r) => [r.commonName, r.daysRemaining])).toEqual([
        ['just-expired.test', -1],
        ['ten-hours.test', 0],
        ['twelve-days.test', 12],
        ['*.example.com', 199],
      ]);
    });

    it('lists active links soonest first, with filters', async () => {
      expect((await get('/api/v1/certificates/active')).rows.map((r) => r.commonName)).toEqual([
        'just-expired.test',
        'ten-hours.test',
        'twelve-days.test',
        '*.example.com',
      ]);
      expect((await get('/api/v1/certificates/active', { type: 'host' })).rows.map((r) => r.commonName)).toEqual([
        'ten-hours.test',
        '*.example.com',
      ]);
      expect((await get('/api/v1/certificates/active', { tag: 'env:test' })).rows.map((r) => r.endpointName)).toEqual(['vault', 'vault']);
      expect((await get('/api/v1/certificates/active', { certUse: 'manual' })).total).toBe('2');
      const window = await get('/api/v1/certificates/active', { limit: 1, offset: 1 });
      expect([window.rows.map((r) => r.commonName), window.total]).toEqual([['ten-hours.test'], '4']);
    });

    it('sends each list as the JSON of its items, with an ETag that conditional requests match', async () => {
      // The three lists build their JSON row by row (common/http/json-array-text.ts).
      for (const path of ['/api/v1/certificates', '/api/v1/certificates/active', '/api/v1/certificates/expiring']) {
        const response = await lists.http.get(path).set(bearer(token)).expect(200);
        const body = response.body as unknown[];
        expect([path, response.headers['content-type'], response.text, body.length]).toEqual([
          path,
          'application/json; charset=utf-8',
          JSON.stringify(body),
          path.endsWith('expiring') ? 3 : 4,
        ]);
        const etag = response.headers.etag;
        expect(etag).toMatch(/^W\/"/);
        await lists.http.get(path).set(bearer(token)).set('If-None-Match', etag).expect(304);
      }
      const empty = await lists.http.get('/api/v1/certificates/active').query({ offset: 10 }).set(bearer(token)).expect(200);
      expect([empty.text, empty.headers['x-total-count']]).toEqual(['[]', '4']);
    });

    it('lists expiring links within N days, expired ones included with negative days', async () => {
      expect((await get('/api/v1/certificates/expiring', { days: 0 })).rows.map((r) => [r.commonName, r.daysRemaining])).toEqual([
        ['just-expired.test', -1],
        ['ten-hours.test', 0],
      ]);
      expect((await get('/api/v1/certificates/expiring', { days: 11 })).rows).toHaveLength(2);
      expect((await get('/api/v1/certificates/expiring', { days: 12 })).rows.map((r) => r.commonName)).toContain('twelve-days.test');
      expect((await get('/api/v1/certificates/expiring')).total).toBe('3'); // default 30 days
      for (const days of ['-1', '3651', 'soon'])
        await lists.http.get('/api/v1/certificates/expiring').query({ days }).set(bearer(token)).expect(400);
    });

    it('moves with the clock', async () => {
      lists.clock.advance(2 * DAY);
      try {
        token = await login(lists); // the old session expired with the clock
        const rows = (await get('/api/v1/certificates/expiring', { days: 10 })).rows;
        expect(rows.map((r) => [r.commonName, r.daysRemaining])).toEqual([
          ['just-expired.test', -3],
          ['ten-hours.test', -2],
          ['twelve-days.test', 10],
        ]);
      } finally {
        lists.clock.advance(-2 * DAY);
        token = await login(lists);
      }
    });

    it('looks up by hostname with wildcards, by fingerprint and by serial number', async () => {
      const byHost = (
        await lists.http.get('/api/v1/certificates/lookup').query({ hostname: 'API.example.com.' }).set(bearer(token)).expect(200)
      ).body as Summary[];
      expect(byHost.map((r) => r.commonName)).toEqual(['*.example.com']);
      expect(
        (await lists.http.get('/api/v1/certificates/lookup').query({ hostname: 'example.com' }).set(bearer(token)).expect(200)).body,
      ).toEqual([]);
      expect(
        (await lists.http.get('/api/v1/certificates/lookup').query({ hostname: 'a.b.example.com' }).set(bearer(token)).expect(200)).body,
      ).toEqual([]);
      const byFingerprint = (
        await lists.http
          .get('/api/v1/certificates/lookup')
          .query({ fingerprint: colons(fp.tenHours) })
          .set(bearer(token))
          .expect(200)
      ).body as Summary[];
      expect(byFingerprint.map((r) => r.fingerprint)).toEqual([fp.tenHours]);
      const bySerial = (
        await lists.http.get('/api/v1/certificates/lookup').query({ serialNumber: '0A:1B:2C:3D' }).set(bearer(token)).expect(200)
      ).body as Summary[];
      expect(bySerial.map((r) => r.fingerprint)).toEqual([fp.wildcard]);
      await lists.http.get('/api/v1/certificates/lookup').set(bearer(token)).expect(400);
      await lists.http.get('/api/v1/certificates/lookup').query({ fingerprint: 'xyz' }).set(bearer(token)).expect(400);
      await lists.http.get('/api/v1/certificates/lookup').query({ serialNumber: 'not-hex' }).set(bearer(token)).expect(400);
    });

    it('looks up an IP literal by its address, however it is written (the findings’ RFC 6125 rule)', async () => {
      const minted = await mintCertificate({ subject: 'CN=v6.lookup.test', sans: ['2001:db8::7'] });
      await lists.http.post('/api/v1/certificates').set(bearer(token)).send({ pem: minted.pem }).expect(201);
      for (const hostname of ['2001:db8::7', '2001:0db8:0:0:0:0:0:7', '[2001:DB8::7]']) {
        const found = (await lists.http.get('/api/v1/certificates/lookup').query({ hostname }).set(bearer(token)).expect(200))
          .body as Summary[];
        expect(found.map((r) => r.commonName)).toEqual(['v6.lookup.test']);
      }
    });

    it('searches certificates and endpoints in one envelope', async () => {
      const search = async (q: string, query: Record<string, unknown> = {}) =>
        (
          await lists.http
            .get('/api/v1/search')
            .query({ q, ...query })
            .set(bearer(token))
            .expect(200)
        ).body as {
          items: { kind: string; commonName?: string; name?: string }[];
          totalCount: number;
        };
      const byName = await search('twelve');
      expect(byName.items.map((i) => [i.kind, i.commonName])).toEqual([['certificate', 'twelve-days.test']]);
      const byFingerprint = await search(fp.justExpired.slice(0, 10).toUpperCase());
      expect(byFingerprint.items.map((i) => i.commonName)).toEqual(['just-expired.test']);
      const mixed = await search('example.com');
      expect(mixed.items.map((i) => i.kind)).toEqual(['certificate', 'endpoint']);
      expect(mixed.totalCount).toBe(2);
      const paged = await search('example.com', { limit: 1, offset: 1 });
      expect([paged.items.map((i) => i.name), paged.totalCount]).toEqual([['web'], 2]);
      await lists.http.get('/api/v1/search').query({ q: 'x' }).set(bearer(token)).expect(400);
      await lists.http.get('/api/v1/search').set(bearer(token)).expect(400);
    });
  });
});
