import type { Page } from 'playwright-core';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/*
 * The STARTTLS choice of a host endpoint (docs/api-contract.md section 13) in headless Chromium
 * against the real API: added with SMTP, shown on the detail, changed back to implicit TLS on the
 * edit screen. Every check of what the UI did reads it back through the API.
 */
describeWithChromium('the STARTTLS choice of a host endpoint in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  let admin: string;
  beforeEach(async () => {
    ({ app: t, page } = session);
    admin = await login(t);
  });

  const starttlsOf = async (id: string) =>
    ((await t.http.get(`/api/v1/endpoints/${id}`).set(bearer(admin)).expect(200)).body as { starttls: string | null }).starttls;
  const facts = () => page.locator('dl.facts');

  it('adds a host endpoint behind SMTP STARTTLS, shows it, and edits it back to implicit TLS', async () => {
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('link', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Add endpoint', level: 1 }).waitFor();

    const choice = page.getByLabel('STARTTLS');
    // None (implicit TLS) first and chosen, then the seven protocols.
    expect(await choice.inputValue()).toBe('');
    const options = await choice.locator('option').all();
    expect(await Promise.all(options.map((option) => option.getAttribute('value')))).toEqual([
      '',
      'smtp',
      'imap',
      'pop3',
      'ftp',
      'ldap',
      'postgres',
      'xmpp',
    ]);
    // Only a host connection can be upgraded: the choice goes with the other host fields.
    await page.getByLabel('SAML metadata').check();
    expect(await page.getByLabel('STARTTLS').count()).toBe(0);
    await page.getByLabel('Host (TLS)').check();

    await page.getByLabel('Name', { exact: true }).fill('Mail relay');
    await page.getByLabel('DNS name', { exact: true }).fill('mail.example.test');
    await page.getByLabel('Port', { exact: true }).fill('587');
    await page.getByLabel('STARTTLS').selectOption('smtp');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Mail relay', level: 1 }).waitFor();
    const id = /\/endpoints\/([0-9a-f-]{36})$/.exec(page.url())![1];
    expect(await starttlsOf(id)).toBe('smtp');
    await facts().getByText('STARTTLS', { exact: true }).waitFor();
    expect(await facts().locator('div').filter({ hasText: 'STARTTLS' }).locator('dd').textContent()).toBe('SMTP');

    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('button', { name: 'Save endpoint' }).waitFor();
    expect(await page.getByLabel('STARTTLS').inputValue()).toBe('smtp');
    await page.getByLabel('STARTTLS').selectOption('');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByRole('heading', { name: 'Mail relay', level: 1 }).waitFor();
    await facts().getByText('none (implicit TLS)').waitFor();
    expect(await starttlsOf(id)).toBeNull();
  }, 60_000);
});
