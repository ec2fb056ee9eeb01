import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { mintCertificate, mintChain, type MintedCertificate } from '@certkeeper/domain/testing';
import { hostScanResult } from './support/scan-results';
import { bearer, createTestApp, defaultScannerCredentials, login, type TestApp } from './support/test-app';
import { createHash } from 'node:crypto';

const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const b64 = (minted: MintedCertificate) => Buffer.from(minted.der).toString('base64');

interface Outcome {
  resultId: string;
  status: string;
  code?: number;
  error?: string;
}

describe('scanner protocol', () => {
  let t: TestApp;
  let admin: string;
  let sql: DataSource;
  let defaultScanner: { id: string; token: string };
  let other: { id: string; token: string };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await login(t);
    sql = t.app.get(DataSource);
    defaultScanner = await defaultScannerCredentials(t, admin);
    other = (await t.http.post('/api/v1/scanners').set(bearer(admin)).send({ name: 'segment-b', scanConcurrency: 12 }).expect(201))
      .body as { id: string; token: string };
  });
  afterAll(() => t.close());

  const endpoint = async (body: Record<string, unknown>) =>
    ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
  const post = async (token: string, results: unknown[]) =>
    ((await t.http.post('/api/v1/scanner/results').set(bearer(token)).send({ results }).expect(200)).body as { results: Outcome[] })
      .results;
  const hostResult = (endpointId: string, chain: MintedCertificate[], overrides: Record<string, unknown> = {}) =>
    hostScanResult(endpointId, chain, t.clock.now(), overrides);
  const detail = async (id: string) =>
    (await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as {
      currentCertificates: { fingerprint: string; certUse: string }[];
      errorSince: string | null;
      lastScanError: string | null;
      lastScannedAt: string | null;
      chainComplete: boolean | null;
      resolvedIp: string | null;
      samlMetadata: Record<string, unknown> | null;
    };

  it('serves the calling scanner its own configuration', async () => {
    const config = (await t.http.get('/api/v1/scanner/config').set(bearer(other.token)).expect(200)).body as Record<string, unknown>;
    expect(config).toEqual({
      id: other.id,
      name: 'segment-b',
      isDefault: false,
      scanCronExpression: '0 * * * *',
      scanConcurrency: 12,
      discoveryNetworks: [],
    });
  });

  it('assigns pinned endpoints, and unpinned ones only to the default; never manual, disabled or exempt ones', async () => {
    const pinned = await endpoint({ name: 'pinned', dnsName: 'pinned.example.com', scannerId: other.id });
    const unpinned = await endpoint({ name: 'unpinned', dnsName: 'unpinned.example.com' });
    const saml = await endpoint({ name: 'idp', type: 'saml', metadataUrl: 'https://idp.example.com/md' });
    await endpoint({ name: 'manual', type: 'manual' });
    await endpoint({ name: 'disabled', dnsName: 'disabled.example.com', enabled: false });
    await endpoint({ name: 'exempt', dnsName: 'exempt.example.com', scanExempt: true });
    // Orphaned by a deleted scanner: the default takes it.
    await sql.query('UPDATE endpoints SET scanner_id = NULL WHERE id = $1', [unpinned]);

    const workOf = async (token: string) =>
      ((await t.http.get('/api/v1/scanner/work').set(bearer(token)).expect(200)).body as { items: { endpointId: string }[] }).items.map(
        (i) => i.endpointId,
      );
    expect(await workOf(other.token)).toEqual([pinned]);
    const defaultWork = await workOf(defaultScanner.token);
    expect(defaultWork).toEqual(expect.arrayContaining([unpinned, saml]));
    expect(defaultWork).not.toContain(pinned);
    const items = (await t.http.get('/api/v1/scanner/work').set(bearer(defaultScanner.token)).expect(200)).body as {
      items: Record<string, unknown>[];
    };
    expect(items.items.find((i) => i.endpointId === unpinned)).toEqual({
      endpointId: unpinned,
      type: 'host',
      dnsName: 'unpinned.example.com',
      port: 443,
      ipAddress: null,
      tlsProfileDue: true,
      starttls: null,
    });
    expect(items.items.find((i) => i.endpointId === saml)).toEqual({
      endpointId: saml,
      type: 'saml',
      metadataUrl: 'https://idp.example.com/md',
    });
  });

  it('refuses user tokens (403) and a regenerated token (401)', async () => {
    await t.http.get('/api/v1/scanner/work').set(bearer(admin)).expect(403);
    const temporary = (await t.http.post('/api/v1/scanners').set(bearer(admin)).send({ name: 'rotating-agent' }).expect(201)).body as {
      id: string;
      token: string;
    };
    await t.http.get('/api/v1/scanner/work').set(bearer(temporary.token)).expect(200);
    await t.http.post(`/api/v1/scanners/${temporary.id}/regenerate-token`).set(bearer(admin)).expect(200);
    await t.http.get('/api/v1/scanner/work').set(bearer(temporary.token)).expect(401);
    await t.http.post('/api/v1/scanner/results').set(bearer(temporary.token)).send({ results: [] }).expect(401);
  });

  it("refuses, per item, results for another scanner's endpoint (403), unknown endpoints (404) and malformed results (400), storing nothing", async () => {
    const theirs = await endpoint({ name: 'theirs', dnsName: 'theirs.example.com', scannerId: other.id });
    const mine = await endpoint({ name: 'mine', dnsName: 'mine.example.com' });
    const cert = await mintCertificate({ subject: 'CN=theirs.example.com' });
    const before = await sql.query<{ n: number }[]>(
      'SELECT (SELECT count(*) FROM scan_history)::int + (SELECT count(*) FROM certificates)::int AS n',
    );
    const outcomes = await post(defaultScanner.token, [
      hostResult(theirs, [cert]),
      hostResult(randomUUID(), [cert]),
      { ...hostResult(mine, [cert]), tlsVersion: 'TLSv9' },
      { ...hostResult(mine, [cert]), resultId: 'not-a-uuid' },
      { ...hostResult(mine, []), success: true },
      { ...hostResult(mine, [cert]), type: 'saml' },
      'garbage',
      hostResult(mine, [cert], { scannedAt: new Date(t.clock.now().getTime() + 10 * 60_000).toISOString() }),
    ]);
    expect(outcomes.map((o) => [o.status, o.code])).toEqual([
      ['rejected', 403],
      ['rejected', 404],
      ['rejected', 400],
      ['rejected', 400],
      ['rejected', 400],
      ['rejected', 400],
      ['rejected', 400],
      ['rejected', 400],
    ]);
    expect(outcomes[0].error).toContain('not assigned to this scanner');
    expect(outcomes.slice(2).map((o) => o.error)).toEqual([
      'tlsVersion must be one of SSLv3, TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3 or null',
      'resultId must be a UUID',
      'a successful host result must carry the presented chain',
      // The type decides which rules apply: a host result posted as saml has no document.
      expect.stringContaining('document must be a string or null'),
      'a result must be a JSON object',
      'scannedAt is in the future',
    ]);
    expect(await sql.query('SELECT (SELECT count(*) FROM scan_history)::int + (SELECT count(*) FROM certificates)::int AS n')).toEqual(
      before,
    );
    const refusals = await Promise.all([
      t.http.post('/api/v1/scanner/results').set(bearer(defaultScanner.token)).send({ results: 'x' }),
      t.http
        .post('/api/v1/scanner/results')
        .set(bearer(defaultScanner.token))
        .send({ results: Array.from({ length: 1001 }, () => 'garbage') }),
    ]);
    expect(refusals.map((r) => [r.status, r.text])).toEqual([
      [400, 'The body must be { "results": [ ... ] }.\n'],
      [400, 'At most 1000 results per request.\n'],
    ]);
  });

  describe('a host run', () => {
    it('links the leaf, stores the chain, records history and is idempotent', async () => {
      const id = await endpoint({ name: 'chained', dnsName: 'leaf.example.com' });
      const chain = await mintChain();
      const result = hostResult(id, [chain.leaf, chain.intermediate, chain.root]);
      expect((await post(defaultScanner.token, [result]))[0].status).toBe('accepted');
      expect((await post(defaultScanner.token, [result]))[0].status).toBe('duplicate');

      const state = await detail(id);
      expect(state.currentCertificates.map((c) => [c.certUse, c.fingerprint])).toEqual([['tls', sha256(chain.leaf.der)]]);
      expect(state).toMatchObject({ errorSince: null, lastScanError: null, chainComplete: true, resolvedIp: '192.0.2.10' });
      const history = (await t.http.get(`/api/v1/endpoints/${id}/history`).set(bearer(admin)).expect(200)).body as Record<
        string,
        unknown
      >[];
      expect(history).toEqual([
        expect.objectContaining({
          success: true,
          fingerprint: sha256(chain.leaf.der),
          tlsVersion: 'TLSv1.3',
          resolvedIp: '192.0.2.10',
          scannerId: defaultScanner.id,
        }),
      ]);
      // The intermediate is stored, not linked.
      await t.http
        .get(`/api/v1/certificates/${sha256(chain.intermediate.der)}`)
        .set(bearer(admin))
        .expect(200);
      const links = await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM endpoint_certificates WHERE endpoint_id = $1', [id]);
      expect(links[0].n).toBe(1);
    });

    it('records an incomplete chain', async () => {
      const id = await endpoint({ name: 'no-intermediate', dnsName: 'leaf.example.com', port: 8443 });
      const chain = await mintChain();
      await post(defaultScanner.token, [hostResult(id, [chain.leaf])]);
      expect((await detail(id)).chainComplete).toBe(false);
    });

    it('sets errorSince on the first failure, keeps it, and clears it on success', async () => {
      const id = await endpoint({ name: 'flaky', dnsName: 'flaky.example.com' });
      const cert = await mintCertificate({ subject: 'CN=flaky.example.com' });
      const failure = (at: Date) =>
        hostResult(id, [], {
          success: false,
          error: 'connection refused',
          scannedAt: at.toISOString(),
          resolvedIp: null,
          tlsVersion: null,
          cipherSuite: null,
        });
      const first = new Date(t.clock.now().getTime() - 3 * 3600_000);
      const second = new Date(t.clock.now().getTime() - 2 * 3600_000);
      await post(defaultScanner.token, [failure(first)]);
      expect(await detail(id)).toMatchObject({ errorSince: first.toISOString(), lastScanError: 'connection refused' });
      await post(defaultScanner.token, [failure(second)]);
      expect(await detail(id)).toMatchObject({ errorSince: first.toISOString(), lastScannedAt: second.toISOString() });
      await post(defaultScanner.token, [hostResult(id, [cert])]);
      expect(await detail(id)).toMatchObject({ errorSince: null, lastScanError: null });
    });

    it('rotates, rotates back (reactivating, not duplicating), and ignores a late result', async () => {
      const id = await endpoint({ name: 'rotating', dnsName: 'rotating.example.com' });
      const [a, b] = await Promise.all([mintCertificate({ subject: 'CN=a.rotating' }), mintCertificate({ subject: 'CN=b.rotating' })]);
      const at = (minutesAgo: number) => new Date(t.clock.now().getTime() - minutesAgo * 60_000).toISOString();
      await post(defaultScanner.token, [hostResult(id, [a], { scannedAt: at(30) })]);
      await post(defaultScanner.token, [hostResult(id, [b], { scannedAt: at(20) })]);
      expect((await detail(id)).currentCertificates.map((c) => c.fingerprint)).toEqual([sha256(b.der)]);
      await post(defaultScanner.token, [hostResult(id, [a], { scannedAt: at(10) })]);
      expect((await detail(id)).currentCertificates.map((c) => c.fingerprint)).toEqual([sha256(a.der)]);
      const links = await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM endpoint_certificates WHERE endpoint_id = $1', [id]);
      expect(links[0].n).toBe(2);
      // A buffered result from before the last run arrives late: history only.
      await post(defaultScanner.token, [hostResult(id, [b], { scannedAt: at(25) })]);
      expect((await detail(id)).currentCertificates.map((c) => c.fingerprint)).toEqual([sha256(a.der)]);
    });

    it('stores the TLS profile, with a history row only when it changes', async () => {
      const id = await endpoint({ name: 'profiled', dnsName: 'profiled.example.com' });
      const cert = await mintCertificate({ subject: 'CN=profiled.example.com' });
      const profile = (suites: string[]) => ({
        versions: [
          { version: 'TLSv1.2', supported: true, cipherSuites: suites },
          { version: 'TLSv1.3', supported: true, cipherSuites: ['TLS_AES_128_GCM_SHA256'] },
        ],
        negotiatedVersion: 'TLSv1.3',
        negotiatedCipherSuite: 'TLS_AES_128_GCM_SHA256',
      });
      await post(defaultScanner.token, [hostResult(id, [cert], { tlsProfile: profile(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']) })]);
      await post(defaultScanner.token, [hostResult(id, [cert], { tlsProfile: profile(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']) })]);
      await post(defaultScanner.token, [hostResult(id, [cert], { tlsProfile: profile(['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384']) })]);
      const stored = (await t.http.get(`/api/v1/endpoints/${id}/tls-profile`).set(bearer(admin)).expect(200)).body as {
        versions: { cipherSuites: string[] }[];
      };
      expect(stored.versions[0].cipherSuites).toEqual(['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384']);
      const history = await sql.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM endpoint_tls_profile_history WHERE endpoint_id = $1',
        [id],
      );
      expect(history[0].n).toBe(2);
      const work = (await t.http.get('/api/v1/scanner/work').set(bearer(defaultScanner.token)).expect(200)).body as {
        items: { endpointId: string; tlsProfileDue?: boolean }[];
      };
      expect(work.items.find((i) => i.endpointId === id)?.tlsProfileDue).toBe(false);
    });

    it('refuses a chain that does not parse, recording the failure', async () => {
      const id = await endpoint({ name: 'lying-agent', dnsName: 'lying.example.com' });
      const outcome = await post(defaultScanner.token, [
        { ...hostResult(id, []), chain: ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'] },
      ]);
      expect(outcome[0].status).toBe('accepted');
      expect(await detail(id)).toMatchObject({
        lastScanError: 'the reported certificate chain could not be parsed',
        currentCertificates: [],
      });
    });
  });

  describe('a SAML run', () => {
    const metadata = (
      entities: { entityId: string; signing: MintedCertificate[]; encryption?: MintedCertificate[]; unspecified?: MintedCertificate[] }[],
    ) => {
      const keys = (certs: MintedCertificate[] = [], use?: string) =>
        certs
          .map(
            (c) =>
              `<md:KeyDescriptor${use ? ` use="${use}"` : ''}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${b64(c)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
          )
          .join('');
      const entity = (e: (typeof entities)[number]) => `
        <md:EntityDescriptor entityID="${e.entityId}">
          <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
            ${keys(e.signing, 'signing')}${keys(e.encryption, 'encryption')}${keys(e.unspecified)}
            <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${e.entityId}/sso"/>
          </md:IDPSSODescriptor>
          <md:ContactPerson contactType="technical"><md:EmailAddress>mailto:ops@example.com</md:EmailAddress></md:ContactPerson>
        </md:EntityDescriptor>`;
      const ns = 'xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#"';
      return entities.length === 1
        ? entity(entities[0]).replace('<md:EntityDescriptor ', `<md:EntityDescriptor ${ns} `)
        : `<md:EntitiesDescriptor ${ns} Name="federation">${entities.map(entity).join('')}</md:EntitiesDescriptor>`;
    };
    const samlResult = (endpointId: string, document: string, minutesAgo = 0) => ({
      resultId: randomUUID(),
      endpointId,
      type: 'saml',
      scannedAt: new Date(t.clock.now().getTime() - minutesAgo * 60_000).toISOString(),
      success: true,
      error: null,
      finalUrl: 'https://idp.example.com/md',
      document,
      digest: createHash('sha256').update(document).digest('hex'),
    });
    const current = async (id: string) => (await detail(id)).currentCertificates.map((c) => `${c.certUse}:${c.fingerprint}`).sort();

    it('links every certificate by role with set semantics through a key rollover, and serves the payload', async () => {
      const id = await endpoint({ name: 'idp-rollover', type: 'saml', metadataUrl: 'https://idp.example.com/rollover' });
      const [oldKey, newKey, both] = await Promise.all([
        mintCertificate({ subject: 'CN=old' }),
        mintCertificate({ subject: 'CN=new' }),
        mintCertificate({ subject: 'CN=both' }),
      ]);
      const single = metadata([{ entityId: 'https://idp.example.com', signing: [oldKey], unspecified: [both] }]);
      expect((await post(defaultScanner.token, [samlResult(id, single, 30)]))[0].status).toBe('accepted');
      expect(await current(id)).toEqual(
        [`encryption:${sha256(both.der)}`, `signing:${sha256(both.der)}`, `signing:${sha256(oldKey.der)}`].sort(),
      );

      const rollover = metadata([{ entityId: 'https://idp.example.com', signing: [oldKey, newKey], unspecified: [both] }]);
      await post(defaultScanner.token, [samlResult(id, rollover, 20)]);
      expect(await current(id)).toContain(`signing:${sha256(newKey.der)}`);
      expect(await current(id)).toContain(`signing:${sha256(oldKey.der)}`);

      const retired = metadata([{ entityId: 'https://idp.example.com', signing: [newKey] }]);
      await post(defaultScanner.token, [samlResult(id, retired, 10)]);
      expect(await current(id)).toEqual([`signing:${sha256(newKey.der)}`]);
      const historical = (
        await t.http
          .get(`/api/v1/certificates/${sha256(oldKey.der)}/endpoints/historical`)
          .set(bearer(admin))
          .expect(200)
      ).body as unknown[];
      expect(historical).toHaveLength(1);

      const state = await detail(id);
      expect(state.samlMetadata).toMatchObject({
        entityId: 'https://idp.example.com',
        roles: ['idp'],
        singleSignOnServices: [{ binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', location: 'https://idp.example.com/sso' }],
        digest: createHash('sha256').update(retired).digest('hex'),
      });
      const documents = await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM saml_documents');
      expect(documents[0].n).toBeGreaterThanOrEqual(3);
      await post(defaultScanner.token, [samlResult(id, retired, 5)]);
      expect((await sql.query<{ n: number }[]>('SELECT count(*)::int AS n FROM saml_documents'))[0].n).toBe(documents[0].n);
    });

    it('links every entity of a federation aggregate and reports the entity count', async () => {
      const id = await endpoint({ name: 'federation', type: 'saml', metadataUrl: 'https://fed.example.org/md' });
      const certs = await Promise.all([1, 2, 3].map((n) => mintCertificate({ subject: `CN=entity-${n}` })));
      const aggregate = metadata(certs.map((c, n) => ({ entityId: `https://entity-${n}.example.org`, signing: [c] })));
      await post(defaultScanner.token, [samlResult(id, aggregate)]);
      expect(await current(id)).toHaveLength(3);
      expect((await detail(id)).samlMetadata).toMatchObject({ entityId: 'https://entity-0.example.org', entityCount: 3 });
    });

    it('records an unusable document as a failure, and a refused DOCTYPE as one too', async () => {
      const id = await endpoint({ name: 'broken-idp', type: 'saml', metadataUrl: 'https://broken.example.com/md' });
      await post(defaultScanner.token, [samlResult(id, '<html>not metadata</html>')]);
      expect((await detail(id)).lastScanError).toContain('could not be used');
      const xxe =
        '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&xxe;"/>';
      await post(defaultScanner.token, [samlResult(id, xxe)]);
      const state = await detail(id);
      expect(state.lastScanError).toContain('could not be used');
      expect(JSON.stringify(state)).not.toContain('root:');
    });

    it('records where the document came from in the history: an IP address, null when absent (older agents), nothing else', async () => {
      const id = await endpoint({ name: 'idp-address', type: 'saml', metadataUrl: 'https://idp.example.com/address' });
      const document = metadata([{ entityId: 'https://idp.example.com', signing: [await mintCertificate({ subject: 'CN=address' })] }]);
      const outcomes = await post(defaultScanner.token, [
        { ...samlResult(id, document, 20), resolvedIp: '2001:db8::10' },
        samlResult(id, document, 10),
        { ...samlResult(id, document, 5), resolvedIp: 'idp.example.com' },
      ]);
      expect(outcomes.map((o) => [o.status, o.code])).toEqual([
        ['accepted', undefined],
        ['accepted', undefined],
        ['rejected', 400],
      ]);
      expect(outcomes[2].error).toContain('resolvedIp must be an IP address or null');
      const history = (await t.http.get(`/api/v1/endpoints/${id}/history`).set(bearer(admin)).expect(200)).body as {
        resolvedIp: string | null;
      }[];
      expect(history.map((h) => h.resolvedIp)).toEqual([null, '2001:db8::10']);
    });
  });
});
