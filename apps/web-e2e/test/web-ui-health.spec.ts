import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { parse } from 'csv-parse/sync';
import { mintCertificate } from '@certkeeper/domain/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually } from '../../api/test/support/eventually';
import { daysFrom } from '../../api/test/support/fake-clock';
import { startSmtpServer, type TestSmtpServer } from '../../api/test/support/smtp';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  bearer,
  createTestApp,
  defaultScannerCredentials,
  login,
  type TestApp,
} from '../../api/test/support/test-app';
import { describeWithChromium, launchChromium, runAgentOnce, seriousViolations, signIn, watchPage, SIZES } from './support/web-browser';

/*
 * "What expires next?" and "will anyone be told?" at a glance, at 1280×800 and 390×844: the
 * endpoint list's days remaining, health (expiry before scan state), sortable headers, natural
 * name order, expires-within filter and CSV; the certificate list in use by default, the rest on
 * request; the dashboard's alerting banner (mail off, failed deliveries, offline scanners) and
 * none when all is well; scanners online or offline, and "Scan now" on an offline one saying so.
 * Every screen passes axe-core and is no wider than its window.
 */

describeWithChromium('the web interface says what expires next and whether anyone will be told', () => {
  let t: TestApp;
  let browser: Browser;
  let smtp: TestSmtpServer;
  let admin: string;
  const contexts: BrowserContext[] = [];
  const watched: { cspViolations: string[]; pageErrors: string[] }[] = [];
  const ids = { branch: '', branchHost: '', relay: '', branchToken: '' };
  const days = (n: number) => daysFrom(t.clock, n);

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    smtp = await startSmtpServer();
    admin = await login(t);
    const create = async (body: Record<string, unknown>) =>
      ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
    const upload = async (endpointId: string, notAfterDays: number, name: string) => {
      const certificate = await mintCertificate({
        subject: `CN=${name}`,
        sans: [name],
        notBefore: days(Math.min(notAfterDays, 0) - 60),
        notAfter: days(notAfterDays),
      });
      await t.http
        .post(`/api/v1/endpoints/${endpointId}/certificate`)
        .set(bearer(admin))
        .set('Content-Type', 'application/x-pem-file')
        .send(certificate.pem)
        .expect(201);
    };
    // Created out of natural order, so the list's order is the sort's, not the creation's.
    await upload(await create({ name: 'App 10', type: 'manual' }), -424, 'app10.health.test');
    await upload(await create({ name: 'App 2', type: 'manual' }), 5, 'app2.health.test');
    await upload(await create({ name: 'App 1', type: 'manual' }), 200, 'app1.health.test');
    await create({ name: 'App 11', type: 'manual' });
    // A certificate on no endpoint: only "all" shows it.
    const unused = await mintCertificate({ subject: 'CN=unused.health.test', sans: ['unused.health.test'], notAfter: days(90) });
    await t.http.post('/api/v1/certificates').set(bearer(admin)).send({ pem: unused.pem }).expect(201);

    // A host whose port refuses: the real agent's scan of it fails (and the default scanner calls in).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    ids.relay = await create({ name: 'mail-relay', type: 'host', dnsName: '127.0.0.1', port });
    const defaultScanner = await defaultScannerCredentials(t, admin);
    await runAgentOnce(t.baseUrl, defaultScanner.token);

    // A scanner whose agent never called in, and an endpoint it is to scan.
    const branch = (await t.http.post('/api/v1/scanners').set(bearer(admin)).send({ name: 'branch-office' }).expect(201)).body as {
      id: string;
      token: string;
    };
    ids.branch = branch.id;
    ids.branchToken = branch.token;
    ids.branchHost = await create({ name: 'branch-host', type: 'host', dnsName: 'intranet.branch.test', scannerId: branch.id });
  }, 180_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await smtp?.close();
    await t?.close();
  });
  afterEach(() => {
    for (const { cspViolations, pageErrors } of watched) {
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
    }
  });

  const openPage = async (viewport: { width: number; height: number }) => {
    const context = await browser.newContext({ baseURL: t.baseUrl, viewport, acceptDownloads: true });
    contexts.push(context);
    const page = await context.newPage();
    watched.push(watchPage(page));
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('heading', { name: 'Dashboard', exact: true }).waitFor();
    return page;
  };

  /** axe-core finds nothing serious, and the page is no wider than its window. */
  const expectSound = async (page: Page) => {
    await page.getByText('Loading…').waitFor({ state: 'detached' });
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
  };

  const names = (page: Page) => page.getByRole('main').locator('tbody tr td:first-child a').allTextContents();
  const cell = (page: Page, row: string, column: number) =>
    page
      .getByRole('main')
      .locator('tbody tr', { has: page.getByRole('link', { name: row, exact: true }) })
      .locator(`td:nth-child(${column})`);

  describe.each(SIZES)('at $name size', ({ viewport }) => {
    it('lists endpoints in natural name order with days remaining, a health that puts expiry first, sortable headers, an expiry filter and CSV', async () => {
      const page = await openPage(viewport);
      await page.goto('/endpoints');
      await page.getByText('Endpoints 1–6 of 6').waitFor();
      expect(await names(page)).toEqual(['App 1', 'App 2', 'App 10', 'App 11', 'branch-host', 'mail-relay']);
      const name = page.getByRole('columnheader', { name: 'Name' });
      expect(await name.getAttribute('aria-sort')).toBe('ascending');

      // Days remaining is the urgency badge; health says expiry before scan state, in words.
      expect(await cell(page, 'App 10', 2).textContent()).toBe('expired 424 days ago');
      expect(await cell(page, 'App 10', 3).textContent()).toBe('Expired');
      expect(await cell(page, 'App 2', 2).textContent()).toMatch(/^Warning: 5 days$/);
      expect(await cell(page, 'App 2', 3).textContent()).toBe('Expires within 30 days');
      expect(await cell(page, 'App 1', 3).textContent()).toBe('OK');
      expect(await cell(page, 'App 11', 2).textContent()).toBe('no certificate');
      expect(await cell(page, 'mail-relay', 3).textContent()).toBe('Scan failing');
      await expectSound(page);

      // Soonest expiry first (expired first), then reversed; those without a certificate last either way.
      const daysHeader = page.getByRole('columnheader', { name: 'Days remaining' });
      await daysHeader.getByRole('button').click();
      await page.waitForURL('**/endpoints?sort=daysRemaining');
      await page.getByText('Loading…').waitFor({ state: 'detached' });
      expect(await daysHeader.getAttribute('aria-sort')).toBe('ascending');
      expect(await name.getAttribute('aria-sort')).toBe('none');
      // The previous page stays shown while the next loads: wait for the new order.
      const firstNames = (count: number, expected: string[]) =>
        eventually(
          async () => (await names(page)).slice(0, count),
          (shown) => shown.join() === expected.join(),
          10_000,
        );
      expect(await firstNames(3, ['App 10', 'App 2', 'App 1'])).toEqual(['App 10', 'App 2', 'App 1']);
      await daysHeader.getByRole('button').click();
      await page.waitForURL('**/endpoints?sort=-daysRemaining');
      await page.getByText('Loading…').waitFor({ state: 'detached' });
      expect(await daysHeader.getAttribute('aria-sort')).toBe('descending');
      expect(await firstNames(3, ['App 1', 'App 2', 'App 10'])).toEqual(['App 1', 'App 2', 'App 10']);
      await page.getByRole('columnheader', { name: 'Created' }).getByRole('button').click();
      await page.waitForURL('**/endpoints?sort=createdAt');
      await page.getByText('Loading…').waitFor({ state: 'detached' });
      expect(await firstNames(2, ['App 10', 'App 2'])).toEqual(['App 10', 'App 2']);

      // Expiring within 30 days: the expired one too; the CSV holds the filtered list, in its order.
      await page.goto('/endpoints?sort=daysRemaining');
      // On a phone the filters fold behind a button.
      if (viewport.width < 640) await page.getByRole('button', { name: 'Filters', expanded: false }).click();
      await page.getByLabel('Expires within (days)').fill('30');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByText('Endpoints 1–2 of 2').waitFor();
      expect(await names(page)).toEqual(['App 10', 'App 2']);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^certkeeper-endpoints-\d{4}-\d{2}-\d{2}\.csv$/);
      const rows: { name: string; daysRemaining: string }[] = parse(readFileSync(await download.path(), 'utf8'), { columns: true });
      expect(rows.map((row) => [row.name, row.daysRemaining])).toEqual([
        ['App 10', '-424'],
        ['App 2', '5'],
      ]);
      await expectSound(page);
    }, 120_000);

    it('lists the certificates in use by default, the others on request, with CSV', async () => {
      const page = await openPage(viewport);
      await page.goto('/certificates');
      await page.getByText('Certificates 1–3 of 3, soonest expiry first').waitFor();
      expect(await names(page)).toEqual(['app10.health.test', 'app2.health.test', 'app1.health.test']);
      await expectSound(page);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
      const rows: { commonName: string }[] = parse(readFileSync(await download.path(), 'utf8'), { columns: true });
      expect(rows.map((row) => row.commonName)).toEqual(['app10.health.test', 'app2.health.test', 'app1.health.test']);

      await page.getByLabel('Show').selectOption('no-anchors');
      await page.getByText('Certificates 1–4 of 4, soonest expiry first').waitFor();
      expect(await names(page)).toContain('unused.health.test');
      await page.getByLabel('Show').selectOption('all');
      await page.waitForURL('**/certificates?show=all');
      await page.getByText('Loading…').waitFor({ state: 'detached' });
      expect(await names(page)).toContain('unused.health.test');
      await expectSound(page);
    }, 120_000);

    it('shows each scanner online or offline, and "Scan now" on an offline scanner says the scan waits for its agent', async () => {
      const page = await openPage(viewport);
      await page.goto('/scanners');
      const row = (scanner: string) => page.getByRole('main').locator('tbody tr', { hasText: scanner });
      await row('branch-office').waitFor();
      expect(await row('branch-office').getByText('Offline (never called in)').count()).toBe(1);
      expect(await row('default').getByText('Online', { exact: true }).count()).toBe(1);
      await expectSound(page);

      await page.goto(`/endpoints/${ids.branchHost}`);
      await page.getByRole('button', { name: 'Scan now' }).click();
      await page.getByText('Scan requested, but the scanner branch-office is offline: the scan waits until its agent calls in.').waitFor();
      expect(await page.getByText('within seconds').count()).toBe(0);
      await expectSound(page);

      await page.goto(`/endpoints/${ids.relay}`);
      await page.getByRole('button', { name: 'Scan now' }).click();
      await page.getByText('Scan requested: its scanner picks it up within seconds.').waitFor();
    }, 120_000);
  });

  it('offers one Download CSV on every other list the API exports: the discovery inbox, the audit log and scan history', async () => {
    const page = await openPage(SIZES[1].viewport);
    const lists: [string, string, RegExp][] = [
      ['/discovery/inbox', 'Inbox', /^certkeeper-discovery-inbox-\d{4}-\d{2}-\d{2}\.csv$/],
      ['/audit', 'Audit log', /^certkeeper-audit-\d{4}-\d{2}-\d{2}\.csv$/],
      [`/endpoints/${ids.relay}`, 'Scan history', /^certkeeper-endpoint-history-\d{4}-\d{2}-\d{2}\.csv$/],
    ];
    for (const [path, heading, fileName] of lists) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(fileName);
      const rows: Record<string, string>[] = parse(readFileSync(await download.path(), 'utf8'), { columns: true });
      if (heading === 'Scan history') expect(rows.length).toBeGreaterThan(0);
      await expectSound(page);
    }
  }, 120_000);

  it('warns on the dashboard when mail is off, when deliveries failed and when scanners are offline, and not when all is well', async () => {
    const banner = (page: Page) => page.getByRole('region', { name: 'Alerts may not reach anyone' });
    for (const { viewport } of SIZES) {
      const page = await openPage(viewport);
      await page.goto('/');
      await banner(page).waitFor();
      expect(await banner(page).getByRole('link', { name: 'Set up mail' }).getAttribute('href')).toBe('/settings/mail');
      expect(await banner(page).textContent()).toContain('Scanners offline, their endpoints not scanned: branch-office.');
      expect(await banner(page).getByRole('link', { name: 'Scanners' }).getAttribute('href')).toBe('/scanners');
      await expectSound(page);
    }

    // The relay refuses: the alerts of the expired and the 5-day certificates fail and wait.
    smtp.failing = true;
    await t.http
      .put('/api/v1/settings/mail')
      .set(bearer(admin))
      .send({ enabled: true, host: '127.0.0.1', port: smtp.port, tlsMode: 'none', auth: 'none', fromAddress: 'alerts@example.com' })
      .expect(200);
    const run = (await t.http.post('/api/v1/alerts/run').set(bearer(admin)).expect(200)).body as { failed: number };
    expect(run.failed).toBeGreaterThan(0);
    for (const { viewport } of SIZES) {
      const page = await openPage(viewport);
      await page.goto('/');
      await banner(page).waitFor();
      const text = await banner(page).textContent();
      expect(text).not.toContain('Mail is off');
      expect(text).toContain(`${run.failed} alerts could not be delivered at the last run (`);
      expect(await banner(page).locator('time').count()).toBe(1);
      await expectSound(page);
    }

    // The relay heals, the branch's agent calls in: nothing to warn of.
    smtp.failing = false;
    expect(((await t.http.post('/api/v1/alerts/run').set(bearer(admin)).expect(200)).body as { failed: number }).failed).toBe(0);
    await t.http.get('/api/v1/me').set(bearer(ids.branchToken)).expect(403);
    for (const { viewport } of SIZES) {
      const page = await openPage(viewport);
      await page.goto('/');
      await page.getByRole('heading', { name: 'Expiring certificates' }).waitFor();
      expect(await banner(page).count()).toBe(0);
      await expectSound(page);
    }
  }, 180_000);
});
