import { mintCertificate } from '@certkeeper/domain/testing';
import type { Locator, Page } from 'playwright-core';
import { DAY, HOUR } from '../../api/test/support/fake-clock';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createUser, login, manualEndpointWith, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn, SIZES } from './support/web-browser';

const IN_USE = 'What this means for the certificates in use';
const EXAMPLES = 'What this means for certificates of these lifetimes';

/*
 * The thresholds screen's short-lived certificates policy in headless Chromium against the real
 * API, at 1280×800 and 390×844 (docs/api-contract.md section 15): with no certificate in use it
 * works a few common lifetimes through the policy; with certificates in use, the lifetimes they
 * have (GET /certificates/lifetimes), most common first, their alert days following the form as
 * it is edited, before it is saved.
 */
describeWithChromium('the lifetimes in use on the thresholds screen', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  let admin: string;
  beforeEach(async () => {
    ({ app: t, page } = session);
    admin = await login(t);
  });

  /** Certificates of `hours` hours' lifetime, issued a day ago, each on its own manual endpoint; their endpoints' ids. */
  async function inUse(name: string, hours: number, count: number): Promise<string[]> {
    const notBefore = new Date(Math.floor((t.clock.now().getTime() - DAY) / 1000) * 1000);
    const ids: string[] = [];
    for (let n = 0; n < count; n += 1) {
      const minted = await mintCertificate({
        subject: `CN=${name}-${n}`,
        notBefore,
        notAfter: new Date(notBefore.getTime() + hours * HOUR),
      });
      ids.push(await manualEndpointWith(t, admin, `${name}-${n}`, minted.pem));
    }
    return ids;
  }

  const items = (list: Locator) => list.getByRole('listitem').allTextContents();

  for (const { name, viewport } of SIZES) {
    it(`works the policy through the lifetimes in use as it is edited, or a few common ones with none (${name})`, async () => {
      await t.http
        .put('/api/v1/settings/alert-policy')
        .set(bearer(admin))
        .send({ lifetimeAware: false, lifetimeFraction: 0.33 })
        .expect(200);
      await page.setViewportSize(viewport);
      await page.goto('/login');
      await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.waitForURL((url) => url.pathname !== '/login');

      // Nothing in use: the common lifetimes.
      await page.goto('/settings');
      const policy = page.getByRole('form', { name: 'Short-lived certificates' });
      const examples = policy.getByRole('list', { name: EXAMPLES });
      await examples.getByText('6-day certificates: alerts at 30, 14, 7 and 1 days').waitFor();
      await policy.getByText('No certificate is in use yet').waitFor();
      const aware = policy.getByLabel("Fit thresholds to each certificate's lifetime");
      await aware.check();
      await examples.getByText('6-day certificates: alerts at 2 and 1 days').waitFor();
      await examples.getByText('47-day certificates: alerts at 16, 14, 7 and 1 days').waitFor();
      await aware.uncheck();
      expect(await seriousViolations(page)).toEqual([]);

      // In use: 90-day (a second short, as ACME issues them), 160-hour (6.67 days: 7) and 47-day certificates.
      const endpoints = [
        ...(await inUse(`ninety-${name}`, 90 * 24 - 1 / 3600, 3)),
        ...(await inUse(`short-${name}`, 160, 2)),
        ...(await inUse(`month-${name}`, 47 * 24, 1)),
      ];
      await page.reload();
      const lifetimes = policy.getByRole('list', { name: IN_USE });
      await lifetimes.waitFor();
      await policy.getByText('For the lifetimes of the certificates in use, most common first:').waitFor();
      expect(await policy.getByRole('list', { name: EXAMPLES }).count()).toBe(0);
      expect(await items(lifetimes)).toEqual([
        '90-day certificates (3 in use): alerts at 30, 14, 7 and 1 days',
        '7-day certificates (2 in use): alerts at 30, 14, 7 and 1 days',
        '47-day certificates (1 in use): alerts at 30, 14, 7 and 1 days',
      ]);

      // Live as the form changes: on, then a fraction out of range (the last figures kept), then 50 %.
      await aware.check();
      await lifetimes.getByText('7-day certificates (2 in use): alerts at 3 and 1 days').waitFor();
      expect(await items(lifetimes)).toEqual([
        '90-day certificates (3 in use): alerts at 30, 14, 7 and 1 days',
        '7-day certificates (2 in use): alerts at 3 and 1 days',
        '47-day certificates (1 in use): alerts at 16, 14, 7 and 1 days',
      ]);
      const fraction = policy.getByLabel('Largest threshold, as a percentage of the lifetime (5 to 90)');
      await fraction.fill('95');
      await policy.getByRole('button', { name: 'Save policy' }).click();
      await policy.getByRole('alert').getByText('Enter a percentage from 5 to 90.').waitFor();
      await lifetimes.getByText('7-day certificates (2 in use): alerts at 3 and 1 days').waitFor();
      await fraction.fill('50');
      await lifetimes.getByText('7-day certificates (2 in use): alerts at 4 and 1 days').waitFor();
      await lifetimes.getByText('47-day certificates (1 in use): alerts at 24, 14, 7 and 1 days').waitFor();
      expect((await t.http.get('/api/v1/settings/alert-policy').set(bearer(admin)).expect(200)).body).toMatchObject({
        lifetimeAware: false,
        lifetimeFraction: 0.33,
      });
      await policy.getByRole('button', { name: 'Save policy' }).click();
      await policy.getByRole('status').getByText('Saved.').waitFor();
      expect((await t.http.get('/api/v1/settings/alert-policy').set(bearer(admin)).expect(200)).body).toMatchObject({
        lifetimeAware: true,
        lifetimeFraction: 0.5,
      });
      expect(await seriousViolations(page)).toEqual([]);

      // The next viewport starts with nothing in use again.
      for (const id of endpoints) await t.http.delete(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(204);
    }, 90_000);
  }

  it('shows an operator the stored policy worked through the lifetimes in use, with no control', async () => {
    await t.http.put('/api/v1/settings/alert-policy').set(bearer(admin)).send({ lifetimeAware: true, lifetimeFraction: 0.5 }).expect(200);
    await inUse('operator-short', 160, 1);
    const operator = await createUser(t, 'operator');
    await page.goto('/login');
    await signIn(page, operator.email, operator.password);
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.goto('/settings');
    const policy = page.getByRole('region', { name: 'Short-lived certificates' });
    await policy.getByRole('list', { name: IN_USE }).getByText('7-day certificates (1 in use): alerts at 4 and 1 days').waitFor();
    expect(await policy.getByRole('checkbox').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
