import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { mintCertificate } from '@certkeeper/domain/testing';
import type { Page } from 'playwright-core';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, runAgentOnce, seriousViolations, signIn } from './support/web-browser';

/*
 * The forms' own checks, the scanner's agent commands, the root-store import, the alert e-mail
 * switch and the first-run checklist, in headless Chromium against the real API, at a desktop
 * (1280×800) and a phone (390×844) size. Every slip is shown at once by its field, nothing is
 * sent and nothing typed is lost; what the API still refuses is shown as it said it.
 */
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
type Viewport = (typeof VIEWPORTS)[number];

// `DOC_SCREENSHOTS=docs/screenshots npx jest apps/api/test/web-ui-forms.spec.ts` refreshes the documentation's screenshots.
const DOC_SCREENSHOTS = process.env.DOC_SCREENSHOTS;

describeWithChromium('forms, agent commands, root-store import, alert e-mails and onboarding in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  let admin: string;
  beforeEach(async () => {
    ({ app: t, page } = session);
    admin = await login(t);
  });

  async function open(viewport: Viewport, path: string, heading: string, as: { email: string; password: string } = adminUser) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.goto('/login');
    await signIn(page, as.email, as.password);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.goto(path);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }
  const adminUser = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD };

  /** The screen as a person sees it: no serious axe finding, and (when asked) a viewport PNG for docs/screenshots. */
  async function looked(viewport: Viewport, name: string) {
    expect(await seriousViolations(page)).toEqual([]);
    if (DOC_SCREENSHOTS) {
      mkdirSync(DOC_SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(DOC_SCREENSHOTS, `web29b-${name}-${viewport.name}.png`) });
    }
  }

  /** The sentence shown by a field, through the input's aria-describedby, as assistive technology reads it. */
  async function sentenceOf(label: ReturnType<Page['getByLabel']>): Promise<string | null> {
    // A field may also be described by a hint; its sentence is the one whose id ends in -error.
    const id = (await label.getAttribute('aria-describedby'))?.split(' ').find((one) => one.endsWith('-error'));
    if (!id) return null;
    expect(await label.getAttribute('aria-invalid')).toBe('true');
    return page.locator(`[id="${id}"]`).textContent();
  }

  const endpointCount = async () =>
    ((await t.http.get('/api/v1/endpoints').set(bearer(admin)).expect(200)).body as { totalCount: number }).totalCount;

  describe('the first-run checklist', () => {
    it('lists what is left for an admin, ticks each step as the API says it is done and goes once all are', async () => {
      const viewport = VIEWPORTS[0];
      expect(await endpointCount()).toBe(0);
      await open(viewport, '/', 'Dashboard');
      const checklist = page.getByRole('region', { name: 'Getting started' });
      await checklist.getByText('3 of 3 steps left.').waitFor();
      await looked(viewport, 'onboarding');
      // Each step links to where it is done.
      await checklist.getByRole('link', { name: 'Import a CSV file' }).click();
      await page.getByRole('heading', { name: 'Import endpoints', level: 1 }).waitFor();
      await page.goBack();
      await checklist.getByRole('link', { name: 'Mail settings' }).click();
      await page.getByRole('heading', { name: 'Mail', level: 1 }).waitFor();
      await page.goBack();

      // Done elsewhere (through the API): the checklist reads it at the next visit.
      await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ type: 'manual', name: 'first' }).expect(201);
      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(admin))
        .send({ enabled: true, host: '127.0.0.1', port: 2525, tlsMode: 'none', auth: 'none', fromAddress: 'certkeeper@forms.test' })
        .expect(200);
      await page.reload();
      await checklist.getByText('1 of 3 steps left.').waitFor();
      expect(await checklist.getByText('(done)').count()).toBe(2);
      expect(await checklist.getByRole('link', { name: 'Add an endpoint' }).count()).toBe(0);
      await checklist.getByRole('link', { name: 'Your profile' }).waitFor();

      await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(admin)).send(['env:prod']).expect(200);
      await page.reload();
      await page.getByRole('heading', { name: 'Expiring certificates' }).waitFor();
      expect(await page.getByRole('region', { name: 'Getting started' }).count()).toBe(0);
      await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(admin)).send([]).expect(200);
    });

    it('offers a viewer only the steps a viewer takes, and stays dismissed for that person only', async () => {
      const viewport = VIEWPORTS[1];
      const [viewer, other] = [await createUser(t, 'viewer'), await createUser(t, 'viewer')];
      await open(viewport, '/', 'Dashboard', viewer);
      const checklist = page.getByRole('region', { name: 'Getting started' });
      // An endpoint exists; no mail step (a viewer cannot see settings), no link to add endpoints.
      await checklist.getByText('1 of 2 steps left.').waitFor();
      expect(await checklist.getByText(/Set up mail/).count()).toBe(0);
      expect(await checklist.getByRole('link', { name: 'Add an endpoint' }).count()).toBe(0);
      await looked(viewport, 'onboarding');
      await checklist.getByRole('button', { name: 'Dismiss the checklist' }).click();
      expect(await checklist.count()).toBe(0);
      await page.reload();
      await page.getByRole('heading', { name: 'Expiring certificates' }).waitFor();
      expect(await page.getByRole('region', { name: 'Getting started' }).count()).toBe(0);

      // Another person in the same browser still gets it. On a phone, sign-out is behind the menu.
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.goto('/login');
      await signIn(page, other.email, other.password);
      await page.getByRole('region', { name: 'Getting started' }).getByText('1 of 2 steps left.').waitFor();
    });
  });

  describe('the endpoint forms', () => {
    for (const viewport of VIEWPORTS) {
      it(`shows every slip at once, keeps what was typed and links a duplicate to its endpoint (${viewport.name})`, async () => {
        const before = await endpointCount();
        await open(viewport, '/endpoints/new', 'Add endpoint');
        const dnsName = page.getByLabel('DNS name', { exact: true });
        const port = page.getByLabel('Port', { exact: true });
        const tags = page.getByLabel(/^Tags/);
        const name = page.getByLabel('Name', { exact: true });
        await dnsName.fill('https://www.example.com/');
        await port.fill('70000');
        await tags.fill(`env:prod, ${'x'.repeat(101)}`);
        await page.getByRole('button', { name: 'Add endpoint' }).click();

        await page.getByText('Nothing was sent: correct the 4 marked fields.').waitFor();
        expect(await sentenceOf(name)).toBe('Enter a name.');
        expect(await sentenceOf(dnsName)).toBe('Enter the host name alone, without “https://”.');
        expect(await sentenceOf(port)).toBe('The port is a whole number from 1 to 65535.');
        expect(await sentenceOf(tags)).toMatch(/is 101 characters long: at most 100\.$/);
        // The first field to fix has the focus; what was typed is all still there; nothing reached the API.
        expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe(await name.getAttribute('id'));
        expect(await dnsName.inputValue()).toBe('https://www.example.com/');
        expect(await port.inputValue()).toBe('70000');
        expect(await endpointCount()).toBe(before);
        await looked(viewport, 'endpoint-form-problems');

        // Corrected: created, and the sentences gone.
        const host = `dup-${viewport.name}.forms.test`;
        await name.fill(`web ${viewport.name}`);
        await dnsName.fill(host);
        await port.fill('8443');
        await tags.fill('env:prod');
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        await page.getByRole('heading', { name: `web ${viewport.name}`, level: 1 }).waitFor();
        const existingId = new URL(page.url()).pathname.split('/').pop()!;

        // The same host and port again: the API's 409, said in words, with the endpoint it duplicates linked.
        await page.goto('/endpoints/new');
        await name.fill(`web ${viewport.name} again`);
        await dnsName.fill(host);
        await port.fill('8443');
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        await page
          .getByRole('alert')
          .getByText(/^This host, port and IP address on this scanner are already watched by/)
          .waitFor();
        const existing = page.getByRole('link', { name: `web ${viewport.name}`, exact: true });
        expect(await existing.getAttribute('href')).toBe(`/endpoints/${existingId}`);
        expect(await name.inputValue()).toBe(`web ${viewport.name} again`);
        await looked(viewport, 'endpoint-duplicate');
        await existing.click();
        await page.getByRole('heading', { name: `web ${viewport.name}`, level: 1 }).waitFor();
        // The tag editor on the detail screen: a tag too long is named, and stays typed to be shortened.
        const tooLong = `team:${'y'.repeat(100)}`;
        await page.getByLabel('Tag to add').fill(tooLong);
        await page.getByRole('button', { name: 'Add tag' }).click();
        await page
          .getByRole('alert')
          .getByText(/is 105 characters long: at most 100\.$/)
          .waitFor();
        expect(await page.getByLabel('Tag to add').inputValue()).toBe(tooLong);

        // SAML and manual check their own fields only.
        await page.goto('/endpoints/new');
        await page.getByRole('radio', { name: 'SAML metadata' }).check();
        await page.getByLabel('Metadata URL').fill('idp.example.com/metadata');
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        await page.getByText('Nothing was sent: correct the 2 marked fields.').waitFor();
        expect(await sentenceOf(page.getByLabel('Metadata URL'))).toMatch(/^“idp\.example\.com\/metadata” is not a web address/);
        await page.getByRole('radio', { name: /^Manual/ }).check();
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        await page.getByText('Nothing was sent: correct the marked field.').waitFor();
        expect(await sentenceOf(name)).toBe('Enter a name.');

        // Editing checks the same way.
        await page.goto(`/endpoints/${existingId}/edit`);
        await page.getByRole('heading', { name: `Edit web ${viewport.name}`, level: 1 }).waitFor();
        await page.getByLabel(/^IP address/).fill('10.0.0.300');
        await port.fill('0');
        await page.getByRole('button', { name: 'Save endpoint' }).click();
        await page.getByText('Nothing was sent: correct the 2 marked fields.').waitFor();
        expect(await sentenceOf(page.getByLabel(/^IP address/))).toMatch(/^“10\.0\.0\.300” is not an IP address/);
        expect(await sentenceOf(port)).toBe('The port is a whole number from 1 to 65535.');
        await looked(viewport, 'endpoint-edit-problems');
      });
    }
  });

  describe('the scanner, user, network, mail and certificate forms', () => {
    for (const viewport of VIEWPORTS) {
      it(`check every field before sending (${viewport.name})`, async () => {
        await open(viewport, '/scanners', 'Scanners');
        const newScanner = page.getByRole('form', { name: 'New scanner' });
        await newScanner.getByLabel(/^Schedule/).fill('every hour');
        await newScanner.getByLabel(/^Concurrency/).fill('0');
        await newScanner.getByRole('button', { name: 'Create scanner' }).click();
        await newScanner.getByText('Nothing was sent: correct the 3 marked fields.').waitFor();
        expect(await sentenceOf(newScanner.getByLabel('Name', { exact: true }))).toBe('Enter a name.');
        expect(await sentenceOf(newScanner.getByLabel(/^Schedule/))).toMatch(/^A schedule is 5 fields separated by spaces/);
        expect(await sentenceOf(newScanner.getByLabel(/^Concurrency/))).toBe('The concurrency is a whole number from 1 to 256.');
        expect(await newScanner.getByLabel(/^Schedule/).inputValue()).toBe('every hour');
        await looked(viewport, 'scanner-form-problems');

        await page.goto('/users/new');
        const newUser = page.getByRole('form', { name: 'New user' });
        await newUser.getByLabel('E-mail', { exact: true }).fill('dana');
        await newUser.getByLabel(/^Password/).fill('short');
        await newUser.getByRole('button', { name: 'Create user' }).click();
        await newUser.getByText('Nothing was sent: correct the 2 marked fields.').waitFor();
        expect(await sentenceOf(newUser.getByLabel('E-mail', { exact: true }))).toBe(
          '“dana” is not an e-mail address: it reads like name@example.com.',
        );
        expect(await sentenceOf(newUser.getByLabel(/^Password/))).toBe('The password is 5 characters long: at least 8.');
        await looked(viewport, 'user-form-problems');

        await page.goto('/discovery');
        const network = page.getByRole('form', { name: 'New network' });
        await network.getByLabel(/^Ports/).fill('443, 70000');
        await network.getByLabel(/^Sweep schedule/).fill('daily');
        await network.getByRole('button', { name: 'Create network' }).click();
        await network.getByText('Nothing was sent: correct the 4 marked fields.').waitFor();
        expect(await sentenceOf(network.getByLabel(/^Ports/))).toBe('“70000” is not a port: each is a whole number from 1 to 65535.');
        expect(await sentenceOf(network.getByLabel(/^Ranges/))).toBe('Enter at least one address, CIDR block or range.');
        await looked(viewport, 'network-form-problems');

        await page.goto('/settings/mail');
        const mail = page.getByRole('form', { name: 'SMTP server' });
        await mail.getByLabel('Port').fill('70000');
        await mail.getByLabel('From address').fill('alerts at example.com');
        await mail.getByRole('button', { name: 'Save mail settings' }).click();
        await mail.getByText('Nothing was sent: correct the 2 marked fields.').waitFor();
        expect(await sentenceOf(mail.getByLabel('Port'))).toBe('The port is a whole number from 1 to 65535.');
        expect(await sentenceOf(mail.getByLabel('From address'))).toMatch(/is not an e-mail address/);
        await looked(viewport, 'mail-form-problems');

        await page.goto('/settings');
        const thresholds = page.getByRole('form', { name: 'Change the thresholds' });
        await thresholds.getByLabel(/^Days before expiry/).fill('30, soon');
        await thresholds.getByRole('button', { name: 'Save thresholds' }).click();
        expect(await sentenceOf(thresholds.getByLabel(/^Days before expiry/))).toBe(
          '“soon” is not a number of days: each is a whole number from 1 to 3650.',
        );

        await page.goto('/settings/oidc');
        const oidc = page.getByRole('form', { name: 'Provider' });
        await oidc.getByLabel('Offer sign-in with this provider').check();
        await oidc.getByLabel(/^Scopes/).fill('email profile');
        await oidc.getByRole('button', { name: 'Save sign-in settings' }).click();
        await oidc.getByText('Nothing was sent: correct the 3 marked fields.').waitFor();
        expect(await sentenceOf(oidc.getByLabel('Issuer URL'))).toBe('Enter the issuer URL to enable sign-in.');
        expect(await sentenceOf(oidc.getByLabel('Client id'))).toBe('Enter the client id to enable sign-in.');
        expect(await sentenceOf(oidc.getByLabel(/^Scopes/))).toBe('The scopes include openid, such as “openid email profile”.');
        await looked(viewport, 'oidc-form-problems');

        await page.goto('/certificates');
        const upload = page.getByRole('form', { name: 'Upload certificates' });
        await upload.getByRole('button', { name: 'Upload', exact: true }).click();
        expect(await sentenceOf(upload.getByLabel('PEM', { exact: true }))).toBe('Paste a certificate in PEM form, or pick a file.');
        const key = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
        await upload.getByLabel('PEM', { exact: true }).fill(key);
        await upload.getByRole('button', { name: 'Upload', exact: true }).click();
        await upload.getByText(/holds no certificate/).waitFor();
        expect(await upload.getByLabel('PEM', { exact: true }).inputValue()).toBe(key);
        await looked(viewport, 'certificate-upload-problems');
      });
    }
  });

  /** Counts the requests the page sends from now on with this method to a path matching `path`: what reached the server. */
  function countRequests(method: string, path: RegExp): { readonly count: number } {
    const counter = { count: 0 };
    page.on('request', (request) => {
      if (request.method() === method && path.test(new URL(request.url()).pathname)) counter.count += 1;
    });
    return counter;
  }

  describe('the upload, user edit, subscription and test recipient forms', () => {
    for (const viewport of VIEWPORTS) {
      it(`name each slip by its field and send nothing; the API's refusals go by their field (${viewport.name})`, async () => {
        // An endpoint's upload: nothing given, a PEM holding a key, a file over the 10 MiB limit.
        const endpoint = (
          await t.http
            .post('/api/v1/endpoints')
            .set(bearer(admin))
            .send({ type: 'manual', name: `upload ${viewport.name}` })
            .expect(201)
        ).body as { id: string };
        await open(viewport, `/endpoints/${endpoint.id}`, `upload ${viewport.name}`);
        const uploads = countRequests('POST', /^\/api\/v1\/endpoints\/[^/]+\/certificate$/);
        const upload = page.getByRole('form', { name: 'Upload a certificate' });
        const pem = upload.getByLabel('Or paste the PEM');
        const file = upload.getByLabel(/^Certificate file/);
        await upload.getByRole('button', { name: 'Upload certificate' }).click();
        await upload.getByText('Nothing was sent: correct the marked field.').waitFor();
        expect(await sentenceOf(pem)).toBe('Paste a certificate in PEM form, or pick a file.');
        expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe(await pem.getAttribute('id'));
        const key = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
        await pem.fill(key);
        await upload.getByRole('button', { name: 'Upload certificate' }).click();
        await upload.getByText(/holds no certificate/).waitFor();
        expect(await sentenceOf(pem)).toMatch(/^This PEM holds no certificate \(it starts with “-----BEGIN PRIVATE KEY-----”\)/);
        expect(await pem.inputValue()).toBe(key);
        await file.setInputFiles({ name: 'huge.pem', mimeType: 'application/x-pem-file', buffer: Buffer.alloc(11 * 1024 * 1024, 0x41) });
        await upload.getByRole('button', { name: 'Upload certificate' }).click();
        await upload.getByText('huge.pem is 11.0 MiB: at most 10 MiB can be uploaded here.').waitFor();
        expect(await sentenceOf(file)).toBe('huge.pem is 11.0 MiB: at most 10 MiB can be uploaded here.');
        expect(await sentenceOf(pem)).toBeNull();
        await looked(viewport, 'endpoint-upload-problems');
        expect(uploads.count).toBe(0);
        // Armour around no certificate passes the form's check: the API's sentence stands by the PEM field.
        const broken = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n';
        await pem.fill(broken);
        await upload.getByRole('button', { name: 'Upload certificate' }).click();
        await upload
          .locator('#upload-pem-error')
          .getByText(/^certificate 1: /)
          .waitFor();
        expect(await sentenceOf(file)).toBeNull();
        expect(uploads.count).toBe(1);

        // A user's edit: an address that is none and a password too short, both at once.
        const user = await createUser(t, 'viewer');
        await page.goto(`/users/${user.id}`);
        await page.getByRole('heading', { name: `User ${user.email}`, level: 1 }).waitFor();
        const edits = countRequests('PUT', /^\/api\/v1\/users\//);
        const form = page.getByRole('form', { name: 'Edit user' });
        const email = form.getByLabel('E-mail', { exact: true });
        await email.fill('dana');
        await form.getByLabel(/^New password/).fill('short');
        await form.getByRole('button', { name: 'Save user' }).click();
        await form.getByText('Nothing was sent: correct the 2 marked fields.').waitFor();
        expect(await sentenceOf(email)).toBe('“dana” is not an e-mail address: it reads like name@example.com.');
        expect(await sentenceOf(form.getByLabel(/^New password/))).toBe('The password is 5 characters long: at least 8.');
        expect(await form.getByLabel(/^New password/).inputValue()).toBe('short');
        expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe(await email.getAttribute('id'));
        await looked(viewport, 'user-edit-problems');
        expect(edits.count).toBe(0);
        // Another user's address: the API's 409 by the e-mail field, and nothing saved.
        await email.fill(ADMIN_EMAIL);
        await form.getByLabel(/^New password/).fill('');
        await form.getByRole('button', { name: 'Save user' }).click();
        await form.locator('#edit-user-email-error').getByText('A user with this e-mail address already exists.').waitFor();
        expect(edits.count).toBe(1);
        expect(((await t.http.get(`/api/v1/users/${user.id}`).set(bearer(admin)).expect(200)).body as { email: string }).email).toBe(
          user.email,
        );

        // A tag subscription: too long, an invisible character; neither is added nor sent.
        await page.goto('/profile');
        await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
        const subscriptions = countRequests('PUT', /^\/api\/v1\/me\/tag-subscriptions$/);
        const tag = page.getByLabel(/^Tag to add/);
        await tag.fill(`team:${'t'.repeat(96)}`);
        await page.getByRole('button', { name: 'Add tag' }).click();
        await page.locator('#subscription-tag-error').waitFor();
        expect(await sentenceOf(tag)).toMatch(/^The tag “team:t{15}…” is 101 characters long: at most 100\.$/);
        await tag.fill('env:\u200bprod');
        await page.getByRole('button', { name: 'Add tag' }).click();
        await page
          .locator('#subscription-tag-error')
          .getByText(/invisible character/)
          .waitFor();
        expect(await tag.inputValue()).toBe('env:\u200bprod');
        expect(await page.getByRole('list', { name: 'Subscribed tags' }).count()).toBe(0);
        expect(await page.getByRole('button', { name: 'Save subscriptions' }).isDisabled()).toBe(true);
        await looked(viewport, 'subscription-problems');
        // A hundred subscriptions are the most: the hundred-and-first is named, not sent.
        const hundred = Array.from({ length: 100 }, (_, index) => `team:${index}`);
        await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(admin)).send(hundred).expect(200);
        await page.reload();
        await page.getByRole('list', { name: 'Subscribed tags' }).waitFor();
        await tag.fill('team:extra');
        await page.getByRole('button', { name: 'Add tag' }).click();
        await page
          .locator('#subscription-tag-error')
          .getByText(/^You follow 100 tags, the most there can be/)
          .waitFor();
        expect(subscriptions.count).toBe(0);
        await t.http.put('/api/v1/me/tag-subscriptions').set(bearer(admin)).send([]).expect(200);

        // The test e-mail's recipient: no address, not sent; one the API still refuses, by the field.
        await page.goto('/settings/mail');
        await page.getByRole('heading', { name: 'Mail', level: 1 }).waitFor();
        const tests = countRequests('POST', /^\/api\/v1\/settings\/mail\/test$/);
        const mailTest = page.getByRole('form', { name: 'Send a test e-mail' });
        const recipient = mailTest.getByLabel('Recipient');
        await recipient.fill('ops at example.com');
        await mailTest.getByRole('button', { name: 'Send a test e-mail' }).click();
        await mailTest.getByText('Nothing was sent: correct the marked field.').waitFor();
        expect(await sentenceOf(recipient)).toBe('“ops at example.com” is not an e-mail address: it reads like name@example.com.');
        expect(await recipient.getAttribute('aria-describedby')).toBe('mail-test-to-hint mail-test-to-error');
        await looked(viewport, 'mail-test-problems');
        expect(tests.count).toBe(0);
        // The API wants a domain with a dot where the form lets a single label through.
        await recipient.fill('ops@localhost');
        await mailTest.getByRole('button', { name: 'Send a test e-mail' }).click();
        await mailTest.locator('#mail-test-to-error').getByText('to must be an e-mail address').waitFor();
        expect(tests.count).toBe(1);
      });
    }
  });

  describe('a new scanner token', () => {
    for (const viewport of VIEWPORTS) {
      it(`comes with the commands that run its agent, each copied whole (${viewport.name})`, async () => {
        await open(viewport, '/scanners', 'Scanners');
        const newScanner = page.getByRole('form', { name: 'New scanner' });
        await newScanner.getByLabel('Name', { exact: true }).fill(`agent-${viewport.name}`);
        await newScanner.getByRole('button', { name: 'Create scanner' }).click();
        const token = await page.getByLabel('Scanner token', { exact: true }).inputValue();
        expect(token).toMatch(/^stx_s_/);
        const origin = new URL(page.url()).origin;

        const npm = await page.getByLabel('From a checkout of Certkeeper (Node.js)').inputValue();
        expect(npm).toBe(`SCANNER_API_URL=${origin} SCANNER_TOKEN=${token} npm run scanner`);
        await page.getByRole('button', { name: 'Copy the npm command' }).click();
        await page.getByRole('status').filter({ hasText: 'Copied' }).first().waitFor();
        expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(npm);
        const docker = await page.getByLabel('As a Docker container').inputValue();
        expect(docker).toBe(
          `docker run -d --restart unless-stopped -e SCANNER_API_URL=${origin} -e SCANNER_TOKEN=${token} certkeeper-scanner`,
        );
        await page.getByRole('button', { name: 'Copy the Docker command' }).click();
        await page.waitForFunction(`navigator.clipboard.readText().then((text) => text.startsWith('docker run'))`);
        expect(await page.getByLabel('As a Podman container').inputValue()).toBe(docker.replace(/^docker/, 'podman'));
        await looked(viewport, 'scanner-commands');

        // The npm command's settings are the ones the real agent needs: one cycle with them succeeds.
        if (viewport.name === 'desktop') {
          const settings = Object.fromEntries([...npm.matchAll(/(SCANNER_\w+)=(\S+)/g)].map((match) => [match[1], match[2]]));
          await runAgentOnce(settings.SCANNER_API_URL, settings.SCANNER_TOKEN);
          const scanners = (await t.http.get('/api/v1/scanners').set(bearer(admin)).expect(200)).body as {
            name: string;
            lastUsedAt: string | null;
          }[];
          expect(scanners.find((scanner) => scanner.name === `agent-${viewport.name}`)?.lastUsedAt).not.toBeNull();
        }
      });
    }
  });

  describe('the root-store import', () => {
    const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
    const csv = (rows: string[][]) => rows.map((cells) => cells.map((cell) => `"${cell}"`).join(',')).join('\r\n');
    const HEADER = [
      'Certificate Name',
      'Apple Status',
      'Google Chrome Status',
      'Microsoft Status',
      'Mozilla Status',
      'Mozilla Trust Bits',
      'SHA-256 Fingerprint',
    ];

    for (const viewport of VIEWPORTS) {
      it(`sends the picked files, shows each store's count and the API's refusal (${viewport.name})`, async () => {
        const root = await mintCertificate({ subject: `CN=Forms Root ${viewport.name}`, ca: true });
        const row = [`Forms Root ${viewport.name}`, 'Not Included', 'Included', 'Not Included', 'Included', 'Websites', sha256(root.der)];
        await open(viewport, '/settings/root-stores', 'Root stores');
        const form = page.getByRole('form', { name: 'Import from files' });
        await form.getByRole('button', { name: 'Import root stores' }).click();
        await form.getByText('Nothing was sent: correct the 2 marked fields.').waitFor();
        expect(await sentenceOf(form.getByLabel(/^Roots CSV/))).toBe('Pick the all-included-roots CSV (AllIncludedRootCertsCSV).');

        // A CSV without the fingerprint column: the API's sentence, the stores unchanged.
        const renamed = csv([HEADER.map((column) => column.replace('SHA-256', 'SHA256')), row]);
        await form.getByLabel(/^Roots CSV/).setInputFiles({ name: 'roots.csv', mimeType: 'text/csv', buffer: Buffer.from(renamed) });
        await form
          .getByLabel(/^PEM reports/)
          .setInputFiles({ name: 'roots.pem', mimeType: 'application/x-pem-file', buffer: Buffer.from(root.pem) });
        await form.getByRole('button', { name: 'Import root stores' }).click();
        await form
          .getByRole('alert')
          .getByText(/'SHA-256 Fingerprint'/)
          .waitFor();
        await looked(viewport, 'root-store-import-refused');

        await form
          .getByLabel(/^Roots CSV/)
          .setInputFiles({ name: 'roots.csv', mimeType: 'text/csv', buffer: Buffer.from(csv([HEADER, row])) });
        await form.getByRole('button', { name: 'Import root stores' }).click();
        const counts = form.getByRole('list', { name: 'Anchors per store' });
        await counts.waitFor();
        expect(await counts.getByRole('listitem').allTextContents()).toEqual([
          'Mozilla: 1',
          'Apple: 0',
          'Microsoft: 0',
          'Google Chrome: 1',
        ]);
        // The stores table above shows the upload too.
        await page.getByRole('row', { name: /Mozilla.*upload/ }).waitFor();
        await looked(viewport, 'root-store-import');
      });
    }
  });

  describe('the alert e-mail switch', () => {
    for (const viewport of VIEWPORTS) {
      it(`turns the person's own alert e-mails off and on (${viewport.name})`, async () => {
        const viewer = await createUser(t, 'viewer');
        await open(viewport, '/profile', 'Profile', viewer);
        const box = page.getByRole('checkbox', { name: /^E-mail me when a certificate/ });
        expect(await box.isChecked()).toBe(true);
        await box.uncheck();
        await page.getByText('Saved: alert e-mails off.').waitFor();
        const me = async () => ((await t.http.get('/api/v1/me').set(bearer(viewer.token)).expect(200)).body as { notify: boolean }).notify;
        expect(await me()).toBe(false);
        await looked(viewport, 'profile-alert-emails');
        await page.reload();
        expect(await page.getByRole('checkbox', { name: /^E-mail me when a certificate/ }).isChecked()).toBe(false);
        await page.getByRole('checkbox', { name: /^E-mail me when a certificate/ }).check();
        await page.getByText('Saved: alert e-mails on.').waitFor();
        expect(await me()).toBe(true);
      });
    }
  });
});
