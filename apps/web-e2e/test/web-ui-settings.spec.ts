import { Client } from 'pg';
import type { Page } from 'playwright-core';
import { MAINTENANCE_TASK_LOCK_KEYS } from '../../api/src/database/advisory-lock-keys';
import { freePort } from '../../api/src/common/net/free-port';
import { startSmtpServer, type TestSmtpServer } from '../../api/test/support/smtp';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/*
 * The Settings screens in headless Chromium against the real API: an admin configures mail
 * against a local SMTP server and sends a test e-mail, edits the thresholds, a template with its
 * preview, the OIDC settings, and runs maintenance tasks; an operator reads every value without
 * an edit control; a viewer has no Settings.
 */
describeWithChromium('the Settings screens in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp.close());
  beforeEach(() => {
    ({ app: t, page } = session);
  });

  const openSettings = async (tab: string, heading: string) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: tab, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };
  const signInAsAdmin = async () => {
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  };

  it('lets an admin configure mail, send a test e-mail to a local SMTP server, see a failing one refused, and run alerts', async () => {
    await signInAsAdmin();
    await openSettings('Mail', 'Mail');
    expect(await seriousViolations(page)).toEqual([]);

    const form = page.getByRole('form', { name: 'SMTP server' });
    await form.getByLabel('Send e-mail (alerts and tests)').check();
    await form.getByLabel('Host').fill('127.0.0.1');
    await form.getByLabel('Port').fill(String(smtp.port));
    await form.getByLabel('Encryption').selectOption('none');
    await form.getByLabel('Authentication').selectOption('none');
    await form.getByLabel('From address').fill('certkeeper@example.com');
    await form.getByLabel('From name').fill('Certkeeper');
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const admin = await login(t);
    expect((await t.http.get('/api/v1/settings/mail').set(bearer(admin)).expect(200)).body).toMatchObject({
      enabled: true,
      host: '127.0.0.1',
      port: smtp.port,
      tlsMode: 'none',
      auth: 'none',
      passwordSet: false,
      fromAddress: 'certkeeper@example.com',
      fromName: 'Certkeeper',
    });

    // A test e-mail to the caller by default: the SMTP server received it.
    const test = page.getByRole('form', { name: 'Send a test e-mail' });
    await test.getByRole('button', { name: 'Send a test e-mail' }).click();
    await test.getByText(`Sent: the SMTP server accepted the test e-mail to ${ADMIN_EMAIL}.`).waitFor();
    expect(smtp.messages.map((message) => [message.to, message.subject])).toEqual([[ADMIN_EMAIL, 'Certkeeper test message']]);
    // And to another recipient.
    await test.getByLabel('Recipient').fill('ops@example.com');
    await test.getByRole('button', { name: 'Send a test e-mail' }).click();
    await test.getByText('Sent: the SMTP server accepted the test e-mail to ops@example.com.').waitFor();
    expect(smtp.messages.at(-1)).toMatchObject({ to: 'ops@example.com', subject: 'Certkeeper test message' });

    // A password is write-only: set, then shown only as "set".
    await form.getByLabel('Authentication').selectOption('plain');
    await form.getByLabel('User name').fill('relay-user');
    await form.getByLabel('Password', { exact: true }).fill('relay-secret-1');
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    await form.getByText('A value is set; it is never shown.', { exact: false }).waitFor();
    expect(await form.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    expect((await t.http.get('/api/v1/settings/mail').set(bearer(admin)).expect(200)).body).toMatchObject({ passwordSet: true });
    // Cleared with its check box.
    await form.getByLabel('Authentication').selectOption('none');
    await form.getByLabel('User name').fill('');
    await form.getByLabel('Clear the stored password').check();
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect((await t.http.get('/api/v1/settings/mail').set(bearer(admin)).expect(200)).body).toMatchObject({
      passwordSet: false,
      auth: 'none',
    });

    // A port nobody listens on: the API's 502 sentence next to the action.
    const closedPort = await freePort();
    await form.getByLabel('Port').fill(String(closedPort));
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const sent = smtp.messages.length;
    const failed = await t.http.post('/api/v1/settings/mail/test').set(bearer(admin)).send({}).expect(502);
    await test.getByRole('button', { name: 'Send a test e-mail' }).click();
    const problem = test.getByRole('alert');
    await problem.waitFor();
    // The same sentence as the API's own answer, but for the request id each answer names.
    const withoutRequestId = (text: string | null) => text?.replace(/Request id: [0-9a-f-]+/, '').trim();
    expect(withoutRequestId(await problem.textContent())).toBe(withoutRequestId(failed.text));
    expect(await problem.textContent()).toMatch(/ECONNREFUSED/);
    // The relay's failure is no fault of the recipient typed: the field is not marked.
    expect(await test.getByLabel('Recipient').getAttribute('aria-invalid')).toBeNull();
    expect(smtp.messages.length).toBe(sent);

    // A bad port: named by the form next to the field, nothing stored.
    await form.getByLabel('Port').fill('70000');
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await page.locator('#mail-port-error').waitFor();
    expect(await page.locator('#mail-port-error').textContent()).toBe('The port is a whole number from 1 to 65535.');
    expect((await t.http.get('/api/v1/settings/mail').set(bearer(admin)).expect(200)).body).toMatchObject({ port: closedPort });
    expect(await seriousViolations(page)).toEqual([]);

    // Alerts run now: the totals (no certificate, so nothing to send).
    await form.getByLabel('Port').fill(String(smtp.port));
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Run alerts now' }).click();
    await page.getByText('Done: 0 sent, 0 already sent before, 0 failed.').waitFor();
  });

  it('lets an admin edit the thresholds, read back by the API, and shows the sentence for a bad one', async () => {
    await signInAsAdmin();
    await openSettings('Thresholds', 'Alert thresholds');
    const field = page.getByLabel(/^Days before expiry/);
    expect(await field.inputValue()).toBe('30, 14, 7, 1');
    expect(await seriousViolations(page)).toEqual([]);

    await field.fill('3, 60 10');
    await page.getByRole('button', { name: 'Save thresholds' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    expect(await field.inputValue()).toBe('60, 10, 3');
    const admin = await login(t);
    expect((await t.http.get('/api/v1/settings/alert-thresholds').set(bearer(admin)).expect(200)).body).toEqual([60, 10, 3]);

    // What is not a number of days is named by the form; a repeat, by the API in its own words.
    const error = page.locator('#thresholds-error');
    for (const [bad, sentence] of [
      ['0', '“0” is not a number of days: each is a whole number from 1 to 3650.'],
      ['soon', '“soon” is not a number of days: each is a whole number from 1 to 3650.'],
    ]) {
      await field.fill(bad);
      await page.getByRole('button', { name: 'Save thresholds' }).click();
      await page.getByText(sentence).waitFor();
      expect(await field.getAttribute('aria-invalid')).toBe('true');
    }
    await field.fill('7, 7');
    await page.getByRole('button', { name: 'Save thresholds' }).click();
    const refused = await t.http.put('/api/v1/settings/alert-thresholds').set(bearer(admin)).send([7, 7]).expect(400);
    await page.getByText(refused.text.trim()).waitFor();
    expect((await error.textContent())?.trim()).toBe(refused.text.trim());
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect((await t.http.get('/api/v1/settings/alert-thresholds').set(bearer(admin)).expect(200)).body).toEqual([60, 10, 3]);
    expect(await seriousViolations(page)).toEqual([]);
    await t.http.put('/api/v1/settings/alert-thresholds').set(bearer(admin)).send([30, 14, 7, 1]).expect(200);
  });

  it('lets an admin edit a template with a preview, shows a syntax error, and reset it', async () => {
    await signInAsAdmin();
    await openSettings('Templates', 'Notification templates');
    const expiring = page.getByRole('region', { name: /^Certificate expiring \(email\)/ });
    await expiring.getByText('{{ .DaysRemaining }}', { exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The default previewed by the server's renderer.
    await expiring.getByRole('button', { name: 'Preview' }).click();
    const preview = expiring.getByRole('region', { name: 'Preview with sample values' });
    await preview.waitFor();
    expect(await preview.getByTestId('template-cert_expiring-email-preview-subject').textContent()).toContain('www.example.com');
    // The HTML part, rendered with its inline styles (applied without breaking the page's CSP).
    const htmlPart = preview.getByRole('group', { name: 'HTML part of the preview' });
    await htmlPart.getByText('www.example.com:443, api.example.com:443', { exact: false }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // An edit previewed as plain text, then saved.
    await expiring.getByLabel('Subject').fill('Renew {{ .CommonName }} within {{ .DaysRemaining }} days');
    await expiring.getByLabel('Body').fill('{{ .EndpointName }} expires on {{ .NotAfter }}.');
    expect(await preview.count()).toBe(0);
    await expiring.getByRole('button', { name: 'Preview' }).click();
    await preview.waitFor();
    expect(await preview.getByTestId('template-cert_expiring-email-preview-subject').textContent()).toBe(
      'Renew www.example.com within 14 days',
    );
    expect(await preview.getByTestId('template-cert_expiring-email-preview-text').textContent()).toBe(
      'www.example.com:443, api.example.com:443 expires on 2030-01-15 12:00 UTC.',
    );
    await expiring.getByRole('button', { name: 'Save template' }).click();
    await expiring.getByRole('status').getByText('Saved.').waitFor();
    await expiring.getByText('custom', { exact: true }).waitFor();
    const admin = await login(t);
    expect((await t.http.get('/api/v1/notification-templates/cert_expiring/email').set(bearer(admin)).expect(200)).body).toMatchObject({
      subject: 'Renew {{ .CommonName }} within {{ .DaysRemaining }} days',
      body: '{{ .EndpointName }} expires on {{ .NotAfter }}.',
      isCustom: true,
    });

    // A syntax error: the API's sentence by the body, on preview and on save; nothing saved.
    await expiring.getByLabel('Body').fill('{{ .EndpointName }} expires on {{ .NotAfter');
    await expiring.getByRole('button', { name: 'Preview' }).click();
    const error = page.locator('#template-cert_expiring-email-error');
    await error.waitFor();
    const refused = await t.http
      .put('/api/v1/notification-templates/cert_expiring/email')
      .set(bearer(admin))
      .send({ subject: 'x', body: '{{ .EndpointName }} expires on {{ .NotAfter' })
      .expect(400);
    expect((await error.textContent())?.trim()).toBe(refused.text.trim());
    expect(await expiring.getByLabel('Body').getAttribute('aria-invalid')).toBe('true');
    await expiring.getByRole('button', { name: 'Save template' }).click();
    await error.waitFor();
    expect((await error.textContent())?.trim()).toBe(refused.text.trim());
    // An unknown variable for the expired event.
    const expired = page.getByRole('region', { name: /^Certificate expired \(email\)/ });
    await expired.getByLabel('Body').fill('{{ .DaysRemaining }}');
    await expired.getByRole('button', { name: 'Preview' }).click();
    await expired.getByRole('alert').getByText('DaysRemaining', { exact: false }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Reset to the default after confirming.
    await expiring.getByRole('button', { name: 'Reset to default: Certificate expiring (email)' }).click();
    await expiring.getByRole('button', { name: 'Yes, reset to the default' }).click();
    await expiring.getByText('built-in default', { exact: true }).waitFor();
    const restored = (await t.http.get('/api/v1/notification-templates/cert_expiring/email').set(bearer(admin)).expect(200)).body as {
      subject: string;
      isCustom: boolean;
    };
    expect(restored.isCustom).toBe(false);
    expect(await expiring.getByLabel('Subject').inputValue()).toBe(restored.subject);
    expect(await expiring.getByRole('alert').count()).toBe(0);
    // The default's HTML part, as the last screen.
    await expiring.getByRole('button', { name: 'Preview' }).click();
    await expiring.getByRole('group', { name: 'HTML part of the preview' }).waitFor();
    await expiring.getByRole('group', { name: 'HTML part of the preview' }).scrollIntoViewIfNeeded();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it.each([
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 390, height: 844 },
  ])('previews a chat template as Slack, Teams, ntfy and PagerDuty show the message ($name)', async (viewport) => {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    // A phone folds the main navigation behind its Menu button.
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu
      .or(page.getByRole('navigation', { name: 'Main' }))
      .first()
      .waitFor();
    if (await menu.isVisible()) await menu.click();
    await openSettings('Templates', 'Notification templates');
    const previewOf = async (event: string, channel: string, subject: string, body: string) => {
      const section = page.getByRole('region', { name: new RegExp(`^${event} \\(${channel}\\)`) });
      await section.getByLabel('Subject').fill(subject);
      await section.getByLabel('Body').fill(body);
      await section.getByRole('button', { name: 'Preview' }).click();
      const shown = section.getByRole('region', { name: /^As .* shows it$/ });
      await shown.waitFor();
      return shown;
    };

    // Slack: its mrkdwn applied, the title bold; a value's markup stays text, a bare address a link.
    const slack = await previewOf(
      'Certificate expiring',
      'slack',
      '<{{ .CommonName }}> expires',
      'Renew _now_: https://runbooks.example/renew. In {{ .DaysRemaining }} days.',
    );
    expect(await slack.getByRole('heading').textContent()).toBe('As Slack shows it');
    expect(await slack.locator('strong').textContent()).toBe('<www.example.com> expires');
    expect(await slack.locator('em').textContent()).toBe('now');
    expect(await slack.getByRole('link', { name: 'https://runbooks.example/renew' }).getAttribute('href')).toBe(
      'https://runbooks.example/renew',
    );
    expect(await slack.textContent()).not.toContain('&lt;');
    expect(await seriousViolations(page)).toEqual([]);

    // Teams: the card's title over its text.
    const teams = await previewOf('Certificate expiring', 'teams', 'Renew {{ .CommonName }}', '{{ .DaysRemaining }} days left.');
    expect(await teams.locator('.chat-card-title').textContent()).toBe('Renew www.example.com');
    expect(await teams.locator('.chat-card .chat-text').textContent()).toBe('14 days left.');

    // ntfy: an expired certificate is priority 5, its urgency tag first as ntfy shows it.
    const ntfy = await previewOf('Certificate expired', 'ntfy', '{{ .CommonName }} expired', 'Replace it.');
    const ntfyFacts = await ntfy.locator('dd').allTextContents();
    expect(ntfyFacts).toEqual(['🚨 www.example.com expired', '5 (urgent)', '🚨 rotating_light, cert_expired']);
    expect(await ntfy.locator('.chat-text').textContent()).toBe('Replace it.');

    // PagerDuty: the summary and the severity (14 days: a warning).
    const pagerduty = await previewOf('Certificate expiring', 'pagerduty', 'Renew {{ .CommonName }}', 'Within {{ .DaysRemaining }} days.');
    expect(await pagerduty.locator('dd').allTextContents()).toEqual(['Renew www.example.com', 'warning']);
    await pagerduty.scrollIntoViewIfNeeded();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lets an admin save OIDC settings with a write-only secret and shows the 422 for an unreachable issuer', async () => {
    await signInAsAdmin();
    await openSettings('Sign-in (OIDC)', 'Sign-in with OpenID Connect');
    expect(await seriousViolations(page)).toEqual([]);
    const form = page.getByRole('form', { name: 'Provider' });
    const issuer = `http://127.0.0.1:${await freePort()}/realms/acme`;
    await form.getByLabel('Issuer URL').fill(issuer);
    await form.getByLabel('Client id').fill('certkeeper');
    await form.getByLabel('Client secret', { exact: true }).fill('s3cret-value');
    await form.getByLabel('Role claim').fill('groups');
    await form.getByLabel('Values giving admin').fill('ck-admins, platform');
    await form.getByLabel(/^Default role/).selectOption('viewer');
    await form.getByRole('button', { name: 'Save sign-in settings' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    await form.getByText('A value is set; it is never shown.', { exact: false }).waitFor();
    const admin = await login(t);
    expect((await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200)).body).toMatchObject({
      enabled: false,
      issuerUrl: issuer,
      clientId: 'certkeeper',
      clientSecretSet: true,
      roleClaim: 'groups',
      roleMapping: { admin: ['ck-admins', 'platform'], operator: [], viewer: [] },
      defaultRole: 'viewer',
    });

    // Enabling checks the issuer: the API's 422 sentence, nothing enabled.
    await form.getByLabel('Offer sign-in with this provider').check();
    await form.getByRole('button', { name: 'Save sign-in settings' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    const refused = await t.http
      .put('/api/v1/settings/oidc')
      .set(bearer(admin))
      .send({ enabled: true, issuerUrl: issuer, clientId: 'certkeeper' })
      .expect(422);
    expect((await alert.textContent())?.trim()).toBe(refused.text.trim());
    expect((await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200)).body).toMatchObject({ enabled: false });
    expect(await seriousViolations(page)).toEqual([]);

    // Another issuer needs the secret again: the API's sentence by the secret field, nothing saved.
    await form.getByLabel('Offer sign-in with this provider').uncheck();
    await form.getByLabel('Issuer URL').fill(`http://127.0.0.1:${await freePort()}/realms/other`);
    await form.getByRole('button', { name: 'Save sign-in settings' }).click();
    await form.getByText(/^clientSecret must be sent again when issuerUrl changes/).waitFor();
    expect(await form.getByLabel('Client secret', { exact: true }).getAttribute('aria-describedby')).toContain('oidc-clientSecret-error');
    expect((await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200)).body).toMatchObject({
      issuerUrl: issuer,
      clientSecretSet: true,
    });
    await form.getByLabel('Client secret', { exact: true }).fill('another-s3cret');
    await form.getByRole('button', { name: 'Save sign-in settings' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect((await t.http.get('/api/v1/settings/oidc').set(bearer(admin)).expect(200)).body).toMatchObject({
      issuerUrl: expect.stringMatching(/\/realms\/other$/) as unknown,
      clientSecretSet: true,
    });
  });

  it('lets an admin run maintenance tasks and refresh the root stores with progress and the outcome', async () => {
    await signInAsAdmin();
    await openSettings('Maintenance', 'Maintenance');
    const row = page.getByRole('row').filter({ hasText: 'purge-alert-records' });
    await row.getByText('not run yet').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Run now: Purge alert records' }).click();
    await page.getByText(/^Purge alert records finished: succeeded/).waitFor();
    await row.getByRole('cell', { name: 'succeeded', exact: true }).waitFor();
    const admin = await login(t);
    const tasks = (await t.http.get('/api/v1/maintenance/tasks').set(bearer(admin)).expect(200)).body as {
      name: string;
      lastRunAt: string | null;
      lastOutcome: string | null;
    }[];
    expect(tasks.find((task) => task.name === 'purge-alert-records')).toMatchObject({ lastOutcome: 'succeeded' });
    expect(await seriousViolations(page)).toEqual([]);

    // The test app's root store source refuses connections: the refresh fails, and says why.
    await openSettings('Root stores', 'Root stores');
    await page.getByRole('cell', { name: 'Mozilla', exact: false }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Refresh now' }).click();
    const outcome = page.getByText(/^Refresh root stores finished: /);
    await outcome.waitFor({ timeout: 60_000 });
    const refresh = (
      (await t.http.get('/api/v1/maintenance/tasks').set(bearer(admin)).expect(200)).body as { name: string; lastOutcome: string }[]
    ).find((task) => task.name === 'refresh-root-stores')!;
    expect(await outcome.textContent()).toContain(refresh.lastOutcome);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows a task another replica is running, waits for it when asked to run it, and shows the outcome that replica recorded', async () => {
    const purgeHistoryLock = MAINTENANCE_TASK_LOCK_KEYS['purge-history'];
    const otherReplica = new Client({ connectionString: t.config.databaseUrl });
    await otherReplica.connect();
    try {
      await otherReplica.query('SELECT pg_advisory_lock($1)', [purgeHistoryLock]);
      await signInAsAdmin();
      await openSettings('Maintenance', 'Maintenance');
      const row = page.getByRole('row').filter({ hasText: 'purge-history' });
      await row.getByText('running now').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Run now: Purge history' }).click();
      await page.getByText(/^Purge history was already running elsewhere; waiting/).waitFor();
      // The other replica finishes as a run does: it records the run, then lets go of the task.
      await otherReplica.query(
        `INSERT INTO maintenance_runs (task, last_run_at, last_outcome, last_counts)
         VALUES ('purge-history', now(), 'succeeded', '{"scanHistory": 7}')
         ON CONFLICT (task) DO UPDATE SET last_run_at = excluded.last_run_at, last_outcome = excluded.last_outcome, last_counts = excluded.last_counts`,
      );
      await otherReplica.query('SELECT pg_advisory_unlock($1)', [purgeHistoryLock]);
      await page.getByText('Purge history finished: succeeded (scanHistory: 7).').waitFor();
      await row.getByRole('cell', { name: 'succeeded', exact: true }).waitFor();
      expect(await row.getByText('running now').count()).toBe(0);
    } finally {
      await otherReplica.end();
    }
  });

  it('shows an operator every value without an edit control', async () => {
    const operator = await createUser(t, 'operator');
    await page.goto('/login');
    await signIn(page, operator.email, operator.password);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const screens: [string, string][] = [
      ['Thresholds', 'Alert thresholds'],
      ['Mail', 'Mail'],
      ['Templates', 'Notification templates'],
      ['Sign-in (OIDC)', 'Sign-in with OpenID Connect'],
      ['Root stores', 'Root stores'],
      ['ACME CAs', 'ACME CAs'],
      ['Maintenance', 'Maintenance'],
    ];
    for (const [tab, heading] of screens) {
      await openSettings(tab, heading);
      await page.getByText('Your role reads these settings; an administrator changes them.').or(page.getByRole('table')).first().waitFor();
      expect(await page.getByRole('textbox').count()).toBe(0);
      expect(await page.getByRole('checkbox').count()).toBe(0);
      expect(await page.getByRole('combobox').count()).toBe(0);
      for (const name of [/^Save/, /^Send a test/, /^Run /, /^Reset/, /^Refresh now/])
        expect(await page.getByRole('button', { name }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
    }
    await openSettings('Thresholds', 'Alert thresholds');
    await page.getByText('30, 14, 7, 1').waitFor();
    // Templates may still be previewed (settings:view).
    await openSettings('Templates', 'Notification templates');
    const expiring = page.getByRole('region', { name: /^Certificate expiring \(email\)/ });
    await expiring.getByRole('button', { name: 'Preview' }).click();
    await expiring.getByRole('region', { name: 'Preview with sample values' }).waitFor();
  });

  it('gives a viewer no Settings: not in the navigation, and the address says why', async () => {
    const viewer = await createUser(t, 'viewer');
    await page.goto('/login');
    await signIn(page, viewer.email, viewer.password);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).count()).toBe(0);
    await page.goto('/settings/mail');
    await page.getByText('Your role does not include the settings', { exact: false }).waitFor();
    expect(await page.getByRole('textbox').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
