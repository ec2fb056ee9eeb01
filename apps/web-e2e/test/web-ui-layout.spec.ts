import { createHash } from 'node:crypto';
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { mintCertificate, type MintedCertificate } from '@certkeeper/domain/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { daysFrom } from '../../api/test/support/fake-clock';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createTestApp, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { describeWithChromium, launchChromium, SCREENSHOTS, seriousViolations, signIn, watchPage } from './support/web-browser';

/*
 * The web interface on any screen: every screen at 1280×800, 390×844 and 360×740 is no wider than
 * its window and passes axe-core in the light and the dark colour scheme; the navigation folds
 * behind a menu button on phones; the Expiring screen lists every current (endpoint, certificate)
 * pair, expired first, with its filters, pages and CSV, one click from the dashboard; urgency reads
 * without colour; the header's search finds certificates and endpoints; a new tab of a signed-in
 * browser is signed in, and a sign-out in one tab ends the others.
 *
 * `UPDATE_SCREENSHOTS=1 npx jest apps/api/test/web-ui-layout.spec.ts` also writes the screenshots
 * of docs/screenshots/ (viewport only, light, and a few dark).
 */
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SMALL_PHONE = { width: 360, height: 740 };
const DOC_SCREENSHOTS = join(__dirname, '../../../docs/screenshots');
const updateDocs = process.env.UPDATE_SCREENSHOTS === '1';

describeWithChromium('the web interface on any screen size, in both colour schemes', () => {
  let t: TestApp;
  let browser: Browser;
  let admin: string;
  let session: string;
  const contexts: BrowserContext[] = [];
  const watched: { cspViolations: string[]; pageErrors: string[] }[] = [];
  const ids = { web: '', portal: '', user: '', userEmail: '', network: '', fingerprint: '' };
  const certificates: Record<string, MintedCertificate> = {};

  const days = (n: number) => daysFrom(t.clock, n);

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    mkdirSync(join(SCREENSHOTS, 'layout'), { recursive: true });
    if (updateDocs) mkdirSync(DOC_SCREENSHOTS, { recursive: true });
    admin = await login(t);
    const create = async (name: string, tags: string[] = []) =>
      ((await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ name, type: 'manual', tags }).expect(201)).body as { id: string })
        .id;
    const upload = (endpointId: string, pem: string) =>
      t.http
        .post(`/api/v1/endpoints/${endpointId}/certificate`)
        .set(bearer(admin))
        .set('Content-Type', 'application/x-pem-file')
        .send(pem)
        .expect((response) => expect([200, 201]).toContain(response.status));
    // One certificate per urgency level under the default thresholds (30, 14, 7, 1 days), and one
    // in use on 55 endpoints so the Expiring screen has a second page.
    const levels: [string, number, string[]][] = [
      ['expired', -3, ['env:prod', 'level']],
      ['critical', 1, ['level']],
      ['warning', 4, ['env:prod', 'level']],
      ['notice', 19, ['level']],
      ['fine', 200, ['level']],
    ];
    for (const [name, offset, tags] of levels) {
      certificates[name] = await mintCertificate({
        subject: `CN=${name}.layout.test`,
        sans: [`${name}.layout.test`],
        notBefore: days(Math.min(offset, 0) - 60),
        notAfter: days(offset),
      });
      const id = await create(`${name}-endpoint`, tags);
      await upload(id, certificates[name].pem);
      if (name === 'warning') ids.web = id;
    }
    const shared = await mintCertificate({ subject: 'CN=shared.layout.test', sans: ['shared.layout.test'], notAfter: days(25) });
    for (let n = 1; n <= 55; n += 1) await upload(await create(`fleet-${String(n).padStart(2, '0')}`), shared.pem);
    ids.portal = await create('a-portal-with-a-rather-long-name-that-must-wrap-on-a-phone.layout.example.test', ['team:identity']);
    ids.fingerprint = createHash('sha256').update(certificates.warning.der).digest('hex');
    ({ id: ids.user, email: ids.userEmail } = await createUser(t, 'viewer'));
    ids.network = (
      (
        await t.http
          .post('/api/v1/discovery/networks')
          .set(bearer(admin))
          .send({ name: 'Office', ranges: ['127.0.0.1/32'] })
          .expect(201)
      ).body as { id: string }
    ).id;
    const { exp } = JSON.parse(Buffer.from(admin.split('.')[1], 'base64url').toString()) as { exp: number };
    const me = (await t.http.get('/api/v1/me').set(bearer(admin)).expect(200)).body as {
      id: string;
      email: string;
      name: string;
      role: string;
    };
    session = JSON.stringify({
      token: admin,
      expiresAt: new Date(exp * 1000).toISOString(),
      user: { id: me.id, email: me.email, name: me.name, role: me.role },
    });
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await t?.close();
  });
  afterEach(() => {
    for (const { cspViolations, pageErrors } of watched) {
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
    }
  });

  /** A fresh browser profile at one size and colour scheme; `signedIn` puts the admin's session in its first tab. */
  const openPage = async (viewport: { width: number; height: number }, options: { dark?: boolean; signedIn?: boolean } = {}) => {
    const context = await browser.newContext({ baseURL: t.baseUrl, viewport, colorScheme: options.dark ? 'dark' : 'light' });
    contexts.push(context);
    if (options.signedIn !== false) {
      await context.addInitScript({
        content: `if (!sessionStorage.getItem('certkeeper.session')) sessionStorage.setItem('certkeeper.session', ${JSON.stringify(session)});`,
      });
    }
    const page = await context.newPage();
    watched.push(watchPage(page));
    return page;
  };

  /** How far the page reaches past its window, in CSS pixels, and the widest elements that do. */
  const overflow = (page: Page) =>
    page.evaluate<{ excess: number; culprits: string[] }>(`(() => {
      const excess = document.documentElement.scrollWidth - window.innerWidth;
      const culprits = excess <= 0 ? [] : [...document.querySelectorAll('body *')]
        .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5 && !element.parentElement.closest('.table-scroll'))
        .slice(0, 12)
        .map((element) => element.tagName.toLowerCase() + (element.className ? '.' + String(element.className).split(' ').join('.') : '') + ' ' + Math.round(element.getBoundingClientRect().right) + 'px');
      return { excess, culprits };
    })()`);

  const shot = async (page: Page, name: string) => {
    await page.screenshot({ path: join(SCREENSHOTS, 'layout', `${name}.png`) });
    if (updateDocs) await page.screenshot({ path: join(DOC_SCREENSHOTS, `${name}.png`) });
  };

  /** Every screen of the app, with what shows once it has loaded. */
  const SCREENS: { name: string; path: () => string; ready: string | (() => string) }[] = [
    { name: 'sign-in', path: () => '/login', ready: 'heading:Sign in' },
    { name: 'dashboard', path: () => '/', ready: 'heading:Expiring certificates' },
    { name: 'expiring', path: () => '/expiring', ready: 'text:Certificates 1–50 of 59' },
    { name: 'endpoints', path: () => '/endpoints', ready: 'text:Endpoints 1–50 of 61' },
    { name: 'endpoint-new', path: () => '/endpoints/new', ready: 'heading:Add endpoint' },
    { name: 'endpoint-import', path: () => '/endpoints/import', ready: 'heading:Import endpoints' },
    { name: 'endpoint-detail', path: () => `/endpoints/${ids.web}`, ready: 'heading:Current certificates' },
    { name: 'endpoint-detail-long-name', path: () => `/endpoints/${ids.portal}`, ready: 'heading:Current certificates' },
    { name: 'endpoint-edit', path: () => `/endpoints/${ids.web}/edit`, ready: 'label:Name' },
    { name: 'certificates', path: () => '/certificates', ready: 'link:warning.layout.test' },
    { name: 'certificate-detail', path: () => `/certificates/${ids.fingerprint}`, ready: 'heading:Chain' },
    { name: 'discovery', path: () => '/discovery', ready: 'link:Office' },
    { name: 'discovery-network', path: () => `/discovery/networks/${ids.network}`, ready: 'heading:Office' },
    { name: 'discovery-inbox', path: () => '/discovery/inbox', ready: 'heading:Inbox' },
    { name: 'scanners', path: () => '/scanners', ready: 'heading:Scanners' },
    { name: 'settings', path: () => '/settings', ready: 'heading:Alert thresholds' },
    { name: 'settings-mail', path: () => '/settings/mail', ready: 'heading:Mail' },
    { name: 'settings-templates', path: () => '/settings/templates', ready: 'heading:Notification templates' },
    { name: 'settings-oidc', path: () => '/settings/oidc', ready: 'heading:Sign-in with OpenID Connect' },
    { name: 'settings-root-stores', path: () => '/settings/root-stores', ready: 'heading:Root stores' },
    { name: 'settings-acme-cas', path: () => '/settings/acme-cas', ready: 'heading:ACME CAs' },
    { name: 'settings-maintenance', path: () => '/settings/maintenance', ready: 'heading:Maintenance' },
    { name: 'users', path: () => '/users', ready: 'heading:Users' },
    { name: 'user-new', path: () => '/users/new', ready: 'heading:New user' },
    { name: 'user-edit', path: () => `/users/${ids.user}`, ready: () => `heading:User ${ids.userEmail}` },
    { name: 'audit', path: () => '/audit', ready: 'heading:Audit log' },
    { name: 'profile', path: () => '/profile', ready: 'heading:Profile' },
    { name: 'not-found', path: () => '/no-such-screen', ready: 'heading:Not found' },
  ];
  /** The screens shown in the dark scheme in docs/screenshots/ too. */
  const DARK_SHOTS = ['dashboard', 'expiring', 'endpoint-detail'];

  const waitReady = async (page: Page, ready: string) => {
    const [kind, text] = ready.split(/:(.*)/s);
    const main = page.getByRole('main');
    if (kind === 'heading') await main.getByRole('heading', { name: text, exact: true }).first().waitFor();
    else if (kind === 'link') await main.getByRole('link', { name: text, exact: true }).first().waitFor();
    else if (kind === 'label') await main.getByLabel(text, { exact: true }).first().waitFor();
    else await main.getByText(text, { exact: true }).first().waitFor();
    // No load still under way.
    await page.getByText('Loading…').waitFor({ state: 'detached' });
  };

  it('folds the navigation behind a menu button on a phone, and shows it on a desktop', async () => {
    const phone = await openPage(PHONE);
    await phone.goto('/');
    await phone.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const menu = phone.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await phone.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await shot(phone, 'navigation-menu-phone');
    await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Expiring' }).click();
    await phone.getByRole('heading', { name: 'Expiring', exact: true }).waitFor();
    // Moving to another screen folds the menu again.
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await phone.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);

    const desktop = await openPage(DESKTOP);
    await desktop.goto('/');
    await desktop.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Expiring' }).waitFor();
    expect(await desktop.getByRole('button', { name: 'Menu' }).count()).toBe(0);
  });

  it('lists every current pair on the Expiring screen, expired first, one click from the dashboard, with filters, pages and CSV', async () => {
    const page = await openPage(DESKTOP);
    await page.goto('/');
    // 10 rows in the panel out of 59: the expired one plus the 58 within the largest threshold (30 days).
    await page.getByText('10 of 59, expired first.').waitFor();
    await page.getByRole('link', { name: 'All 59 expiring within 30 days' }).click();
    await page.waitForURL('**/expiring?days=30');
    await page.getByText('Certificates 1–50 of 59').waitFor();
    const names = async () => page.getByRole('main').getByRole('row').locator('td:nth-child(2) a').allTextContents();
    expect((await names()).slice(0, 5)).toEqual([
      'expired-endpoint',
      'critical-endpoint',
      'warning-endpoint',
      'notice-endpoint',
      expect.stringMatching(/^fleet-/),
    ]);
    expect(await names()).not.toContain('fine-endpoint');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Certificates 51–59 of 59').waitFor();

    // The window, the tags (any of them) and the endpoint type, kept in the address.
    await page.getByLabel('Expiring within (days)').fill('7');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Certificates 1–3 of 3').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();
    await page.getByLabel('Tags').fill('env:prod');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Certificates 1–2 of 2').waitFor();
    expect(await names()).toEqual(['expired-endpoint', 'warning-endpoint']);
    // Each row names its endpoint's tags beside the endpoint.
    expect(await page.getByRole('cell', { name: /env:prod/ }).count()).toBe(2);
    await page.getByLabel('Endpoint type').selectOption('saml');
    await page.getByText('No certificate expires within 7 days.').waitFor();

    // A bad window typed into the address: the API's own sentence.
    await page.goto('/expiring?days=5000');
    expect(await page.getByRole('alert').textContent()).toMatch(/days/);

    // The CSV holds every matching pair, not one page.
    await page.goto('/expiring?days=365');
    await page.getByText('Certificates 1–50 of 60').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^certkeeper-certificates-expiring-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows: { endpointName: string }[] = parse(readFileSync(await download.path(), 'utf8'), { columns: true });
    expect(rows).toHaveLength(60);
    expect(rows.map((row) => row.endpointName).slice(0, 2)).toEqual(['expired-endpoint', 'critical-endpoint']);
    expect(rows.at(-1)).toMatchObject({ endpointName: 'fine-endpoint' });
  });

  it('shows the Expiring list as cards on a phone, with no sideways scroll', async () => {
    const page = await openPage(PHONE);
    await page.goto('/expiring');
    await page.getByText('Certificates 1–50 of 59').waitFor();
    const box = page.locator('.table-scroll');
    expect(await box.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    // Each card names its fields, days remaining first.
    const first = page.getByRole('main').getByRole('row').nth(1);
    expect(await page.evaluate<string>(`getComputedStyle(document.querySelector('main tbody td'), '::before').content`)).toBe(
      '"Days remaining"',
    );
    expect(await first.getByText('expired 3 days ago').isVisible()).toBe(true);
  });

  it("shows the endpoint list as cards on a phone: the first endpoint's days and health in view, its link and the sort order in reach", async () => {
    const page = await openPage(PHONE);
    await page.goto('/endpoints?sort=daysRemaining');
    await page.getByText('Endpoints 1–50 of 61').waitFor();
    expect((await overflow(page)).excess).toBeLessThanOrEqual(0);
    const box = page.locator('.table-scroll');
    expect(await box.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    // The soonest expiry first: the expired endpoint's card, with its days and health inside the window.
    const first = page.getByRole('main').locator('tbody tr').first();
    const inView = async (part: ReturnType<Page['locator']>) => {
      const rect = (await part.boundingBox())!;
      return rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= PHONE.width && rect.y + rect.height <= PHONE.height;
    };
    const days = first.locator('td[data-label="Days remaining"] .urgency');
    const health = first.locator('td[data-label="Health"] .health');
    expect(await days.textContent()).toBe('expired 3 days ago');
    expect(await health.textContent()).toBe('Expired');
    expect(await health.locator('svg.urgency-icon').count()).toBe(1);
    expect(await inView(days)).toBe(true);
    expect(await inView(health)).toBe(true);
    // Each card names its fields; the type and tags are there too.
    const label = (cell: string) =>
      page.evaluate<string>(`getComputedStyle(document.querySelector('main tbody tr td[data-label="${cell}"]'), '::before').content`);
    expect(await label('Health')).toBe('"Health"');
    expect(await first.locator('td[data-label="Type"]').textContent()).toBe('manual');
    expect(await first.locator('td[data-label="Tags"]').textContent()).toBe('env:prod, level');
    // The name still opens the endpoint, and the sortable headers stay as buttons in view.
    const sortByName = page.getByRole('button', { name: 'Name', exact: true });
    expect(await sortByName.isVisible()).toBe(true);
    expect(await inView(sortByName)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'endpoints-cards-phone');
    // The filters fold behind a button, which says how many are on.
    const filters = page.getByRole('button', { name: 'Filters' });
    expect(await page.getByLabel('Search', { exact: true }).isVisible()).toBe(false);
    await filters.click();
    expect(await filters.getAttribute('aria-expanded')).toBe('true');
    await page.getByLabel('Tags', { exact: true }).fill('level');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Endpoints 1–5 of 5').waitFor();
    expect(await filters.textContent()).toBe('Filters (1 on)');
    expect((await overflow(page)).excess).toBeLessThanOrEqual(0);
    await first.getByRole('link', { name: 'expired-endpoint' }).click();
    await page.getByRole('heading', { name: 'expired-endpoint', level: 1 }).waitFor();
  });

  it('tells each urgency level by words and shape as well as colour, in both colour schemes', async () => {
    for (const dark of [false, true]) {
      const page = await openPage(DESKTOP, { dark });
      await page.goto('/expiring?days=365&tag=level');
      await page.getByText('Certificates 1–5 of 5').waitFor();
      const badge = (endpoint: string) => page.getByRole('row').filter({ hasText: endpoint }).locator('.urgency');
      const levels = [
        ['expired-endpoint', /^expired 3 days ago$/, /^Expired: /],
        ['critical-endpoint', /^Critical: [01] days?$/, /^Critical: /],
        ['warning-endpoint', /^Warning: [34] days$/, /^Warning: /],
        ['notice-endpoint', /^Expires soon: 1[89] days$/, /^Expires soon: /],
        ['fine-endpoint', /^(199|200) days$/, /^Fine: /],
      ] as const;
      const shapes = new Set<string>();
      for (const [endpoint, text, title] of levels) {
        // What a screen reader reads, and the hover text, name the level; the icon has its own shape.
        expect(await badge(endpoint).textContent()).toMatch(text);
        expect(await badge(endpoint).getAttribute('title')).toMatch(title);
        shapes.add(await badge(endpoint).locator('svg').innerHTML());
      }
      expect(shapes.size).toBe(levels.length);
      // Expired and critical are told apart by lightness, which colour-vision deficiency keeps:
      // their badges' fills differ by a contrast ratio of 3 or more.
      // Expired sorts first, critical second.
      const [expiredFill, criticalFill] = await page.evaluate<string[]>(
        `[...document.querySelectorAll('main tbody .urgency')].slice(0, 2).map((badge) => getComputedStyle(badge).backgroundColor)`,
      );
      expect(contrast(expiredFill, criticalFill)).toBeGreaterThanOrEqual(3);
      expect(await seriousViolations(page)).toEqual([]);
    }
  });

  it("follows the browser's colour scheme", async () => {
    const page = await openPage(DESKTOP);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const colours = () =>
      page.evaluate<[string, string]>(
        `[getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.documentElement).color]`,
      );
    const [lightBackground, lightText] = await colours();
    expect(luminance(lightBackground)).toBeGreaterThan(0.9);
    expect(luminance(lightText)).toBeLessThan(0.1);
    await page.emulateMedia({ colorScheme: 'dark' });
    const [darkBackground, darkText] = await colours();
    expect(luminance(darkBackground)).toBeLessThan(0.05);
    expect(luminance(darkText)).toBeGreaterThan(0.6);
  });

  it('finds certificates and endpoints from the header, from 2 characters', async () => {
    const page = await openPage(PHONE);
    await page.goto('/endpoints');
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    const box = page.getByRole('searchbox', { name: 'Find a certificate or endpoint' });
    await box.fill('w');
    expect(await page.getByRole('list', { name: 'Search results' }).count()).toBe(0);
    await box.fill('warning');
    const results = page.getByRole('list', { name: 'Search results' });
    await results.getByRole('link', { name: 'Certificate warning.layout.test' }).waitFor();
    await shot(page, 'search-phone');
    await results.getByRole('link', { name: 'Endpoint warning-endpoint' }).click();
    await page.waitForURL(`**/endpoints/${ids.web}`);
    await page.getByRole('heading', { name: 'warning-endpoint' }).waitFor();
    expect(await box.inputValue()).toBe('');
    await box.fill('nothing-is-called-this');
    await page.getByText('Nothing matches.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('signs in a new tab of a signed-in browser without storage that outlives the tabs, and a sign-out ends every tab', async () => {
    const first = await openPage(DESKTOP, { signedIn: false });
    await first.goto('/login');
    await signIn(first, ADMIN_EMAIL, ADMIN_PASSWORD);
    await first.getByRole('heading', { name: 'Dashboard' }).waitFor();

    // A link opened in a new tab (or from an alert e-mail, in this browser) lands signed in.
    const second = await first.context().newPage();
    watched.push(watchPage(second));
    await second.goto('/endpoints?q=warning');
    await second.getByText('Endpoints 1–1 of 1').waitFor();
    expect(new URL(second.url()).pathname).toBe('/endpoints');
    const stored = JSON.parse((await second.evaluate<string | null>("sessionStorage.getItem('certkeeper.session')")) ?? '{}') as {
      token?: string;
    };
    expect(stored.token).toEqual(expect.any(String));
    // Nothing that outlives the tabs or travels with requests: no local storage, no cookie.
    expect(await second.evaluate<number>('localStorage.length')).toBe(0);
    expect(await first.context().cookies()).toEqual([]);

    // Another browser profile is not signed in.
    const stranger = await openPage(DESKTOP, { signedIn: false });
    await stranger.goto('/endpoints');
    await stranger.waitForURL(/\/login\?redirect=%2Fendpoints$/);

    // Signing out in the new tab ends the first tab's session too, which says why.
    await second.getByRole('button', { name: 'Sign out' }).click();
    await second.waitForURL('**/login');
    await first.waitForURL(/\/login/);
    await first.getByText('You signed out in another tab.').waitFor();
    const third = await first.context().newPage();
    watched.push(watchPage(third));
    await third.goto('/endpoints');
    await third.waitForURL(/\/login\?redirect=%2Fendpoints$/);
    // The server ended the token: it is not merely forgotten.
    await t.http.get('/api/v1/me').set(bearer(stored.token!)).expect(401);
  });

  describe.each([
    ['phone', PHONE],
    ['small-phone', SMALL_PHONE],
    ['desktop', DESKTOP],
  ])('at %s size', (size, viewport) => {
    // One tab per colour scheme, signed in and not, kept across the screens of this size.
    const pages = {} as Record<'light' | 'dark' | 'signedOutLight' | 'signedOutDark', Page>;
    beforeAll(async () => {
      pages.light = await openPage(viewport);
      pages.dark = await openPage(viewport, { dark: true });
      pages.signedOutLight = await openPage(viewport, { signedIn: false });
      pages.signedOutDark = await openPage(viewport, { dark: true, signedIn: false });
    });

    it.each(SCREENS.map((screen) => [screen.name, screen] as const))(
      '%s is no wider than the window and axe-core clean in light and dark',
      async (name, screen) => {
        const problems: string[] = [];
        for (const scheme of ['light', 'dark'] as const) {
          const page = name === 'sign-in' ? pages[scheme === 'light' ? 'signedOutLight' : 'signedOutDark'] : pages[scheme];
          await page.goto(screen.path());
          await waitReady(page, typeof screen.ready === 'string' ? screen.ready : screen.ready());
          const { excess, culprits } = await overflow(page);
          if (excess > 0) problems.push(`${scheme}: ${excess}px wider than ${viewport.width}px: ${culprits.join(', ')}`);
          // On a desktop a table fits its column too (the audit log's details wrap).
          if (size === 'desktop') {
            const scrolling = await page.evaluate<number>(
              `[...document.querySelectorAll('.table-scroll')].filter((box) => box.scrollWidth > box.clientWidth).length`,
            );
            if (scrolling > 0) problems.push(`${scheme}: ${scrolling} table(s) scroll sideways at ${viewport.width}px`);
          }
          for (const violation of await seriousViolations(page)) problems.push(`${scheme}: ${violation}`);
          if (size !== 'small-phone' && (scheme === 'light' || DARK_SHOTS.includes(name))) {
            await shot(page, `${name}-${size}${scheme === 'dark' ? '-dark' : ''}`);
          }
        }
        expect(problems).toEqual([]);
      },
      60_000,
    );
  });
});

/** Relative luminance (WCAG) of a CSS rgb()/rgba() colour. */
function luminance(colour: string): number {
  const [r, g, b] = (colour.match(/[\d.]+/g) ?? []).slice(0, 3).map((channel) => {
    const value = Number(channel) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two CSS colours. */
function contrast(one: string, other: string): number {
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}
