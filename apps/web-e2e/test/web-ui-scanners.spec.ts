import type { Page } from 'playwright-core';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createScanner, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/*
 * The Scanners screen in headless Chromium against the real API: an admin creates a scanner, copies
 * its token (which the scanner routes accept), regenerates it and sees the API's sentences; a
 * viewer sees the list without edit actions.
 */
describeWithChromium('the Scanners screen in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  beforeEach(() => {
    ({ app: t, page } = session);
  });

  const openScanners = async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scanners' }).click();
    await page.getByRole('heading', { name: 'Scanners', level: 1 }).waitFor();
  };

  it('lets an admin create a scanner, copy its token, regenerate it and edit it', async () => {
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await openScanners();
    expect(await seriousViolations(page)).toEqual([]);

    // A schedule of five cron fields with an impossible minute passes the form's check: the API's sentence next to the field, nothing created.
    await page.getByLabel('Name', { exact: true }).fill('edge-paris');
    await page.getByLabel(/^Schedule/).fill('61 * * * *');
    await page.getByRole('button', { name: 'Create scanner' }).click();
    const scheduleError = page.locator('#new-scanner-scanCronExpression-error');
    await scheduleError.waitFor();
    expect(await scheduleError.textContent()).toMatch(/^scanCronExpression must be a 5-field cron expression/);
    expect(await page.getByLabel(/^Schedule/).getAttribute('aria-describedby')).toBe('new-scanner-scanCronExpression-error');
    expect(await page.getByRole('cell', { name: 'edge-paris', exact: true }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // Created: its token shown once, copied, and accepted by the scanner routes.
    await page.getByLabel(/^Schedule/).fill('*/15 * * * *');
    await page.getByLabel(/^Concurrency/).fill('3');
    await page.getByRole('button', { name: 'Create scanner' }).click();
    const token = await page.getByLabel('Scanner token', { exact: true }).inputValue();
    expect(token).toMatch(/^stx_s_/);
    await page.getByRole('button', { name: 'Copy the scanner token' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(token);
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'edge-paris', exact: true }) });
    await row.getByRole('cell', { name: '*/15 * * * *', exact: true }).waitFor();
    await row.getByRole('cell', { name: '3', exact: true }).waitFor();
    await t.http.get('/api/v1/scanner/config').set(bearer(token)).expect(200);
    // A scanner token is not a user's: the management routes refuse it.
    await t.http.get('/api/v1/scanners').set(bearer(token)).expect(403);

    // Regenerated after confirming: the old token gets 401, the new one works.
    await page.getByRole('button', { name: 'Regenerate token of edge-paris' }).click();
    await page.getByText('Regenerate the token? The old one stops working at once.').waitFor();
    await page.getByRole('button', { name: 'Yes, regenerate the token of edge-paris' }).click();
    await page.getByText('The old token no longer works.', { exact: false }).waitFor();
    const newToken = await page.getByLabel('Scanner token', { exact: true }).inputValue();
    expect(newToken).toMatch(/^stx_s_/);
    expect(newToken).not.toBe(token);
    await page.getByRole('button', { name: 'Copy the scanner token' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(newToken);
    await t.http.get('/api/v1/scanner/config').set(bearer(token)).expect(401);
    await t.http.get('/api/v1/scanner/config').set(bearer(newToken)).expect(200);

    // Edited: name and schedule; a bad concurrency is named by the form before anything is sent.
    await page.getByRole('button', { name: 'Edit edge-paris' }).click();
    const edit = page.getByRole('form', { name: 'Edit edge-paris' });
    await edit.getByLabel(/^Concurrency/).fill('0');
    await edit.getByRole('button', { name: 'Save scanner' }).click();
    await page.locator('#edit-scanner-scanConcurrency-error').waitFor();
    expect(await page.locator('#edit-scanner-scanConcurrency-error').textContent()).toBe(
      'The concurrency is a whole number from 1 to 256.',
    );
    await edit.getByLabel(/^Concurrency/).fill('8');
    await edit.getByLabel('Name', { exact: true }).fill('edge-lyon');
    await edit.getByLabel(/^Schedule/).fill('30 2 * * *');
    await edit.getByRole('button', { name: 'Save scanner' }).click();
    const edited = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'edge-lyon', exact: true }) });
    await edited.getByRole('cell', { name: '30 2 * * *', exact: true }).waitFor();
    await edited.getByRole('cell', { name: '8', exact: true }).waitFor();
    await t.http.get('/api/v1/scanner/config').set(bearer(newToken)).expect(200);

    // Made the default, it cannot be deleted: the API's 409 sentence in its row.
    await page.getByRole('button', { name: 'Make default: edge-lyon' }).click();
    await edited.getByRole('cell', { name: 'Default', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete edge-lyon' }).click();
    await page.getByRole('button', { name: 'Yes, delete edge-lyon' }).click();
    await edited.getByRole('alert').waitFor();
    expect(await edited.getByRole('alert').textContent()).toMatch(/cannot be deleted/);
    expect(await seriousViolations(page)).toEqual([]);

    // Another scanner, created and deleted after confirming.
    await page.getByLabel('Name', { exact: true }).fill('edge-spare');
    await page.getByRole('button', { name: 'Create scanner' }).click();
    await page.getByRole('cell', { name: 'edge-spare', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete edge-spare' }).click();
    await page.getByRole('button', { name: 'Yes, delete edge-spare' }).click();
    await page.getByRole('cell', { name: 'edge-spare', exact: true }).waitFor({ state: 'detached' });
    // Its token, shown since it was created, goes with it.
    expect(await page.getByLabel('Scanner token', { exact: true }).count()).toBe(0);
    const admin = await login(t);
    const names = ((await t.http.get('/api/v1/scanners').set(bearer(admin)).expect(200)).body as { name: string }[]).map((s) => s.name);
    expect(names).toContain('edge-lyon');
    expect(names).not.toContain('edge-spare');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows a viewer the list without edit actions', async () => {
    await createScanner(t, 'edge-viewed');
    const viewer = await createUser(t, 'viewer');
    await page.goto('/login');
    await signIn(page, viewer.email, viewer.password);
    await openScanners();
    await page.getByRole('cell', { name: 'edge-viewed', exact: true }).waitFor();
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
    for (const name of [
      'Create scanner',
      'Edit edge-viewed',
      'Regenerate token of edge-viewed',
      'Delete edge-viewed',
      'Make default: edge-viewed',
    ])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    expect(await page.getByRole('textbox').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
