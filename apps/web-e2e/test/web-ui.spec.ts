import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import type { Browser, Page } from 'playwright-core';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  bearer,
  createTestApp,
  createUser,
  defaultScannerCredentials,
  login,
  type TestApp,
} from '../../api/test/support/test-app';
import { startIdentityProvider } from '../../api/test/support/oidc-provider';
import { SwappableTlsServer } from '../../api/test/support/tls-servers';
import {
  describeWithChromium,
  launchChromium,
  runAgentOnce,
  screenshot,
  seriousViolations,
  signIn as signInOn,
  watchPage,
} from './support/web-browser';

/*
 * The web interface in headless Chromium against the real API on the embedded PostgreSQL (the
 * shared browser helpers are in support/web-browser.ts). Each test ends with a screenshot under
 * test-output/web/ for a reviewer, and axe-core checks the main screens.
 */
describeWithChromium('the web interface in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[];
  let pageErrors: string[];
  const tls = new SwappableTlsServer();
  let certificate: MintedCertificate;
  // Whole seconds: certificates carry no milliseconds.
  const notAfter = new Date(Math.floor((Date.now() + 20 * 24 * 3600_000) / 1000) * 1000);
  const renewedNotAfter = new Date(notAfter.getTime() + 90 * 24 * 3600_000);

  beforeAll(async () => {
    certificate = await mintCertificate({ subject: 'CN=web.example.test', sans: ['web.example.test'], notAfter });
    await tls.serve('web.example.test', certificate);
    await tls.listen();
    t = await createTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await tls.close();
    await t?.close();
  });

  beforeEach(async () => {
    page = await browser.newPage({ baseURL: t.baseUrl });
    ({ cspViolations, pageErrors } = watchPage(page));
  });
  afterEach(async () => {
    await screenshot(page);
    await page.close();
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  const signIn = (email: string, password: string) => signInOn(page, email, password);

  it('is served by the API at / with its own CSP, the API keeping its behaviour', async () => {
    const html = await t.http.get('/endpoints/anything').expect(200);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.headers['cache-control']).toBe('no-cache');
    const csp = html.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    const script = /<script[^>]*src="([^"]+)"/.exec(html.text)![1];
    const asset = await t.http.get(script).expect(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    const unknown = await t.http.get('/api/v1/no-such-route').expect(404);
    expect(unknown.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(unknown.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    await t.http.get('/api-docs/openapi.json').expect(200);
    await t.http.get('/metrics').expect(401);
  });

  it('lets an admin sign in, add a host endpoint and see its certificate after the scan', async () => {
    await page.goto('/');
    await page.waitForURL('**/login');
    // The API's own sentence, next to the form.
    await signIn(ADMIN_EMAIL, 'wrong-password');
    await page.getByRole('alert').waitFor();
    expect((await page.getByRole('alert').textContent())?.length).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);

    await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('heading', { name: 'Expiring certificates' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    await page.getByText('No endpoint matches.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Add endpoint' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Web front');
    await page.getByLabel('Port', { exact: true }).fill(String(tls.port));
    // A host without a DNS name: the form says so next to the field before sending anything.
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('Enter the host’s DNS name or IP address.').waitFor();
    expect(await page.getByLabel('DNS name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('DNS name', { exact: true }).fill('web.example.test');
    await page.getByLabel(/^IP address/).fill('127.0.0.1');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Web front' }).waitFor();
    await page.getByText('waiting for the first scan').waitFor();

    // The default scanner's agent runs one cycle; the detail screen shows the certificate when it lands.
    const { token } = await defaultScannerCredentials(t, await login(t));
    await runAgentOnce(t.baseUrl, token);
    const current = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Current certificates' }) });
    const row = current.getByRole('row').filter({ hasText: 'web.example.test' });
    await row.waitFor({ timeout: 20_000 });
    // Subject, SANs and issuer (self-signed: the same name), its use, and the days left.
    expect(await row.getByRole('cell', { name: 'web.example.test', exact: true }).count()).toBe(2);
    await row.getByRole('cell', { name: 'tls', exact: true }).waitFor();
    expect(await row.getByText(/^(19|20) days$/).count()).toBe(1);
    const expires = row.locator('time');
    expect(await expires.getAttribute('title')).toBe(notAfter.toISOString());
    await page.getByRole('heading', { name: 'Scan history' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Renewed on the server: "Scan now" makes the endpoint due for its scanner, and the screen
    // shows the new certificate once the scan lands.
    const renewed = await mintCertificate({ subject: 'CN=web.example.test', sans: ['web.example.test'], notAfter: renewedNotAfter });
    await tls.serve('web.example.test', renewed);
    const endpointId = new URL(page.url()).pathname.split('/').pop()!;
    const due = async () =>
      (
        (await t.http.get('/api/v1/scanner/work?neverScanned=true').set(bearer(token)).expect(200)).body as {
          items: { endpointId: string }[];
        }
      ).items.map((item) => item.endpointId);
    expect(await due()).toEqual([]);
    await page.getByRole('button', { name: 'Scan now' }).click();
    await page.getByText('Scan requested: its scanner picks it up within seconds.').waitFor();
    expect(await page.getByRole('button', { name: 'Scan now' }).isDisabled()).toBe(true);
    expect(await due()).toEqual([endpointId]);
    expect(await seriousViolations(page)).toEqual([]);
    await runAgentOnce(t.baseUrl, token);
    await current.locator(`time[title="${renewedNotAfter.toISOString()}"]`).waitFor({ timeout: 20_000 });
    await page.getByText('Scan requested: its scanner picks it up within seconds.').waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Scan now' }).isDisabled()).toBe(false);
    expect(await due()).toEqual([]);
  });

  it('shows a viewer no edit actions', async () => {
    const viewer = await createUser(t, 'viewer');
    const endpoint = (
      await t.http
        .post('/api/v1/endpoints')
        .set(bearer(await login(t)))
        .send({ type: 'manual', name: 'Viewer sees this' })
        .expect(201)
    ).body as { id: string };
    await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).send(['env:prod']).expect(200);
    await page.goto('/endpoints');
    await page.waitForURL(/\/login\?redirect=%2Fendpoints$/);
    await signIn(viewer.email, viewer.password);
    await page.waitForURL('**/endpoints');
    // Subscribed to env:prod, the endpoint (untagged) is listed but not in the dashboard's count until asked for everything.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    const endpointsCount = page
      .getByRole('term')
      .filter({ hasText: /^Endpoints$/ })
      .locator('xpath=following-sibling::dd[1]');
    await page.getByRole('heading', { name: 'Expiring certificates' }).waitFor();
    expect(await endpointsCount.getByRole('link').textContent()).toBe('0');
    await page.getByLabel(/^Show every endpoint/).click();
    await page.waitForURL('**/?scope=all');
    // The box follows the address once the dashboard has re-read it: wait for the checked box, not a moment.
    await page.getByRole('checkbox', { name: /^Show every endpoint/, checked: true }).waitFor();
    await endpointsCount.getByRole('link', { name: /^[1-9]/ }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('link', { name: 'Viewer sees this' }).waitFor();
    expect(await page.getByRole('link', { name: 'Add endpoint' }).count()).toBe(0);
    await page.getByText('(viewer)').waitFor();

    // Typing the address of an edit screen leads back to the list.
    await page.goto('/endpoints/new');
    await page.waitForURL('**/endpoints');
    await page.goto(`/endpoints/${endpoint.id}`);
    await page.getByRole('heading', { name: 'Viewer sees this' }).waitFor();
    expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out']);
  });

  it('returns to sign-in on a 401 and back to where the person was', async () => {
    await page.goto('/login');
    await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.goto('/endpoints?q=web');
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();

    // The session ends on the server (as when signed out elsewhere); the next call answers 401.
    const stored = await page.evaluate<string | null>("sessionStorage.getItem('certkeeper.session')");
    const token = (JSON.parse(stored ?? '{}') as { token?: string }).token;
    await t.http.post('/api/v1/auth/logout').set(bearer(token!)).expect(204);
    await page.reload();
    await page.waitForURL(/\/login\?redirect=%2Fendpoints%3Fq%3Dweb$/);
    await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.waitForURL('**/endpoints?q=web');
    expect(await page.getByLabel('Search').inputValue()).toBe('web');

    // Signing out ends the session on the server too.
    const again = (
      JSON.parse((await page.evaluate<string | null>("sessionStorage.getItem('certkeeper.session')")) ?? '{}') as { token: string }
    ).token;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate<string | null>("sessionStorage.getItem('certkeeper.session')")).toBeNull();
    await t.http.get('/api/v1/me').set(bearer(again)).expect(401);
  });

  it('signs in through the OIDC button and returns to where the person was', async () => {
    // The browser comes back to the application's own address (PUBLIC_URL).
    t.config.publicUrl = t.baseUrl;
    const idp = await startIdentityProvider({ redirectUris: [`${t.baseUrl}/api/v1/auth/oidc/callback`] });
    try {
      await t.http
        .put('/api/v1/settings/oidc')
        .set(bearer(await login(t)))
        .send({
          enabled: true,
          issuerUrl: idp.issuer,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
          defaultRole: 'viewer',
          buttonLabel: 'Sign in with Test IdP',
        })
        .expect(200);
      idp.accounts.set('web-sso-1', { email: 'sso.viewer@certkeeper.test', email_verified: true, name: 'SSO Viewer' });
      idp.signInAs('web-sso-1');

      await page.goto('/endpoints?type=host');
      await page.waitForURL(/\/login\?redirect=/);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      await page.waitForURL('**/endpoints?type=host');
      await page.getByText('SSO Viewer (viewer)').waitFor();
      expect(await page.getByLabel('Type').inputValue()).toBe('host');

      // Signed in only through the provider: no password to change on the profile.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
      await page.getByRole('heading', { name: 'Password', level: 2 }).waitFor();
      await page.getByText('You sign in through single sign-on (OIDC): there is no password to change here.').waitFor();
      expect(await page.getByLabel('Current password').count()).toBe(0);
    } finally {
      await t.http
        .put('/api/v1/settings/oidc')
        .set(bearer(await login(t)))
        // Clearing the issuer while a secret is stored needs the secret again: cleared here.
        .send({ enabled: false, clientSecret: '' })
        .expect(200);
      await idp.close();
    }
  });
});
