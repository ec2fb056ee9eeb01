import { mintChain } from '@certkeeper/domain/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hostScanResult } from '../../api/test/support/scan-results';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  bearer,
  createTestApp,
  defaultScannerCredentials,
  login,
  type TestApp,
} from '../../api/test/support/test-app';
import { describeWithChromium, launchChromium, screenshot, seriousViolations, signIn, watchPage, SIZES } from './support/web-browser';

/*
 * What is wrong with an endpoint, not only its date (docs/api-contract.md section 18), at 1280×800
 * and 390×844: the endpoint list's findings column (critical first) and its findings filter, the
 * endpoint's screen saying what to do about each, and the certificate's revocation state. Every
 * screen passes axe-core and is no wider than its window.
 */

describeWithChromium('the web interface shows findings and revocation', () => {
  let t: TestApp;
  let browser: Browser;
  const ids = { wrongHost: '', fine: '', leaf: '' };

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    const admin = await login(t);
    const scanner = (await defaultScannerCredentials(t, admin)).token;
    const chain = await mintChain();
    const create = async (name: string, dnsName: string) =>
      ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name, dnsName }).expect(201)).body as { id: string }).id;
    ids.wrongHost = await create('shop', 'shop.example.com');
    ids.fine = await create('leaf', 'leaf.example.com');
    await t.http
      .post('/api/v1/scanner/results')
      .set(bearer(scanner))
      .send({
        results: [
          hostScanResult(ids.wrongHost, [chain.leaf], t.clock.now()),
          hostScanResult(ids.fine, [chain.leaf, chain.intermediate, chain.root], t.clock.now()),
        ],
      })
      .expect(200);
    // The test app trusts no root store: "leaf" is untrusted, which it chooses to ignore.
    await t.http
      .patch(`/api/v1/endpoints/${ids.fine}`)
      .set(bearer(admin))
      .send({ ignoredFindings: ['untrusted'] })
      .expect(200);
    ids.leaf = (
      (await t.http.get(`/api/v1/endpoints/${ids.fine}`).set(bearer(admin)).expect(200)).body as {
        currentCertificates: { fingerprint: string }[];
      }
    ).currentCertificates[0].fingerprint;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  describe.each(SIZES)('at $name size', ({ viewport }) => {
    let context: BrowserContext;
    let page: Page;
    let watched: ReturnType<typeof watchPage>;

    beforeEach(async () => {
      context = await browser.newContext({ baseURL: t.baseUrl, viewport });
      page = await context.newPage();
      watched = watchPage(page);
      await page.goto('/login');
      await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    });
    afterEach(async () => {
      await screenshot(page);
      await context.close();
      expect(watched.cspViolations).toEqual([]);
      expect(watched.pageErrors).toEqual([]);
    });

    const fitsAndPassesAxe = async () => {
      expect(await seriousViolations(page)).toEqual([]);
      expect(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    };

    it('lists each endpoint’s findings, critical first, and filters by one', async () => {
      await page.goto('/endpoints');
      const shop = page.getByRole('row').filter({ hasText: 'shop' });
      await shop.getByText('Wrong host name').waitFor();
      expect(await shop.getByRole('listitem').allTextContents()).toEqual(['Wrong host name', 'Untrusted', 'Incomplete chain']);
      expect(await page.getByRole('row').filter({ hasText: 'leaf' }).getByText('none').count()).toBe(1);
      await fitsAndPassesAxe();

      // On a phone the filters fold behind a button.
      if (viewport.width < 640) await page.getByRole('button', { name: 'Filters', expanded: false }).click();
      await page.getByLabel('Findings').selectOption({ label: 'Wrong host name' });
      await page.waitForURL(/finding=hostname_mismatch/);
      // The list keeps the previous page shown while the next loads: wait for the row to go.
      await page.getByRole('row').filter({ hasText: 'leaf.example.com' }).waitFor({ state: 'detached' });
      expect(await page.getByRole('row').filter({ hasText: 'shop.example.com' }).count()).toBe(1);

      await page.getByLabel('Findings').selectOption({ label: 'No findings' });
      await page.waitForURL(/has_findings=false/);
      await page.getByRole('row').filter({ hasText: 'shop.example.com' }).waitFor({ state: 'detached' });
      expect(await page.getByRole('row').filter({ hasText: 'leaf.example.com' }).count()).toBe(1);
    });

    it('says on the endpoint’s screen what to do about each finding, and which it ignores', async () => {
      await page.goto(`/endpoints/${ids.wrongHost}`);
      const findings = page.getByRole('region', { name: 'Findings' });
      await findings.getByText(/does not cover the endpoint’s DNS name: issue one whose names include it/).waitFor();
      expect(await findings.getByRole('listitem').count()).toBe(3);
      await fitsAndPassesAxe();

      await page.goto(`/endpoints/${ids.fine}`);
      await page.getByText('Nothing wrong found.').waitFor();
      await page.getByText('Ignored for this endpoint: Untrusted.').waitFor();
    });

    it('says on the certificate’s screen whether it was checked for revocation', async () => {
      await page.goto(`/certificates/${ids.leaf}`);
      await page.getByText(/not checked yet/).waitFor();
      await fitsAndPassesAxe();
    });
  });
});
