import { generateKeyPair, mintCertificate, mintChain, type MintedCertificate } from '@certkeeper/domain/testing';
import { createHash } from 'node:crypto';
import { hostScanResult } from './support/scan-results';
import { mailSettingsFor, startSmtpServer, type TestSmtpServer } from './support/smtp';
import { bearer, createTestApp, createUser, defaultScannerCredentials, login, type TestApp } from './support/test-app';
import { DAY, MINUTE } from './support/fake-clock';

const sha256 = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

interface Rotation {
  id: string;
  certUse: string;
  at: string;
  fromFingerprint: string;
  toFingerprint: string;
  changes: { field: string; from: unknown; to: unknown }[];
  regressions: string[];
}

/**
 * Rotations (docs/api-contract.md section 16): recorded by the links' state machine as scans and
 * uploads replace an endpoint's current certificate, listed per endpoint, and the
 * rotation_regression event delivered once per recipient and new certificate.
 */
describe('rotations', () => {
  let t: TestApp;
  let admin: string;
  let scannerToken: string;
  let smtp: TestSmtpServer;
  let names = 0;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    scannerToken = (await defaultScannerCredentials(t, admin)).token;
    smtp = await startSmtpServer();
    const mail = mailSettingsFor(smtp);
    await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mail).expect(200);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const hostEndpoint = async () => {
    names += 1;
    const body = { name: `rotating-${names}`, dnsName: `rotating-${names}.example.com` };
    return ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
  };
  const manualEndpoint = async () => {
    names += 1;
    return (
      (
        await t.http
          .post('/api/v1/endpoints')
          .set(bearer(admin))
          .send({ name: `manual-${names}`, type: 'manual' })
          .expect(201)
      ).body as {
        id: string;
      }
    ).id;
  };
  const scan = async (endpointId: string, chain: MintedCertificate[]) => {
    t.clock.advance(MINUTE);
    await t.http
      .post('/api/v1/scanner/results')
      .set(bearer(scannerToken))
      .send({ results: [hostScanResult(endpointId, chain, t.clock.now())] })
      .expect(200);
  };
  const upload = (endpointId: string, minted: MintedCertificate) =>
    t.http
      .post(`/api/v1/endpoints/${endpointId}/certificate`)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(minted.pem);
  const rotations = async (endpointId: string, query = '') => {
    const response = await t.http.get(`/api/v1/endpoints/${endpointId}/rotations${query}`).set(bearer(admin)).expect(200);
    return { rows: response.body as Rotation[], total: Number(response.headers['x-total-count']) };
  };
  const issuedDaysAgo = (days: number) => new Date(Math.floor((t.clock.now().getTime() - days * DAY) / 1000) * 1000);

  it('records a scan that replaces the current certificate, not the first one, with every compared field that changed', async () => {
    const id = await hostEndpoint();
    const chain = await mintChain();
    const old = await mintCertificate({
      subject: 'CN=www.example.com',
      issuer: chain.intermediate,
      keys: await generateKeyPair('ecdsa-p384'),
      sans: ['www.example.com', 'example.com'],
      extendedKeyUsage: ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'],
      notBefore: issuedDaysAgo(60),
    });
    await scan(id, [old, chain.intermediate, chain.root]);
    expect(await rotations(id)).toEqual({ rows: [], total: 0 });
    // Seen again: still no rotation.
    await scan(id, [old, chain.intermediate, chain.root]);
    expect((await rotations(id)).total).toBe(0);

    const worse = await mintCertificate({
      subject: 'CN=www.example.com',
      issuer: chain.intermediate,
      sans: ['www.example.com'],
      notBefore: issuedDaysAgo(1),
      notAfter: new Date(issuedDaysAgo(1).getTime() + 30 * DAY),
    });
    // Presented without its intermediate: the chain is no longer complete.
    await scan(id, [worse]);
    const { rows, total } = await rotations(id);
    expect(total).toBe(1);
    expect(rows[0]).toMatchObject({ certUse: 'tls', fromFingerprint: sha256(old), toFingerprint: sha256(worse) });
    expect(rows[0].changes).toEqual([
      { field: 'chainComplete', from: true, to: false },
      { field: 'keySize', from: 384, to: 256 },
      { field: 'sans', from: ['example.com', 'www.example.com'], to: ['www.example.com'] },
      { field: 'extendedKeyUsage', from: ['clientAuth', 'serverAuth'], to: ['serverAuth'] },
      { field: 'lifetimeDays', from: 90, to: 30 },
    ]);
    expect(rows[0].regressions).toEqual(['chainComplete', 'keySize', 'sans', 'extendedKeyUsage']);
  });

  it('records each rotation of one post with its own comparison, endpoints rotating alike sharing theirs', async () => {
    const [first, second, third] = [await hostEndpoint(), await hostEndpoint(), await hostEndpoint()];
    const { intermediate: issuer } = await mintChain();
    const named = { subject: 'CN=fleet.example.com', issuer, sans: ['fleet.example.com'] };
    const shared = await mintCertificate({ ...named, notBefore: issuedDaysAgo(60) });
    const own = await mintCertificate({ ...named, keys: await generateKeyPair('ecdsa-p384'), notBefore: issuedDaysAgo(60) });
    const renewal = await mintCertificate({ ...named, notBefore: issuedDaysAgo(1) });
    const post = (presented: [string, MintedCertificate][]) => {
      t.clock.advance(MINUTE);
      return t.http
        .post('/api/v1/scanner/results')
        .set(bearer(scannerToken))
        .send({ results: presented.map(([endpointId, minted]) => hostScanResult(endpointId, [minted], t.clock.now())) })
        .expect(200);
    };
    await post([
      [first, shared],
      [second, shared],
      [third, own],
    ]);
    await post([
      [first, renewal],
      [second, renewal],
      [third, renewal],
    ]);

    const alike = { fromFingerprint: sha256(shared), toFingerprint: sha256(renewal), changes: [], regressions: [] };
    expect((await rotations(first)).rows).toEqual([expect.objectContaining(alike)]);
    expect((await rotations(second)).rows).toEqual([expect.objectContaining(alike)]);
    expect((await rotations(third)).rows).toEqual([
      expect.objectContaining({
        fromFingerprint: sha256(own),
        toFingerprint: sha256(renewal),
        changes: [{ field: 'keySize', from: 384, to: 256 }],
        regressions: ['keySize'],
      }),
    ]);
  });

  it('records uploads too, and a reactivated older certificate as a rollback; newest first in windows', async () => {
    const id = await manualEndpoint();
    const older = await mintCertificate({ subject: 'CN=app.example.com', sans: ['app.example.com'], notBefore: issuedDaysAgo(80) });
    const newer = await mintCertificate({ subject: 'CN=app.example.com', sans: ['app.example.com'], notBefore: issuedDaysAgo(10) });
    await upload(id, older).expect(201);
    await upload(id, newer).expect(201);
    t.clock.advance(MINUTE);
    // Stored already: 200, linked again all the same.
    await upload(id, older).expect(200);

    const { rows, total } = await rotations(id);
    expect(total).toBe(2);
    expect(rows.map((r) => [r.fromFingerprint, r.toFingerprint])).toEqual([
      [sha256(newer), sha256(older)],
      [sha256(older), sha256(newer)],
    ]);
    expect(rows[0].regressions).toEqual(['rollback']);
    expect(rows[1].regressions).toEqual([]);
    // Each is self-signed with another subject key: the issuer DN is the same, so no change is listed.
    expect(rows[1].changes).toEqual([]);

    const second = await t.http.get(`/api/v1/endpoints/${id}/rotations?limit=1&offset=1`).set(bearer(admin)).expect(200);
    expect(second.headers['x-total-count']).toBe('2');
    expect((second.body as Rotation[]).map((r) => r.id)).toEqual([rows[1].id]);
  });

  it('adding a certificate beside the current one (replace=false) is no rotation', async () => {
    const id = await manualEndpoint();
    await upload(id, await mintCertificate({ subject: 'CN=one.example.com' })).expect(201);
    await t.http
      .post(`/api/v1/endpoints/${id}/certificate?replace=false`)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send((await mintCertificate({ subject: 'CN=two.example.com' })).pem)
      .expect(201);
    expect((await rotations(id)).total).toBe(0);
  });

  it('answers 404 for an unknown endpoint, 400 for a bad window, 401 without a token', async () => {
    const missing = await t.http.get('/api/v1/endpoints/00000000-0000-4000-8000-000000000000/rotations').set(bearer(admin)).expect(404);
    expect(missing.text.trim()).toBe('Endpoint not found.');
    const bad = await t.http
      .get(`/api/v1/endpoints/${await manualEndpoint()}/rotations?limit=0`)
      .set(bearer(admin))
      .expect(400);
    expect(bad.headers['content-type']).toMatch(/^text\/plain/);
    await t.http.get(`/api/v1/endpoints/${await manualEndpoint()}/rotations`).expect(401);
  });

  it('sends rotation_regression once per recipient and new certificate while it is current, with its variables', async () => {
    const viewer = await createUser(t, 'viewer', { notify: true });
    const id = await manualEndpoint();
    const older = await mintCertificate({ subject: 'CN=rolled.example.com', sans: ['rolled.example.com'], notBefore: issuedDaysAgo(50) });
    const newer = await mintCertificate({ subject: 'CN=rolled.example.com', sans: ['rolled.example.com'], notBefore: issuedDaysAgo(5) });
    await upload(id, older).expect(201);
    await upload(id, newer).expect(201);
    await upload(id, older).expect(200);
    const runAlerts = async () =>
      (await t.http.post('/api/v1/alerts/run').set(bearer(admin)).expect(200)).body as { alertsSent: number; alreadySent: number };

    const before = smtp.messages.length;
    await runAlerts();
    const mine = smtp.messages.slice(before).filter((m) => m.subject.includes('rolled.example.com') && m.to === viewer.email);
    expect(mine).toHaveLength(1);
    expect(mine[0].subject).toBe('Certificate for rolled.example.com was replaced by a weaker one');
    expect(mine[0].text).toContain('Regressions: rollback');
    expect(mine[0].text).toContain(`Replaced: ${sha256(newer)}`);
    expect(mine[0].text).toContain(`Fingerprint: ${sha256(older)}`);

    const again = smtp.messages.length;
    await runAlerts();
    expect(smtp.messages.slice(again).filter((m) => m.subject.includes('rolled.example.com'))).toEqual([]);

    // Once it is no longer current, nothing is due for it: a later rollback to it is a new delivery only if it regressed again.
    await upload(id, newer).expect(200);
    const after = smtp.messages.length;
    await runAlerts();
    expect(smtp.messages.slice(after).filter((m) => m.subject.includes('rolled.example.com'))).toEqual([]);
  });
});
