import { mintCertificate } from '@certkeeper/domain/testing';
import type { Page } from 'playwright-core';
import { HOUR } from '../../api/test/support/fake-clock';
import { hostScanResult } from '../../api/test/support/scan-results';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, defaultScannerCredentials, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn, SIZES } from './support/web-browser';

/*
 * Rotations and renewals never deployed on the endpoint screens (docs/api-contract.md section 16),
 * at 1280×800 and 390×844: the list offers the "Renewal: Not deployed" filter and marks such rows,
 * the endpoint (and the Expiring screen) shows the renewal beside its current certificate, and a
 * rotation timeline whose regression reads as the word "Regression", not as a colour alone.
 */
const DAY = 24 * HOUR;
describeWithChromium('rotations and renewals not deployed in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  let endpointId: string | undefined;

  /** A host endpoint whose scans replaced a certificate by one without a name, and a stored renewal of that one, a day old. */
  async function renewedAndRegressed(): Promise<string> {
    const admin = await login(t);
    const scanner = (await defaultScannerCredentials(t, admin)).token;
    const base = new Date(Math.floor((Date.now() - 30 * DAY) / 1000) * 1000);
    const ca = await mintCertificate({ subject: 'CN=Browser CA, O=Browser Trust', ca: true });
    const issue = (offset: number, sans: string[]) =>
      mintCertificate({ subject: 'CN=portal.example.test', sans, issuer: ca, notBefore: new Date(base.getTime() + offset) });
    const first = await issue(0, ['portal.example.test', 'www.portal.example.test']);
    const second = await issue(10 * DAY, ['portal.example.test']);
    const renewal = await issue(20 * DAY, ['portal.example.test', 'www.portal.example.test']);
    const body = { name: 'Customer portal', dnsName: 'portal.example.test' };
    const id = ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send(body).expect(201)).body as { id: string }).id;
    for (const leaf of [first, second]) {
      t.clock.advance(60_000);
      await t.http
        .post('/api/v1/scanner/results')
        .set(bearer(scanner))
        .send({ results: [hostScanResult(id, [leaf, ca], t.clock.now())] })
        .expect(200);
    }
    await t.http
      .post('/api/v1/certificates')
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(renewal.pem)
      .expect(201);
    t.clock.advance(25 * HOUR);
    // The hourly pass writes down what the clock changed (docs/api-contract.md section 16).
    await t.http
      .post('/api/v1/maintenance/tasks/check-revocation/run')
      .set(bearer(await login(t)))
      .expect(200);
    return id;
  }

  beforeEach(async () => {
    ({ app: t, page } = session);
    endpointId ??= await renewedAndRegressed();
  });

  describe.each(SIZES)('at $name size', ({ viewport }) => {
    it('filters the list by renewals not deployed and shows the renewal and the rotation timeline', async () => {
      await page.setViewportSize(viewport);
      await page.goto('/login');
      await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();

      await page.goto('/endpoints');
      // On a phone the filters fold behind a button.
      if (viewport.width < 640) await page.getByRole('button', { name: 'Filters', expanded: false }).click();
      await page.getByLabel('Renewal').selectOption({ label: 'Not deployed' });
      await page.waitForURL(/superseded=true/);
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Customer portal' }) });
      // The row's mark; the finding of the same name is listed beside it.
      await row.getByText('⚠ Renewal not deployed').waitFor();
      await row.getByRole('listitem', { name: /A renewed certificate exists/ }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      await row.getByRole('link', { name: 'Customer portal' }).click();
      await page.getByRole('heading', { name: 'Customer portal', level: 1 }).waitFor();
      expect(page.url()).toContain(endpointId);
      const current = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Current certificates' }) });
      await current.getByText('Renewal not deployed:').waitFor();
      const rotations = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Rotations' }) });
      await rotations.getByText('1 regression').waitFor();
      await rotations.getByText('Regression: Names (SANs): portal.example.test, www.portal.example.test → portal.example.test').waitFor();
      expect(await rotations.getByRole('listitem').filter({ hasText: 'Lifetime' }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);

      // The Expiring screen's row names the renewal too.
      await page.goto('/expiring?days=365');
      await page.getByRole('heading', { name: 'Expiring', level: 1 }).waitFor();
      const expiring = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Customer portal' }) });
      await expiring.getByText('Renewal not deployed:').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    }, 60_000);
  });
});
