import { createHash } from 'node:crypto';
import { mintCertificate, mintChain, pemBundle, type MintedCertificate, type MintedChain } from '@certkeeper/domain/testing';
import type { Page } from 'playwright-core';
import { DAY } from '../../api/test/support/fake-clock';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/*
 * The certificates section in headless Chromium against the real API: a chain (root, intermediate,
 * leaf) and an expired certificate are seeded through the API on manual endpoints; an admin uploads
 * the root through the screen, searches, filters, opens the leaf and follows its chain, sees trust
 * by store and the endpoints where it is current and was before, is refused the delete of a linked
 * certificate with the API's sentence and deletes an unlinked one; a viewer sees no edit action.
 */
describeWithChromium('the certificates screens in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  let chain: MintedChain;
  let expired: MintedCertificate;
  let endpointIds: { portal: string; legacy: string };
  beforeEach(() => {
    ({ app: t, page } = session);
  });

  const sha256 = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

  /** Seeds once per file: the leaf current on "portal" (with its intermediate), historical on "legacy". */
  const seed = async () => {
    if (chain) return;
    const admin = await login(t);
    chain = await mintChain();
    expired = await mintCertificate({
      subject: 'CN=expired.certs.test',
      sans: ['expired.certs.test'],
      notBefore: new Date(Date.now() - 100 * DAY),
      notAfter: new Date(Date.now() - 3 * DAY),
    });
    const create = async (name: string) =>
      ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name, type: 'manual' }).expect(201)).body as { id: string }).id;
    const upload = (endpointId: string, pem: string) =>
      t.http
        .post(`/api/v1/endpoints/${endpointId}/certificate`)
        .set(bearer(admin))
        .set('Content-Type', 'application/x-pem-file')
        .send(pem)
        .expect((response) => expect([200, 201]).toContain(response.status));
    endpointIds = { portal: await create('portal'), legacy: await create('legacy') };
    await upload(endpointIds.portal, pemBundle(chain.leaf, chain.intermediate));
    await upload(endpointIds.legacy, chain.leaf.pem);
    // A newer certificate on "legacy" moves the leaf to its history.
    await upload(endpointIds.legacy, expired.pem);
  };

  const openCertificates = async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Certificates' }).click();
    await page.getByRole('heading', { name: 'Certificates', level: 1 }).waitFor();
  };
  const search = async (text: string) => {
    await page.getByRole('searchbox', { name: 'Search' }).fill(text);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
  };

  it('lets an admin upload, search, open a certificate with its chain, trust and endpoints, and delete', async () => {
    await seed();
    const admin = await login(t);
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await openCertificates();
    await page.getByRole('link', { name: 'leaf.example.com' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The root is not stored yet: uploaded through the screen, read back through the API.
    await t.http
      .get(`/api/v1/certificates/${sha256(chain.root)}`)
      .set(bearer(admin))
      .expect(404);
    await page.getByLabel('PEM', { exact: true }).fill(chain.root.pem);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('Stored:').waitFor();
    await page.getByRole('link', { name: 'Certkeeper Test Root' }).first().waitFor();
    await t.http
      .get(`/api/v1/certificates/${sha256(chain.root)}`)
      .set(bearer(admin))
      .expect(200);
    // Again: already stored. Garbage: the API's sentence next to the field.
    await page.getByLabel('PEM', { exact: true }).fill(chain.root.pem);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('Already stored:').waitFor();
    await page.getByLabel('PEM', { exact: true }).fill('not a certificate');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const uploadError = page.locator('#upload-pem-error');
    await uploadError.waitFor();
    expect((await uploadError.textContent())?.length).toBeGreaterThan(5);
    expect(await seriousViolations(page)).toEqual([]);

    // Filters in the address: expired only.
    await page.getByLabel('Expiry').selectOption('true');
    await page.getByRole('link', { name: 'expired.certs.test' }).waitFor();
    await page.getByRole('link', { name: 'leaf.example.com' }).waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('expired')).toBe('true');
    const expiredRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'expired.certs.test' }) });
    expect(await expiredRow.getByText(/^expired \d+ days? ago$/).count()).toBe(1);
    await page.getByLabel('Expiry').selectOption('');

    // Free text: the leaf by its name.
    await search('leaf.example');
    expect(new URL(page.url()).searchParams.get('q')).toBe('leaf.example');
    await page.getByText('Certificates 1–1 of 1, soonest expiry first').waitFor();
    const leafRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'leaf.example.com' }) });
    expect(await leafRow.getByRole('cell').nth(1).textContent()).toBe('Certkeeper Test Intermediate');
    expect(await leafRow.getByRole('cell').nth(4).textContent()).toBe('not trusted');

    // The leaf's detail.
    await page.getByRole('link', { name: 'leaf.example.com' }).click();
    await page.getByRole('heading', { name: 'leaf.example.com', level: 1 }).waitFor();
    await page.getByText(sha256(chain.leaf), { exact: true }).waitFor();
    const leafDetail = (
      await t.http
        .get(`/api/v1/certificates/${sha256(chain.leaf)}`)
        .set(bearer(admin))
        .expect(200)
    ).body as {
      serialNumber: string;
    };
    await page.getByText(leafDetail.serialNumber, { exact: true }).waitFor();
    const chainList = page.getByRole('list', { name: 'Certificate chain, this certificate first' });
    await chainList.getByRole('link', { name: 'Certkeeper Test Root' }).waitFor();
    expect((await chainList.getByRole('listitem').allTextContents()).map((text) => text.split(' (')[0])).toEqual([
      'leaf.example.com',
      'Certkeeper Test Intermediate',
      'Certkeeper Test Root',
    ]);
    const stores = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Root store' }) });
    expect(await stores.getByRole('row').count()).toBe(5);
    await page.getByText('This certificate is not a trust anchor.').waitFor();
    const current = page.getByRole('table', { name: 'Current on' });
    expect(await current.getByRole('link', { name: 'portal' }).getAttribute('href')).toBe(`/endpoints/${endpointIds.portal}`);
    const before = page.getByRole('table', { name: 'Seen before on' });
    expect(await before.getByRole('link', { name: 'legacy' }).getAttribute('href')).toBe(`/endpoints/${endpointIds.legacy}`);
    expect(await seriousViolations(page)).toEqual([]);

    // Linked, so the API refuses the delete: its sentence next to the action.
    await page.getByRole('button', { name: 'Delete certificate' }).click();
    await page.getByRole('button', { name: 'Yes, delete leaf.example.com' }).click();
    const refusal = page.locator('.certificate-detail [role="alert"]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('The certificate is linked to an endpoint (current or historical) and cannot be deleted.');
    await t.http
      .get(`/api/v1/certificates/${sha256(chain.leaf)}`)
      .set(bearer(admin))
      .expect(200);

    // The root through the chain: linked to no endpoint, deleted, gone from the API.
    await chainList.getByRole('link', { name: 'Certkeeper Test Root' }).click();
    await page.getByRole('heading', { name: 'Certkeeper Test Root', level: 1 }).waitFor();
    await page.getByText('No endpoint presents it now.').waitFor();
    await page.getByRole('button', { name: 'Delete certificate' }).click();
    await page.getByRole('button', { name: 'Yes, delete Certkeeper Test Root' }).click();
    await page.getByRole('heading', { name: 'Certificates', level: 1 }).waitFor();
    await t.http
      .get(`/api/v1/certificates/${sha256(chain.root)}`)
      .set(bearer(admin))
      .expect(404);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows a viewer the certificates without edit actions', async () => {
    await seed();
    const viewer = await createUser(t, 'viewer');
    await page.goto('/login');
    await signIn(page, viewer.email, viewer.password);
    await openCertificates();
    await search('leaf.example');
    expect(await page.getByRole('heading', { name: 'Upload certificates' }).count()).toBe(0);
    expect(await page.getByLabel('PEM', { exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: 'leaf.example.com' }).click();
    await page.getByRole('heading', { name: 'leaf.example.com', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Current on' }).getByRole('link', { name: 'portal' }).waitFor();
    await page.getByRole('list', { name: 'Certificate chain, this certificate first' }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete certificate' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
