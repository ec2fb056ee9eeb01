import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintCertificate, mintCrl, type MintedCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { LoopbackServers, unusedPort } from '@certkeeper/net/testing';
import { DAY, MINUTE } from './support/fake-clock';
import { bearer, createTestApp, login, type TestApp } from './support/test-app';

interface Revocation {
  status: string;
  source: string;
  revokedAt: string | null;
  reason: string | null;
  checkedAt: string;
  error: string | null;
}

const MIB = 1024 * 1024;

// check-revocation (docs/api-contract.md section 18) against a real CRL server on 127.0.0.1 serving
// lists signed by a real CA: good, revoked, tampered, stale and oversized.
describe('revocation by CRL', () => {
  let t: TestApp;
  let admin: string;
  let ca: MintedCertificate;
  let base: string;
  const servers = new LoopbackServers();
  /** What each path serves: a CRL's bytes, or 'oversized' for a body past the 64 MiB cap. */
  const published = new Map<string, Uint8Array | 'oversized'>();
  const requests = new Map<string, number>();

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    ca = await mintCertificate({ subject: 'CN=Revocation Test CA, O=Certkeeper', ca: true });
    await t.http.post('/api/v1/certificates').set(bearer(admin)).set('Content-Type', 'application/x-pem-file').send(ca.pem).expect(201);
    base = await servers.serve((request, response) => publish(request, response));
  });
  afterAll(async () => {
    await servers.closeAll();
    await t.close();
  });

  function publish(request: IncomingMessage, response: ServerResponse): void {
    const path = request.url ?? '';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const body = published.get(path);
    if (body === undefined) {
      response.writeHead(404).end();
    } else if (body === 'oversized') {
      response.writeHead(200, { 'content-type': 'application/pkix-crl' });
      const chunk = Buffer.alloc(MIB);
      let sent = 0;
      const more = () => {
        while (sent < 65 && !response.destroyed) {
          sent += 1;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end();
      };
      more();
    } else {
      response.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(Buffer.from(body));
    }
  }

  let serials = 0x100;
  /** A leaf of the CA whose CRL is `path`, current on a manual endpoint of its own. */
  const issue = async (path: string) => {
    const serialNumber = (serials += 1).toString(16).padStart(6, '0');
    const leaf = await mintCertificate({
      issuer: ca,
      serialNumber,
      subject: `CN=${path.slice(1)}.example.com`,
      crlUrls: [`${base}${path}`],
    });
    const endpoint = (
      await t.http
        .post('/api/v1/endpoints')
        .set(bearer(admin))
        .send({ name: `crl ${path}`, type: 'manual' })
        .expect(201)
    ).body as { id: string };
    const upload = await t.http.post(`/api/v1/endpoints/${endpoint.id}/certificate`).set(bearer(admin)).send(leaf.pem).expect(201);
    return {
      serialNumber,
      endpointId: endpoint.id,
      fingerprint: (upload.body as { certificate: { fingerprint: string } }).certificate.fingerprint,
    };
  };
  const check = async () =>
    (await t.http.post('/api/v1/maintenance/tasks/check-revocation/run').set(bearer(admin)).expect(200)).body as {
      outcome: string;
      counts: Record<string, number>;
    };
  const revocationOf = async (fingerprint: string) =>
    ((await t.http.get(`/api/v1/certificates/${fingerprint}`).set(bearer(admin)).expect(200)).body as { revocation: Revocation | null })
      .revocation;
  const findingsOf = async (endpointId: string) =>
    (
      (await t.http.get(`/api/v1/endpoints/${endpointId}`).set(bearer(admin)).expect(200)).body as { findings: { code: string }[] }
    ).findings.map((f) => f.code);

  it('reads good for a serial a verified CRL does not list, revoked with date and reason for one it does', async () => {
    const good = await issue('/good.crl');
    const revoked = await issue('/revoked.crl');
    expect(await revocationOf(good.fingerprint)).toBeNull();
    const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 2 * DAY);
    published.set('/good.crl', await mintCrl(ca, { entries: [{ serialNumber: 'ffff01' }] }));
    published.set(
      '/revoked.crl',
      await mintCrl(ca, { entries: [{ serialNumber: revoked.serialNumber, revokedAt, reason: 'keyCompromise' }] }),
    );

    expect((await check()).outcome).toBe('succeeded');
    expect(await revocationOf(good.fingerprint)).toMatchObject({
      status: 'good',
      source: 'crl',
      revokedAt: null,
      reason: null,
      error: null,
    });
    expect(await revocationOf(revoked.fingerprint)).toEqual({
      status: 'revoked',
      source: 'crl',
      revokedAt: revokedAt.toISOString(),
      reason: 'keyCompromise',
      checkedAt: t.clock.now().toISOString(),
      error: null,
    });
    expect(await findingsOf(revoked.endpointId)).toContain('revoked');
    expect(await findingsOf(good.endpointId)).not.toContain('revoked');
  });

  it('reads a CRL of 5,000 entries, as large CAs publish (the ASN.1 parser refuses one over about 2,000 unless told its size)', async () => {
    const leaf = await issue('/large.crl');
    const others = Array.from({ length: 4_999 }, (_, i) => ({ serialNumber: (0x70000000 + i).toString(16) }));
    published.set('/large.crl', await mintCrl(ca, { entries: [...others, { serialNumber: leaf.serialNumber, reason: 'superseded' }] }));
    await check();
    expect(await revocationOf(leaf.fingerprint)).toMatchObject({ status: 'revoked', reason: 'superseded', error: null });
  }, 60_000);

  it('never says revoked on a CRL whose signature does not verify: unknown, with the reason', async () => {
    const leaf = await issue('/tampered.crl');
    const crl = Buffer.from(await mintCrl(ca, { entries: [{ serialNumber: leaf.serialNumber }] }));
    crl[crl.length - 2] ^= 0xff; // inside the signature
    published.set('/tampered.crl', crl);
    await check();
    expect(await revocationOf(leaf.fingerprint)).toMatchObject({
      status: 'unknown',
      source: 'crl',
      error: expect.stringMatching(/signature/),
    });
    expect(await findingsOf(leaf.endpointId)).not.toContain('revoked');
  });

  it('never says revoked on a CRL signed by another CA', async () => {
    const leaf = await issue('/impostor.crl');
    const impostor = await mintCertificate({ subject: 'CN=Revocation Test CA, O=Certkeeper', ca: true });
    published.set('/impostor.crl', await mintCrl(impostor, { entries: [{ serialNumber: leaf.serialNumber }] }));
    await check();
    expect(await revocationOf(leaf.fingerprint)).toMatchObject({ status: 'unknown', error: expect.stringMatching(/signature/) });
  });

  it('reads unknown on a CRL past its nextUpdate, even one listing the serial', async () => {
    const leaf = await issue('/stale.crl');
    const thisUpdate = new Date(Date.now() - 3 * DAY);
    published.set(
      '/stale.crl',
      await mintCrl(ca, { thisUpdate, nextUpdate: new Date(thisUpdate.getTime() + DAY), entries: [{ serialNumber: leaf.serialNumber }] }),
    );
    await check();
    expect(await revocationOf(leaf.fingerprint)).toMatchObject({ status: 'unknown', error: expect.stringMatching(/nextUpdate/) });
  });

  it('stops reading a CRL past 64 MiB and reads unknown', async () => {
    const leaf = await issue('/oversized.crl');
    published.set('/oversized.crl', 'oversized');
    await check();
    expect(await revocationOf(leaf.fingerprint)).toMatchObject({ status: 'unknown', error: expect.stringMatching(/64 MiB/) });
  });

  it('fetches a CRL once until its nextUpdate, however many certificates share it, at least hourly and at most daily', async () => {
    const first = await issue('/shared.crl');
    const second = await issue('/shared.crl');
    published.set('/shared.crl', await mintCrl(ca, { nextUpdate: new Date(t.clock.now().getTime() + 6 * 60 * 60 * 1000) }));
    await check();
    await check();
    expect(requests.get('/shared.crl')).toBe(1);
    expect((await revocationOf(first.fingerprint))?.status).toBe('good');
    expect((await revocationOf(second.fingerprint))?.status).toBe('good');

    // Revoked since: the new list is read once the stored one's nextUpdate has passed.
    published.set(
      '/shared.crl',
      await mintCrl(ca, {
        entries: [{ serialNumber: second.serialNumber }],
        thisUpdate: new Date(t.clock.now().getTime() + 6 * 60 * 60 * 1000),
      }),
    );
    t.clock.advance(5 * 60 * 60 * 1000);
    admin = await login(t);
    await check();
    expect(requests.get('/shared.crl')).toBe(1);
    t.clock.advance(2 * 60 * 60 * 1000);
    admin = await login(t);
    await check();
    expect(requests.get('/shared.crl')).toBe(2);
    expect((await revocationOf(second.fingerprint))?.status).toBe('revoked');
  });
});

/**
 * `openssl ocsp` answering from an index of (serial, revoked at) with `signer`'s key, on a free
 * loopback port; its answers' nextUpdate is `validity` (openssl's -nmin or -ndays) after the real time.
 */
async function startOcspResponder(
  directory: string,
  name: string,
  ca: MintedCertificate,
  signer: MintedCertificate,
  entries: { serialNumber: string; revokedAt?: Date }[],
  validity = ['-nmin', '60'],
): Promise<{ url: string; process: ChildProcess }> {
  const opensslTime = (date: Date) => `${date.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`;
  const index = entries.map(({ serialNumber, revokedAt }) =>
    [
      revokedAt ? 'R' : 'V',
      opensslTime(new Date(Date.now() + 365 * DAY)),
      revokedAt ? `${opensslTime(revokedAt)},keyCompromise` : '',
      serialNumber.toUpperCase(),
      'unknown',
      '/CN=leaf',
    ].join('\t'),
  );
  writeFileSync(join(directory, `${name}.index`), `${index.join('\n')}\n`);
  writeFileSync(join(directory, `${name}.ca.pem`), ca.pem);
  writeFileSync(join(directory, `${name}.signer.pem`), signer.pem);
  writeFileSync(join(directory, `${name}.signer.key`), await privateKeyPem(signer.keys.privateKey));
  const port = await unusedPort();
  const child = spawn(
    'openssl',
    [
      'ocsp',
      '-index',
      `${name}.index`,
      '-port',
      String(port),
      '-CA',
      `${name}.ca.pem`,
      '-rsigner',
      `${name}.signer.pem`,
      '-rkey',
      `${name}.signer.key`,
      ...validity,
    ],
    { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OPENSSL_CONF: '/dev/null' } },
  );
  // Ready once it says so: a probing connection would hold the single-threaded responder until it timed out.
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('waiting for OCSP client connections')) resolve();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('error', (error) => reject(new Error(`openssl could not be run (CI needs it on the PATH): ${error.message}`)));
    child.once('exit', () => reject(new Error(`openssl ocsp did not start (CI needs openssl on the PATH): ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child };
}

// The same task for certificates without a CRL, against `openssl ocsp` (RFC 6960).
describe('revocation by OCSP', () => {
  let t: TestApp;
  let admin: string;
  let directory: string;
  const responders: ChildProcess[] = [];
  const relays = new LoopbackServers();

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    directory = mkdtempSync(join(tmpdir(), 'certkeeper-ocsp-'));
  });
  afterAll(async () => {
    await relays.closeAll();
    for (const responder of responders) responder.kill();
    rmSync(directory, { recursive: true, force: true });
    await t.close();
  });

  const check = async () => {
    // Sessions expire as the clock moves on: sign in again at each run.
    admin = await login(t);
    await t.http.post('/api/v1/maintenance/tasks/check-revocation/run').set(bearer(admin)).expect(200);
  };
  const revocationOf = async (fingerprint: string) =>
    ((await t.http.get(`/api/v1/certificates/${fingerprint}`).set(bearer(admin)).expect(200)).body as { revocation: Revocation | null })
      .revocation;
  const linked = async (leaf: MintedCertificate, name: string) => {
    const endpoint = (await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name, type: 'manual' }).expect(201)).body as {
      id: string;
    };
    const upload = await t.http.post(`/api/v1/endpoints/${endpoint.id}/certificate`).set(bearer(admin)).send(leaf.pem).expect(201);
    return (upload.body as { certificate: { fingerprint: string } }).certificate.fingerprint;
  };

  it('reads good and revoked from a responder the issuer delegated, and unknown from one it did not', async () => {
    const ca = await mintCertificate({ subject: 'CN=OCSP Test CA', ca: true });
    await t.http.post('/api/v1/certificates').set(bearer(admin)).set('Content-Type', 'application/x-pem-file').send(ca.pem).expect(201);
    const delegate = await mintCertificate({ subject: 'CN=OCSP Responder', issuer: ca, extendedKeyUsage: ['1.3.6.1.5.5.7.3.9'] });
    const impostor = await mintCertificate({ subject: 'CN=Impostor Responder', extendedKeyUsage: ['1.3.6.1.5.5.7.3.9'] });
    const leafAt = (url: string, serialNumber: string) =>
      mintCertificate({ issuer: ca, serialNumber, subject: `CN=ocsp-${serialNumber}.example.com`, ocspUrls: [url] });
    const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - DAY);

    const delegated = await startOcspResponder(directory, 'delegated', ca, delegate, [
      { serialNumber: 'a001' },
      { serialNumber: 'a002', revokedAt },
    ]);
    responders.push(delegated.process);
    const goodLeaf = await leafAt(delegated.url, 'a001');
    const revokedLeaf = await leafAt(delegated.url, 'a002');
    // Signed by a key the issuer never delegated: whatever it says is not used.
    const rogue = await startOcspResponder(directory, 'rogue', ca, impostor, [{ serialNumber: 'a003', revokedAt }]);
    responders.push(rogue.process);
    const forgedLeaf = await leafAt(rogue.url, 'a003');

    const [goodPrint, revokedPrint, forgedPrint] = [
      await linked(goodLeaf, 'ocsp good'),
      await linked(revokedLeaf, 'ocsp revoked'),
      await linked(forgedLeaf, 'ocsp forged'),
    ];
    await check();
    expect(await revocationOf(goodPrint)).toMatchObject({ status: 'good', source: 'ocsp', error: null });
    expect(await revocationOf(revokedPrint)).toMatchObject({
      status: 'revoked',
      source: 'ocsp',
      revokedAt: revokedAt.toISOString(),
      reason: 'keyCompromise',
    });
    expect(await revocationOf(forgedPrint)).toMatchObject({
      status: 'unknown',
      source: 'ocsp',
      error: expect.stringMatching(/not signed by the issuer/),
    });
  });

  it('reuses an answer until its nextUpdate, at most a day, instead of asking the responder at every run', async () => {
    const ca = await mintCertificate({ subject: 'CN=OCSP Reuse CA', ca: true });
    await t.http.post('/api/v1/certificates').set(bearer(admin)).set('Content-Type', 'application/x-pem-file').send(ca.pem).expect(201);
    // Answers valid an hour, and two days (beyond the one-day bound); a counting relay before each responder.
    const hourly = await countedResponder('hourly', ca, 'b001', ['-nmin', '60']);
    const lasting = await countedResponder('lasting', ca, 'b002', ['-ndays', '2']);
    const hourlyPrint = await linked(await mintCertificate({ issuer: ca, serialNumber: 'b001', ocspUrls: [hourly.url] }), 'ocsp hourly');
    const lastingPrint = await linked(await mintCertificate({ issuer: ca, serialNumber: 'b002', ocspUrls: [lasting.url] }), 'ocsp lasting');
    const started = t.clock.now();

    await check();
    await check();
    expect([hourly.requests(), lasting.requests()]).toEqual([1, 1]);
    expect(await revocationOf(hourlyPrint)).toMatchObject({ status: 'good', checkedAt: started.toISOString() });

    // Past the hourly answer's nextUpdate: asked again; the two-day answer still stands in.
    t.clock.advance(61 * MINUTE);
    await check();
    expect([hourly.requests(), lasting.requests()]).toEqual([2, 1]);
    expect(await revocationOf(lastingPrint)).toMatchObject({ status: 'good', checkedAt: started.toISOString() });

    // A day after it was read, the two-day answer is asked for again.
    t.clock.set(new Date(started.getTime() + DAY - MINUTE));
    await check();
    expect(lasting.requests()).toBe(1);
    t.clock.set(new Date(started.getTime() + DAY));
    await check();
    expect(lasting.requests()).toBe(2);
  });

  /** A delegated responder for one serial of `ca`, behind an HTTP relay on 127.0.0.1 that counts the requests it passes on. */
  async function countedResponder(name: string, ca: MintedCertificate, serialNumber: string, validity: string[]) {
    const delegate = await mintCertificate({ subject: `CN=OCSP Responder ${name}`, issuer: ca, extendedKeyUsage: ['1.3.6.1.5.5.7.3.9'] });
    const responder = await startOcspResponder(directory, name, ca, delegate, [{ serialNumber }], validity);
    responders.push(responder.process);
    let requests = 0;
    const url = await relays.serve((request, response) => {
      requests += 1;
      void fetch(`${responder.url}${request.url ?? '/'}`).then(async (answer) =>
        response.writeHead(answer.status, { 'content-type': 'application/ocsp-response' }).end(Buffer.from(await answer.arrayBuffer())),
      );
    });
    return { url, requests: () => requests };
  }
});
