import type { Page } from 'playwright-core';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/*
 * The bulk import screen in headless Chromium against the real API: an admin picks a CSV file
 * through the file input, sees the progress reach the end and the API's sentence for the refused
 * line, and the API then holds exactly the good lines; a file with a wrong header is refused
 * before anything is sent; a viewer is offered no import.
 */
describeWithChromium('the bulk import screen in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  beforeEach(() => {
    ({ app: t, page } = session);
  });

  interface Endpoint {
    id: string;
    name: string;
    type: string;
    dnsName: string | null;
    port: number | null;
    metadataUrl: string | null;
    tags: string[];
  }
  const storedEndpoints = async (): Promise<Endpoint[]> => {
    const admin = await login(t);
    const response = await t.http.get('/api/v1/endpoints').query({ limit: 500 }).set(bearer(admin)).expect(200);
    return (response.body as { items: Endpoint[] }).items;
  };
  const pickFile = (name: string, text: string) =>
    page.getByLabel('CSV file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });

  it('lets an admin import a CSV file: the good lines created, the bad one refused with its line number', async () => {
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Import from CSV' }).click();
    await page.getByRole('heading', { name: 'Import endpoints', level: 1 }).waitFor();
    await page
      .getByText('name,type,dnsName,port,ipAddress,starttls,metadataUrl,scannerId,enabled,scanExempt,notes,tags,ignoredFindings')
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // A file whose header names a column an endpoint lacks: the sentence, nothing sent.
    await pickFile('wrong.csv', 'hostname,port\r\nalpha.import.test,443\r\n');
    const fileError = page.locator('#import-file-error');
    await fileError.waitFor();
    expect(await fileError.textContent()).toMatch(/^The header names columns an endpoint does not have: hostname\./);
    expect(await page.getByLabel('CSV file').getAttribute('aria-describedby')).toBe('import-file-error');
    expect(await page.getByRole('button', { name: /^Import \d/ }).count()).toBe(0);
    // No header at all.
    await pickFile('headless.csv', 'alpha,host,alpha.import.test\r\n');
    await page.getByText(/^The first line is not a header/).waitFor();
    expect(await storedEndpoints()).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);

    // Five lines (a BOM, CRLF, a quoted comma, a quoted line break in the notes), line 7 refused by the API.
    const csv = [
      '\uFEFFname,type,dnsName,port,metadataUrl,tags,notes',
      'alpha web,host,alpha.import.test,443,,env:prod;team:web,',
      '"beta, quoted",host,beta.import.test,8443,,,"two',
      'lines"',
      'idp,saml,,,https://idp.import.test/metadata,,',
      'manual one,manual,,,,env:dev,',
      'broken port,host,gamma.import.test,70000,,,',
      '',
    ].join('\r\n');
    await pickFile('endpoints.csv', csv);
    await page.getByText('5 endpoints read from endpoints.csv.').waitFor();
    await page.getByRole('button', { name: 'Import 5 endpoints' }).click();

    await page.getByText('Import finished: 4 created, 1 refused.').waitFor();
    const progress = page.getByRole('progressbar', { name: 'Lines imported' });
    expect(await progress.getAttribute('value')).toBe('5');
    expect(await progress.getAttribute('max')).toBe('5');
    const refused = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'broken port', exact: true }) });
    expect(await refused.getByRole('cell').first().textContent()).toBe('7');
    expect(await refused.getByRole('cell').last().textContent()).toMatch(/^port must not be greater than 65535/);

    // The created lines, linked to their endpoints.
    await page.getByText('Created endpoints (4)').click();
    await page.getByRole('link', { name: 'beta, quoted' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const stored = (await storedEndpoints()).map(({ name, type, dnsName, port, metadataUrl, tags }) => ({
      name,
      type,
      dnsName,
      port,
      metadataUrl,
      tags,
    }));
    expect(stored).toEqual([
      { name: 'alpha web', type: 'host', dnsName: 'alpha.import.test', port: 443, metadataUrl: null, tags: ['env:prod', 'team:web'] },
      { name: 'beta, quoted', type: 'host', dnsName: 'beta.import.test', port: 8443, metadataUrl: null, tags: [] },
      { name: 'idp', type: 'saml', dnsName: null, port: null, metadataUrl: 'https://idp.import.test/metadata', tags: [] },
      { name: 'manual one', type: 'manual', dnsName: null, port: null, metadataUrl: null, tags: ['env:dev'] },
    ]);
    const admin = await login(t);
    const beta = (await storedEndpoints()).find((endpoint) => endpoint.name === 'beta, quoted');
    const detail = await t.http
      .get(`/api/v1/endpoints/${beta?.id ?? ''}`)
      .set(bearer(admin))
      .expect(200);
    expect((detail.body as { notes: string }).notes).toBe('two\r\nlines');
    // The results link each created line to its endpoint.
    expect(await page.getByRole('link', { name: 'beta, quoted' }).getAttribute('href')).toBe(`/endpoints/${beta?.id ?? ''}`);

    // A file of the endpoint CSV export imports as it is (its server-set columns skipped): the
    // host already exists, so the API refuses it with its 409 sentence.
    const exported = await t.http.get('/api/v1/endpoints').query({ format: 'csv', q: 'alpha' }).set(bearer(admin)).expect(200);
    await pickFile('exported.csv', exported.text);
    await page.getByText(/^Skipped the columns the server sets itself: id, /).waitFor();
    await page.getByRole('button', { name: 'Import 1 endpoint' }).click();
    await page.getByText('Import finished: 0 created, 1 refused.').waitFor();
    const duplicate = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'alpha web', exact: true }) });
    expect(await duplicate.getByRole('cell').first().textContent()).toBe('2');
    expect(await duplicate.getByRole('cell').last().textContent()).toMatch(/already exists/);
    expect((await storedEndpoints()).length).toBe(4);
  });

  it('offers a viewer no import', async () => {
    const viewer = await createUser(t, 'viewer');
    await page.goto('/login');
    await signIn(page, viewer.email, viewer.password);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: /import/i }).count()).toBe(0);

    await page.goto('/endpoints/import');
    await page.getByRole('heading', { name: 'Import endpoints', level: 1 }).waitFor();
    await page.getByText('Your role may not create endpoints, so it cannot import them.').waitFor();
    expect(await page.getByLabel('CSV file').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Import/ }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
