import { generateKeyPair, mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { hostScanResult } from './support/scan-results';
import { mailSettingsFor, startSmtpServer, type TestSmtpServer } from './support/smtp';
import { bearer, createTestApp, createUser, defaultScannerCredentials, login, type TestApp } from './support/test-app';
import { DAY, HOUR, MINUTE } from './support/fake-clock';

const sha256 = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

interface CurrentCertificate {
  fingerprint: string;
  certUse: string;
  supersededBy: { fingerprint: string; notBefore: string; firstSeenAt: string } | null;
}

/**
 * Renewed, not deployed (docs/api-contract.md section 16): a current certificate of a host
 * endpoint superseded by a stored renewal, on every list that shows it, the dashboard's count, the
 * endpoint list's filter, and the renewal_not_deployed event.
 */
describe('renewals never deployed', () => {
  let t: TestApp;
  let admin: string;
  let scannerToken: string;
  let smtp: TestSmtpServer;
  let ca: MintedCertificate;
  let otherCa: MintedCertificate;
  let names = 0;
  // Every certificate of a case is issued relative to this instant, a whole second.
  const base = new Date(Math.floor((Date.now() - 20 * DAY) / 1000) * 1000);
  const at = (offset: number) => new Date(base.getTime() + offset);

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    scannerToken = (await defaultScannerCredentials(t, admin)).token;
    smtp = await startSmtpServer();
    const mail = mailSettingsFor(smtp);
    await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mail).expect(200);
    ca = await mintCertificate({ subject: 'CN=Issuing CA 1, O=Example Trust', ca: true });
    otherCa = await mintCertificate({ subject: 'CN=Issuing CA 2, O=Another Trust', ca: true });
  });
  // Renewals are first stored at the database's clock: each case starts with the app's clock beside it.
  beforeEach(async () => {
    t.clock.set(new Date());
    admin = await login(t);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const leaf = (
    host: string,
    options: {
      notBefore: Date;
      sans?: string[];
      issuer?: MintedCertificate;
      keys?: Awaited<ReturnType<typeof generateKeyPair>>;
      notAfter?: Date;
    },
  ) => mintCertificate({ subject: `CN=${host}`, sans: options.sans ?? [host], issuer: options.issuer ?? ca, ...options });
  /** A host endpoint serving `deployed` as its scans see it. */
  const serving = async (deployed: MintedCertificate) => {
    names += 1;
    const body = { name: `served-${names}`, dnsName: `served-${names}.example.com` };
    const id = ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
    await t.http
      .post('/api/v1/scanner/results')
      .set(bearer(scannerToken))
      .send({ results: [hostScanResult(id, [deployed, ca], t.clock.now())] })
      .expect(200);
    return id;
  };
  const store = async (renewal: MintedCertificate) => {
    await t.http
      .post('/api/v1/certificates')
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(renewal.pem)
      .expect(201);
  };
  const current = async (id: string) =>
    ((await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as { currentCertificates: CurrentCertificate[] })
      .currentCertificates;
  const supersededOf = async (id: string) => (await current(id)).map((c) => c.supersededBy?.fingerprint ?? null);
  /** The hourly pass that brings the renewal each link keeps up to date with the clock. */
  const hourlyPass = async () => {
    await t.http.post('/api/v1/maintenance/tasks/check-revocation/run').set(bearer(admin)).expect(200);
  };
  /** Past the default 24 hours every renewal stored so far must wait (signed in again: a token lasts 12 hours), and the hourly pass. */
  const waitPastTheDelay = async () => {
    t.clock.advance(24 * HOUR + MINUTE);
    admin = await login(t);
    await hourlyPass();
  };
  /** A later scan of endpoint `id` presenting `leafCertificate`. */
  const present = async (id: string, leafCertificate: MintedCertificate) => {
    t.clock.advance(MINUTE);
    await t.http
      .post('/api/v1/scanner/results')
      .set(bearer(scannerToken))
      .send({ results: [hostScanResult(id, [leafCertificate, ca], t.clock.now())] })
      .expect(200);
  };
  /** The renewal the link of `certificate` on endpoint `id` keeps, current or not. */
  const kept = async (id: string, certificate: MintedCertificate) => {
    const [link] = await t.app
      .get(DataSource)
      .query<{ supersededBy: string | null }[]>(
        'SELECT superseded_by AS "supersededBy" FROM endpoint_certificates WHERE endpoint_id = $1 AND fingerprint = $2',
        [id, sha256(certificate)],
      );
    return link.supersededBy;
  };
  const setWait = async (supersededAfterHours: number) => {
    await t.http.put('/api/v1/settings/alert-policy').set(bearer(admin)).send({ supersededAfterHours }).expect(200);
  };

  it('names the renewal with the latest notBefore on the endpoint, the active and expiring lists, once it waited supersededAfterHours', async () => {
    const deployed = await leaf('shop.example.com', { notBefore: at(0), sans: ['shop.example.com', 'www.shop.example.com'] });
    const id = await serving(deployed);
    const renewal = await leaf('shop.example.com', {
      notBefore: at(2 * HOUR),
      sans: ['www.shop.example.com', 'shop.example.com', 'api.shop.example.com'],
    });
    const later = await leaf('shop.example.com', { notBefore: at(3 * DAY), sans: ['shop.example.com', 'www.shop.example.com'] });
    await store(renewal);
    await store(later);
    expect(await supersededOf(id)).toEqual([null]);

    await waitPastTheDelay();
    const [certificate] = await current(id);
    expect(certificate.fingerprint).toBe(sha256(deployed));
    expect(certificate.supersededBy).toEqual({
      fingerprint: sha256(later),
      notBefore: at(3 * DAY).toISOString(),
      firstSeenAt: expect.any(String),
    });
    const firstSeen = Date.parse(certificate.supersededBy!.firstSeenAt);
    expect(firstSeen).toBeLessThanOrEqual(Date.now());
    expect(firstSeen).toBeGreaterThan(Date.now() - 10 * MINUTE);

    for (const list of ['active', 'expiring?days=3650']) {
      const rows = (await t.http.get(`/api/v1/certificates/${list}`).set(bearer(admin)).expect(200)).body as (CurrentCertificate & {
        endpointId: string;
      })[];
      expect(rows.find((row) => row.endpointId === id)!.supersededBy).toEqual(certificate.supersededBy);
    }
  });

  it('each link keeps its renewal as a renewal stored and a changed wait make it at once, the clock at the hourly pass', async () => {
    const deployed = await leaf('kept.example.com', { notBefore: at(0) });
    const id = await serving(deployed);
    const first = await leaf('kept.example.com', { notBefore: at(2 * DAY) });
    await store(first);
    expect(await supersededOf(id)).toEqual([null]);
    // Renewals are stored at the database's clock: the app's runs ahead of it, so a wait of 0 has passed.
    t.clock.advance(5 * MINUTE);
    await setWait(0);
    expect(await supersededOf(id)).toEqual([sha256(first)]);
    const second = await leaf('kept.example.com', { notBefore: at(4 * DAY) });
    await store(second);
    expect(await supersededOf(id)).toEqual([sha256(second)]);

    await setWait(24);
    expect(await supersededOf(id)).toEqual([null]);
    t.clock.advance(24 * HOUR);
    admin = await login(t);
    // The lists read what the link keeps: the clock alone changes nothing until the hourly pass.
    expect(await supersededOf(id)).toEqual([null]);
    await hourlyPass();
    expect(await supersededOf(id)).toEqual([sha256(second)]);
  });

  it('each link keeps its renewal as a renewal deleted, a certificate leaving and the renewal deployed change it', async () => {
    const deployed = await leaf('moves.example.com', { notBefore: at(0) });
    const id = await serving(deployed);
    const first = await leaf('moves.example.com', { notBefore: at(2 * DAY) });
    const second = await leaf('moves.example.com', { notBefore: at(4 * DAY) });
    await store(first);
    await store(second);
    await waitPastTheDelay();
    expect(await supersededOf(id)).toEqual([sha256(second)]);

    await t.http
      .delete(`/api/v1/certificates/${sha256(second)}`)
      .set(bearer(admin))
      .expect(204);
    expect(await supersededOf(id)).toEqual([sha256(first)]);

    // Another certificate, no renewal of it, replaces it: the link that left keeps nothing.
    await present(id, await leaf('moves.example.com', { notBefore: at(3 * HOUR), issuer: otherCa }));
    expect(await supersededOf(id)).toEqual([null]);
    expect(await kept(id, deployed)).toBeNull();
    // Back again, it is superseded again at once.
    await present(id, deployed);
    expect(await supersededOf(id)).toEqual([sha256(first)]);

    await present(id, first);
    expect(await current(id)).toEqual([expect.objectContaining({ fingerprint: sha256(first), supersededBy: null })]);
    expect(await kept(id, deployed)).toBeNull();
    const listed = (await t.http.get('/api/v1/endpoints?superseded=true&limit=500').set(bearer(admin)).expect(200)).body as {
      items: { id: string }[];
    };
    expect(listed.items.map((e) => e.id)).not.toContain(id);
  });

  it('a renewal stored before the certificate it supersedes was first seen counts the same', async () => {
    const renewal = await leaf('early.example.com', { notBefore: at(6 * DAY) });
    await store(renewal);
    const id = await serving(await leaf('early.example.com', { notBefore: at(0) }));
    await waitPastTheDelay();
    expect(await supersededOf(id)).toEqual([sha256(renewal)]);
  });

  it.each([
    ['issued within the hour', { notBefore: 30 * MINUTE }],
    ['expired', { notBefore: 2 * HOUR, notAfter: 3 * HOUR }],
    ['missing one of the names', { notBefore: 2 * DAY, sans: ['only.example.com'] }],
    ['under another issuer organization', { notBefore: 2 * DAY, otherIssuer: true }],
    ['with another key algorithm', { notBefore: 2 * DAY, rsa: true }],
  ])(
    'a renewal %s does not supersede',
    async (_label, change: { notBefore: number; notAfter?: number; sans?: string[]; otherIssuer?: boolean; rsa?: boolean }) => {
      names += 1;
      const host = `case-${names}.example.com`;
      const id = await serving(await leaf(host, { notBefore: at(0), sans: [host, 'only.example.com'] }));
      await store(
        await leaf(host, {
          notBefore: at(change.notBefore),
          notAfter: change.notAfter === undefined ? undefined : at(change.notAfter),
          sans: change.sans ?? [host, 'only.example.com'],
          issuer: change.otherIssuer ? otherCa : ca,
          keys: change.rsa ? await generateKeyPair('rsa-2048') : undefined,
        }),
      );
      await waitPastTheDelay();
      expect(await supersededOf(id)).toEqual([null]);
    },
  );

  it('a certificate without DNS names is never superseded, nor a manual endpoint’s', async () => {
    const byAddress = await leaf('192.0.2.7', { notBefore: at(0), sans: ['192.0.2.7'] });
    const id = await serving(byAddress);
    await store(await leaf('192.0.2.7', { notBefore: at(2 * DAY), sans: ['192.0.2.7'] }));
    const manual = (
      (await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name: 'manual-renewed', type: 'manual' }).expect(201)).body as {
        id: string;
      }
    ).id;
    const uploaded = await leaf('manual.example.com', { notBefore: at(0) });
    await t.http
      .post(`/api/v1/endpoints/${manual}/certificate`)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(uploaded.pem)
      .expect(201);
    await store(await leaf('manual.example.com', { notBefore: at(2 * DAY) }));
    await waitPastTheDelay();
    expect(await supersededOf(id)).toEqual([null]);
    expect(await supersededOf(manual)).toEqual([null]);
  });

  it('a dual RSA and ECDSA deployment is not superseded by its own other half', async () => {
    const rsa = await leaf('dual.example.com', { notBefore: at(0), keys: await generateKeyPair('rsa-2048') });
    const ecdsa = await leaf('dual.example.com', { notBefore: at(5 * DAY) });
    const id = await serving(rsa);
    await t.http
      .post(`/api/v1/endpoints/${id}/certificate?certUse=tls&replace=false`)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(ecdsa.pem)
      .expect(201);
    await waitPastTheDelay();
    const both = await current(id);
    expect(both.map((c) => c.fingerprint).sort()).toEqual([sha256(rsa), sha256(ecdsa)].sort());
    expect(both.map((c) => c.supersededBy)).toEqual([null, null]);
  });

  it('counts such endpoints on the dashboard, filters the endpoint list by them, and sends renewal_not_deployed once', async () => {
    const user = await createUser(t, 'viewer', { notify: true });
    const deployed = await leaf('billing.example.com', { notBefore: at(0) });
    const id = await serving(deployed);
    const renewal = await leaf('billing.example.com', { notBefore: at(4 * DAY) });
    await store(renewal);
    const counted = async () =>
      ((await t.http.get('/api/v1/dashboard?scope=all').set(bearer(admin)).expect(200)).body as { counts: { renewalNotDeployed: number } })
        .counts.renewalNotDeployed;
    const listed = async (superseded: boolean) =>
      (await t.http.get(`/api/v1/endpoints?superseded=${superseded}&limit=500`).set(bearer(admin)).expect(200)).body as {
        items: { id: string; renewalNotDeployed: boolean }[];
        totalCount: number;
      };
    // The finding renewal_not_deployed (docs/api-contract.md section 18), after the hourly findings pass.
    const findingsOf = async () => {
      await t.http.post('/api/v1/maintenance/tasks/check-revocation/run').set(bearer(admin)).expect(200);
      const endpoint = await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200);
      return (endpoint.body as { findings: { code: string }[] }).findings.map((finding) => finding.code);
    };
    const before = await listed(true);
    expect(before.items.map((e) => e.id)).not.toContain(id);
    expect(await counted()).toBe(before.totalCount);
    expect(await findingsOf()).not.toContain('renewal_not_deployed');

    await waitPastTheDelay();
    expect(await findingsOf()).toContain('renewal_not_deployed');
    const superseded = await listed(true);
    expect(superseded.items.map((e) => e.id)).toContain(id);
    expect(superseded.items.every((e) => e.renewalNotDeployed)).toBe(true);
    // The export has the rows of the filter, without the list's flag.
    const csv = await t.http.get('/api/v1/endpoints?superseded=true&format=csv').set(bearer(admin)).expect(200);
    const [header, ...lines] = csv.text.trim().split('\r\n');
    expect(header.split(',')).not.toContain('renewalNotDeployed');
    expect(lines).toHaveLength(superseded.totalCount);
    // Every endpoint once, whatever number of its certificates are superseded.
    expect(await counted()).toBe(superseded.totalCount);
    const others = await listed(false);
    expect(others.items.map((e) => e.id)).not.toContain(id);
    expect(others.items.some((e) => e.renewalNotDeployed)).toBe(false);
    const bad = await t.http.get('/api/v1/endpoints?superseded=maybe').set(bearer(admin)).expect(400);
    expect(bad.text).toContain('superseded must be true or false');

    const sent = smtp.messages.length;
    await t.http.post('/api/v1/alerts/run').set(bearer(admin)).expect(200);
    const mine = smtp.messages.slice(sent).filter((m) => m.to === user.email && m.subject.includes('billing.example.com'));
    expect(mine).toHaveLength(1);
    expect(mine[0].subject).toBe('Certificate for billing.example.com was renewed but the renewal is not deployed');
    expect(mine[0].text).toContain(`Renewal: ${sha256(renewal)}`);
    expect(mine[0].text).toContain(`Fingerprint: ${sha256(deployed)}`);
    expect(mine[0].text).toContain(
      `Renewal issued: ${at(4 * DAY)
        .toISOString()
        .slice(0, 16)
        .replace('T', ' ')} UTC`,
    );

    const again = smtp.messages.length;
    await t.http.post('/api/v1/alerts/run').set(bearer(admin)).expect(200);
    expect(smtp.messages.slice(again).filter((m) => m.subject.includes('billing.example.com'))).toEqual([]);
  });

  // Last: pruning takes every unreferenced certificate the cases before stored.
  it('a renewal pruned leaves its link the next renewal still stored', async () => {
    const deployed = await leaf('pruned.example.com', { notBefore: at(0) });
    const id = await serving(deployed);
    // Served elsewhere, so pruning keeps it.
    const served = await leaf('pruned.example.com', { notBefore: at(2 * DAY) });
    await serving(served);
    const unreferenced = await leaf('pruned.example.com', { notBefore: at(4 * DAY) });
    await store(unreferenced);
    await waitPastTheDelay();
    expect(await supersededOf(id)).toEqual([sha256(unreferenced)]);

    await t.http.post('/api/v1/maintenance/tasks/prune-certificates/run').set(bearer(admin)).expect(200);
    await t.http
      .get(`/api/v1/certificates/${sha256(unreferenced)}`)
      .set(bearer(admin))
      .expect(404);
    expect(await supersededOf(id)).toEqual([sha256(served)]);
  });
});
