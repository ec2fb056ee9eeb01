import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { hostScanResult } from '../../api/test/support/scan-results';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createScanner, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/*
 * The endpoint screens in headless Chromium against the real API: an admin adds a manual endpoint,
 * uploads certificates (pasted PEM, DER file, a refused body), tags, edits and deletes it; a host
 * endpoint shows its scanned certificates, earlier ones, TLS profile and scans; a viewer gets no
 * edit control; the list downloads the filtered endpoints as CSV. Every check of what the UI did
 * reads it back through the API.
 */
const DAY = 24 * 3600_000;
const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
/** Whole seconds: certificates carry no milliseconds. */
const inDays = (days: number) => new Date(Math.floor((Date.now() + days * DAY) / 1000) * 1000);

interface EndpointBody {
  id: string;
  name: string;
  scannerId: string | null;
  tags: string[];
  currentCertificates: { fingerprint: string; commonName: string | null; certUse: string }[];
}

describeWithChromium('the endpoint screens in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  let admin: string;
  beforeEach(async () => {
    ({ app: t, page } = session);
    admin = await login(t);
  });

  const getEndpoint = async (id: string) =>
    (await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as EndpointBody;
  const createEndpoint = async (body: Record<string, unknown>) =>
    (await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as EndpointBody;
  const signInAsAdmin = async () => {
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  };
  const section = (heading: string) => page.locator('section').filter({ has: page.getByRole('heading', { name: heading, exact: true }) });

  it('lets an admin add a manual endpoint, upload certificates, tag, edit and delete it', async () => {
    const first = await mintCertificate({ subject: 'CN=manual.example.test', sans: ['manual.example.test'], notAfter: inDays(45) });
    const second = await mintCertificate({
      subject: 'CN=manual-next.example.test',
      sans: ['manual-next.example.test'],
      notAfter: inDays(200),
    });
    await signInAsAdmin();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('link', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Add endpoint', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Manual (uploaded certificates)').check();
    // A manual endpoint is not scanned: no scanner to choose.
    expect(await page.getByLabel('Scanner').count()).toBe(0);
    await page.getByLabel('Name', { exact: true }).fill('Partner API');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Partner API', level: 1 }).waitFor();
    const id = /\/endpoints\/([0-9a-f-]{36})$/.exec(page.url())![1];
    await section('Current certificates').getByText('No current certificate.').waitFor();

    // PEM armour around no certificate passes the form's check: the API's own sentence, by the PEM field.
    const upload = section('Upload a certificate');
    const broken = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n';
    await upload.getByLabel('Or paste the PEM').fill(broken);
    await upload.getByRole('button', { name: 'Upload certificate' }).click();
    const pemError = upload.locator('#upload-pem-error');
    await pemError.waitFor();
    const refusal = await t.http
      .post(`/api/v1/endpoints/${id}/certificate`)
      .query({ certUse: 'manual', replace: true })
      .set(bearer(admin))
      .send({ pem: broken })
      .expect(400);
    expect(await pemError.textContent()).toBe(refusal.text.trim());
    expect(await upload.getByLabel('Or paste the PEM').getAttribute('aria-describedby')).toBe('upload-pem-error');
    expect((await getEndpoint(id)).currentCertificates).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);

    // A pasted PEM: the subject and expiry on the screen, the link in the API.
    await upload.getByLabel('Or paste the PEM').fill(first.pem);
    await upload.getByRole('button', { name: 'Upload certificate' }).click();
    await upload.getByText('Uploaded manual.example.test: now current.').waitFor();
    const current = section('Current certificates');
    const row = current.getByRole('row').filter({ has: page.getByRole('link', { name: 'manual.example.test' }) });
    await row.waitFor();
    expect(await row.locator('time').getAttribute('title')).toBe(first.certificate.notAfter.toISOString());
    expect(await row.getByText(/^4[45] days$/).count()).toBe(1);
    expect(await row.getByRole('link', { name: 'manual.example.test' }).getAttribute('href')).toBe(`/certificates/${sha256(first.der)}`);
    expect((await getEndpoint(id)).currentCertificates).toEqual([
      expect.objectContaining({ fingerprint: sha256(first.der), commonName: 'manual.example.test', certUse: 'manual' }),
    ]);
    expect(await seriousViolations(page)).toEqual([]);

    // A DER file replaces it: the API holds only the new one as current.
    await upload.getByLabel(/^Certificate file/).setInputFiles({
      name: 'next.der',
      mimeType: 'application/pkix-cert',
      buffer: Buffer.from(second.der),
    });
    await upload.getByText('next.der: binary (DER), sent as it is.').waitFor();
    await upload.getByRole('button', { name: 'Upload certificate' }).click();
    await upload.getByText('Uploaded manual-next.example.test: now current; 1 earlier certificate(s) moved to history.').waitFor();
    await current.getByRole('link', { name: 'manual-next.example.test' }).waitFor();
    expect(await current.getByRole('link', { name: 'manual.example.test' }).count()).toBe(0);
    expect((await getEndpoint(id)).currentCertificates.map((c) => c.fingerprint)).toEqual([sha256(second.der)]);

    // Tags: two added, one removed, each saved at once.
    const tags = section('Tags');
    await tags.getByLabel('Tag to add').fill('env:prod');
    await tags.getByRole('button', { name: 'Add tag' }).click();
    await tags.getByText('Tag env:prod added.').waitFor();
    await tags.getByLabel('Tag to add').fill('team:partners');
    await tags.getByRole('button', { name: 'Add tag' }).click();
    await tags.getByText('Tag team:partners added.').waitFor();
    const tagsOf = async () => (await t.http.get(`/api/v1/endpoints/${id}/tags`).set(bearer(admin)).expect(200)).body as string[];
    expect((await tagsOf()).sort()).toEqual(['env:prod', 'team:partners']);
    await tags.getByRole('button', { name: 'Remove tag env:prod' }).click();
    await tags.getByText('Tag env:prod removed.').waitFor();
    expect(await tagsOf()).toEqual(['team:partners']);
    // A tag the API refuses (over 100 characters): its sentence, nothing changed.
    await tags.getByLabel('Tag to add').fill(`x${'y'.repeat(120)}`);
    await tags.getByRole('button', { name: 'Add tag' }).click();
    await tags.getByRole('alert').waitFor();
    expect((await tags.getByRole('alert').textContent())?.length).toBeGreaterThan(0);
    expect(await tagsOf()).toEqual(['team:partners']);
    expect(await seriousViolations(page)).toEqual([]);

    // Edited: an empty name is refused next to the field; a new name is stored.
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit Partner API', level: 1 }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Partner API');
    expect(await page.getByLabel(/^Tags/).inputValue()).toBe('team:partners');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.locator('#endpoint-name-error').waitFor();
    expect(await page.locator('#endpoint-name-error').textContent()).toBe('Enter a name.');
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Name', { exact: true }).fill('Partner API v2');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByRole('heading', { name: 'Partner API v2', level: 1 }).waitFor();
    const edited = await getEndpoint(id);
    expect(edited.name).toBe('Partner API v2');
    // PUT replaced every field with the form's: the tags and the certificate stayed.
    expect(edited.tags).toEqual(['team:partners']);
    expect(edited.currentCertificates.map((c) => c.fingerprint)).toEqual([sha256(second.der)]);

    // Deleted after confirming: back to the list, gone from the API.
    await page.getByRole('button', { name: 'Delete Partner API v2' }).click();
    await page.getByRole('button', { name: 'Yes, delete Partner API v2' }).click();
    await page.waitForURL(/\/endpoints$/);
    await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
    await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(404);
  });

  it('shows a host endpoint with its scanner, certificates old and new, TLS profile and scans', async () => {
    const scanner = await createScanner(t, 'edge-web');
    const old = await mintCertificate({ subject: 'CN=shop.example.test', sans: ['shop.example.test'], notAfter: inDays(10) });
    const renewed = await mintCertificate({ subject: 'CN=shop.example.test', sans: ['shop.example.test'], notAfter: inDays(90) });
    await signInAsAdmin();
    await page.goto('/endpoints/new');
    await page.getByLabel('Name', { exact: true }).fill('Shop');
    await page.getByLabel('DNS name', { exact: true }).fill('shop.example.test');
    await page.getByLabel('Scanner').selectOption({ label: 'edge-web' });
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();
    const id = /\/endpoints\/([0-9a-f-]{36})$/.exec(page.url())![1];
    expect((await getEndpoint(id)).scannerId).toBe(scanner.id);
    await page
      .getByRole('term')
      .filter({ hasText: /^Scanner$/ })
      .waitFor();
    await page.getByText('edge-web', { exact: true }).waitFor();
    await section('TLS profile')
      .getByText(/^Not profiled yet/)
      .waitFor();

    // Two scans as the agent reports them: the certificate was renewed between them.
    const now = t.clock.now().getTime();
    const profile = {
      versions: [
        { version: 'SSLv3', supported: false, cipherSuites: [] },
        { version: 'TLSv1.0', supported: true, cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA'] },
        { version: 'TLSv1.1', supported: false, cipherSuites: [] },
        {
          version: 'TLSv1.2',
          supported: true,
          cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
        },
        { version: 'TLSv1.3', supported: true, cipherSuites: ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384'] },
      ],
      negotiatedVersion: 'TLSv1.3',
      negotiatedCipherSuite: 'TLS_AES_128_GCM_SHA256',
    };
    for (const [certificate, at, tlsProfile] of [
      [old, now - 2 * 3600_000, null],
      [renewed, now - 3600_000, profile],
    ] as [MintedCertificate, number, unknown][]) {
      const response = await t.http
        .post('/api/v1/scanner/results')
        .set(bearer(scanner.token))
        .send({ results: [hostScanResult(id, [certificate], new Date(at), { tlsProfile })] })
        .expect(200);
      expect((response.body as { results: { status: string }[] }).results.map((r) => r.status)).toEqual(['accepted']);
    }
    await page.reload();
    await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();

    const current = section('Current certificates');
    const currentLink = current.getByRole('link', { name: 'shop.example.test' });
    await currentLink.waitFor();
    expect(await currentLink.getAttribute('href')).toBe(`/certificates/${sha256(renewed.der)}`);
    const historical = section('Historical certificates');
    const oldLink = historical.getByRole('link', { name: 'shop.example.test' });
    await oldLink.waitFor();
    expect(await oldLink.getAttribute('href')).toBe(`/certificates/${sha256(old.der)}`);

    const tls = section('TLS profile');
    await tls.getByText('TLSv1.0 is offered; it is deprecated (RFC 8996).').waitFor();
    const tls13 = tls.getByRole('row').filter({ has: page.getByRole('cell', { name: 'TLSv1.3', exact: true }) });
    await tls13.getByText('TLS_AES_256_GCM_SHA384').waitFor();
    await tls.getByText('TLSv1.3, TLS_AES_128_GCM_SHA256').waitFor();

    const scans = section('Scan history');
    await scans.getByText('The latest 2 of 2 scans.').waitFor();
    expect(await scans.getByRole('row').count()).toBe(3);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows the metadata of a SAML endpoint', async () => {
    const scanner = await createScanner(t, 'edge-saml');
    const signing = await mintCertificate({ subject: 'CN=idp.example.test', notAfter: inDays(120) });
    const endpoint = await createEndpoint({
      type: 'saml',
      name: 'Corporate IdP',
      metadataUrl: 'https://idp.example.test/metadata',
      scannerId: scanner.id,
    });
    const document = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example.test/entity">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${Buffer.from(signing.der).toString('base64')}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.test/sso"/>
  </md:IDPSSODescriptor>
  <md:ContactPerson contactType="technical"><md:GivenName>Ada</md:GivenName><md:SurName>Admin</md:SurName><md:EmailAddress>mailto:ada@idp.example.test</md:EmailAddress></md:ContactPerson>
</md:EntityDescriptor>`;
    const response = await t.http
      .post('/api/v1/scanner/results')
      .set(bearer(scanner.token))
      .send({
        results: [
          {
            resultId: randomUUID(),
            endpointId: endpoint.id,
            type: 'saml',
            scannedAt: t.clock.now().toISOString(),
            success: true,
            error: null,
            finalUrl: 'https://idp.example.test/metadata',
            document,
            digest: createHash('sha256').update(document).digest('hex'),
          },
        ],
      })
      .expect(200);
    expect((response.body as { results: { status: string }[] }).results.map((r) => r.status)).toEqual(['accepted']);

    await signInAsAdmin();
    await page.goto(`/endpoints/${endpoint.id}`);
    await page.getByRole('heading', { name: 'Corporate IdP', level: 1 }).waitFor();
    const metadata = section('SAML metadata');
    await metadata.getByText('https://idp.example.test/entity', { exact: true }).waitFor();
    await metadata.getByText('IDP', { exact: true }).waitFor();
    const sso = metadata.getByRole('table', { name: 'Single sign-on services' });
    await sso.getByRole('cell', { name: 'https://idp.example.test/sso', exact: true }).waitFor();
    await metadata.getByRole('table', { name: 'Contacts' }).getByRole('cell', { name: 'Ada Admin', exact: true }).waitFor();
    const signingRow = section('Current certificates')
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: 'idp.example.test' }) });
    await signingRow.getByRole('cell', { name: 'signing', exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: 'TLS profile' }).count()).toBe(0);
    await section('Scan history').getByText('The latest 1 of 1 scans.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows a viewer an endpoint without any edit control', async () => {
    const certificate = await mintCertificate({ subject: 'CN=viewed.example.test', sans: ['viewed.example.test'], notAfter: inDays(60) });
    const endpoint = await createEndpoint({ type: 'manual', name: 'Viewed endpoint', tags: ['env:viewed'] });
    await t.http
      .post(`/api/v1/endpoints/${endpoint.id}/certificate`)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(certificate.pem)
      .expect(201);
    const viewer = await createUser(t, 'viewer');
    await page.goto('/login');
    await signIn(page, viewer.email, viewer.password);
    await page.getByText('(viewer)').waitFor();

    await page.goto('/endpoints');
    await page.getByRole('link', { name: 'Viewed endpoint' }).waitFor();
    // The list offers the download, not the import nor the creation.
    await page.getByRole('button', { name: 'Download CSV' }).waitFor();
    expect(await page.getByRole('link', { name: 'Import from CSV' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Add endpoint' }).count()).toBe(0);

    await page.getByRole('link', { name: 'Viewed endpoint' }).click();
    await page.getByRole('heading', { name: 'Viewed endpoint', level: 1 }).waitFor();
    await section('Current certificates').getByRole('link', { name: 'viewed.example.test' }).waitFor();
    await section('Tags').getByText('env:viewed').waitFor();
    expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out']);
    expect(await page.getByRole('link', { name: 'Edit', exact: true }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Upload a certificate' }).count()).toBe(0);
    expect(await page.getByLabel('Tag to add').count()).toBe(0);
    // The header's search box aside, the screen holds no field.
    expect(await page.getByRole('main').locator('input, textarea, select').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // Typing the edit screen's address leads back to the detail.
    await page.goto(`/endpoints/${endpoint.id}/edit`);
    await page.waitForURL(new RegExp(`/endpoints/${endpoint.id}$`));
    await page.getByRole('heading', { name: 'Viewed endpoint', level: 1 }).waitFor();
  });

  it('downloads the filtered endpoint list as CSV', async () => {
    await createEndpoint({ type: 'manual', name: 'csv alpha', tags: ['team:csv'] });
    await createEndpoint({ type: 'host', name: 'csv beta, "quoted"', dnsName: 'beta.csv.example.test', tags: ['team:csv', 'env:prod'] });
    await createEndpoint({ type: 'manual', name: 'csv gamma (other team)', tags: ['team:other'] });
    await signInAsAdmin();
    await page.goto('/endpoints');
    await page.getByLabel('Tags').fill('team:csv');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/tag=team%3Acsv/);
    await page.getByText('Endpoints 1–2 of 2').waitFor();
    await page.getByRole('link', { name: 'Import from CSV' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^certkeeper-endpoints-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8');
    const [header, ...rows]: string[][] = parse(csv);
    const column = (name: string) => header.indexOf(name);
    expect(column('name')).toBeGreaterThanOrEqual(0);
    expect(rows.map((cells) => cells[column('name')])).toEqual(['csv alpha', 'csv beta, "quoted"']);
    expect(rows.map((cells) => cells[column('tags')])).toEqual(['team:csv', expect.stringMatching(/team:csv/)]);
    // The very file the API answers to the same question.
    const fromApi = await t.http
      .get('/api/v1/endpoints')
      .query({ tag: 'team:csv' })
      .set(bearer(admin))
      .set('Accept', 'text/csv')
      .expect(200);
    expect(csv).toBe(fromApi.text);
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});
