import { mintCertificate } from '@certkeeper/domain/testing';
import { startAcmeServer, type TestAcmeServer, windowBody } from '@certkeeper/net/testing';
import { DAY } from '../../api/test/support/fake-clock';
import { fingerprintOf, issuingCa } from '../../api/test/support/renewal-info-world';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, login, manualEndpointWith } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

/*
 * Renewal information in headless Chromium against the real API, at 1280×800 and 390×844: the
 * ACME CAs screen, and a certificate whose CA's renewal window has ended, on its own screen and on
 * the dashboard (docs/api-contract.md section 15). The thresholds screen's lifetime-aware policy
 * has web-ui-lifetimes.spec.ts.
 */
describeWithChromium('short-lived certificates in a browser', () => {
  const session = browserSession();
  let acme: TestAcmeServer;
  beforeAll(async () => {
    acme = await startAcmeServer();
    acme.reply = () => ({ body: windowBody(new Date(Date.now() - 3 * DAY), new Date(Date.now() - DAY), 'https://ca.example/incident') });
  });
  afterAll(() => acme.close());

  for (const viewport of VIEWPORTS) {
    it(`shows and changes the ACME CAs, and an ended renewal window (${viewport.name})`, async () => {
      const { app: t, page } = session;
      const admin = await login(t);
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await page.goto('/login');
      await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.waitForURL((url) => url.pathname !== '/login');

      // ACME CAs: the defaults, replaced by the local CA; a bad URL is refused with the API's sentence.
      await page.goto('/settings/acme-cas');
      await page.getByRole('heading', { name: 'ACME CAs', level: 1 }).waitFor();
      const cas = page.getByRole('form', { name: 'CAs asked, in order' });
      if ((await cas.getByLabel('Name').count()) === 0) await cas.getByRole('button', { name: 'Add a CA' }).click();
      while ((await cas.getByLabel('Name').count()) > 1) await cas.getByRole('button', { name: 'Remove CA 2' }).click();
      await cas.getByLabel('Name').fill('Local CA');
      await cas.getByLabel('Directory URL').fill('ftp://127.0.0.1/directory');
      await cas.getByRole('button', { name: 'Save CAs' }).click();
      await cas.getByRole('alert').getByText('[0].directoryUrl must be an http or https URL').waitFor();
      await cas.getByLabel('Directory URL').fill(acme.directoryUrl);
      await cas.getByRole('button', { name: 'Save CAs' }).click();
      await cas.getByRole('status').getByText('Saved.').waitFor();
      expect((await t.http.get('/api/v1/settings/acme-cas').set(bearer(admin)).expect(200)).body).toEqual([
        { name: 'Local CA', directoryUrl: acme.directoryUrl },
      ]);
      expect(await seriousViolations(page)).toEqual([]);

      // A certificate of that CA, its window ended: on its screen and counted on the dashboard.
      const minted = await mintCertificate({
        subject: `CN=overdue-${viewport.name}.example.com`,
        issuer: await issuingCa(`Browser CA ${viewport.name}`),
      });
      await manualEndpointWith(t, admin, `overdue-${viewport.name}`, minted.pem);
      await t.http.post('/api/v1/maintenance/tasks/refresh-renewal-info/run').set(bearer(admin)).expect(200);
      await page.goto(`/certificates/${fingerprintOf(minted)}`);
      const renewal = page.getByRole('definition').filter({ hasText: 'ended: renew now' });
      await renewal.waitFor();
      expect(await renewal.getByRole('link', { name: 'Why (from Local CA)' }).getAttribute('href')).toBe('https://ca.example/incident');
      expect(await seriousViolations(page)).toEqual([]);

      await page.goto('/');
      const overdue = page.getByRole('term').filter({ hasText: 'Renewal overdue' });
      await overdue.waitFor();
      expect(Number(await overdue.locator('xpath=following-sibling::dd[1]').textContent())).toBeGreaterThanOrEqual(1);
      expect(await seriousViolations(page)).toEqual([]);
    }, 90_000);
  }
});
