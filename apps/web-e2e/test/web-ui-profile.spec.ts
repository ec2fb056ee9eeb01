import { createHash } from 'node:crypto';
import * as ical from 'node-ical';
import { mintCertificate } from '@certkeeper/domain/testing';
import type { Page } from 'playwright-core';
import { bearer, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/*
 * The Profile screen in headless Chromium against the real API: tag subscriptions, the calendar
 * feed (its URL copied and fetched) and API keys, as a viewer.
 */
const sha256 = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const DAY = 24 * 3600_000;

function eventUids(body: string): string[] {
  return Object.values(ical.sync.parseICS(body))
    .filter((component): component is ical.VEvent => component?.type === 'VEVENT')
    .map((event) => event.uid);
}

describeWithChromium('the Profile screen in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  beforeEach(() => {
    ({ app: t, page } = session);
  });

  /** A manual endpoint carrying `tags` with an uploaded certificate; its fingerprint. */
  async function endpointWithCertificate(name: string, tags: string[]): Promise<string> {
    const admin = await login(t);
    const endpoint = (await t.http.post('/api/v1/endpoints').set(bearer(admin)).send({ type: 'manual', name }).expect(201)).body as {
      id: string;
    };
    await t.http.put(`/api/v1/endpoints/${endpoint.id}/tags`).set(bearer(admin)).send(tags).expect(200);
    const minted = await mintCertificate({ subject: `CN=${name}`, sans: [name], notAfter: new Date(Date.now() + 30 * DAY) });
    const upload = await t.http
      .post(`/api/v1/endpoints/${endpoint.id}/certificate`)
      .set(bearer(admin))
      .set('Content-Type', 'application/x-pem-file')
      .send(minted.pem);
    expect([200, 201]).toContain(upload.status);
    return sha256(minted.der);
  }

  it('lets a viewer subscribe to a tag, copy the calendar feed URL and create an API key', async () => {
    const subscribed = await endpointWithCertificate('payments.profile.test', ['team:payments']);
    const other = await endpointWithCertificate('other.profile.test', ['team:other']);
    const viewer = await createUser(t, 'viewer');

    await page.goto('/login');
    await signIn(page, viewer.email, viewer.password);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    await page.getByText('No subscriptions: every endpoint.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The e-mail address is shown, not offered for editing: only an administrator changes it.
    const account = page.getByRole('region', { name: 'Account' });
    await account.getByText(viewer.email).waitFor();
    await account.getByText('Only an administrator can change your e-mail address: single sign-on links accounts by it.').waitFor();
    expect(await page.getByRole('textbox', { name: /e-mail/i }).count()).toBe(0);

    // Tag subscriptions: add one (the known tags are offered) and save.
    const offered = await page.evaluate<string[]>("[...document.querySelectorAll('#known-tags option')].map((option) => option.value)");
    expect(offered).toEqual(['team:other', 'team:payments']);
    await page.getByLabel('Tag to add').fill('team:payments');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('button', { name: 'Save subscriptions' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Remove team:payments' }).waitFor();
    expect((await t.http.get('/api/v1/me/tag-subscriptions').set(bearer(viewer.token)).expect(200)).body).toEqual(['team:payments']);

    // Calendar feed: turned on, its URL copied, and the feed holds the subscribed endpoint's certificate only.
    await page.getByText('Your calendar feed is off.').waitFor();
    await page.getByRole('button', { name: 'Turn the feed on' }).click();
    const shownUrl = await page.getByLabel('Feed URL').inputValue();
    await page.getByRole('button', { name: 'Copy the feed URL' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(shownUrl);
    expect(new URL(copied).pathname).toMatch(/^\/api\/v1\/calendar\/u\/[A-Za-z0-9_-]{43,}\/certkeeper\.ics$/);
    const feed = await t.http.get(new URL(copied).pathname).expect(200);
    expect(eventUids(feed.text)).toContain(subscribed);
    expect(eventUids(feed.text)).not.toContain(other);
    expect(
      ((await t.http.get('/api/v1/me').set(bearer(viewer.token)).expect(200)).body as { calendarFeedEnabled: boolean }).calendarFeedEnabled,
    ).toBe(true);

    // API keys: the API's sentence next to the form, then a key shown once that works.
    await page.getByText('No API key.').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('ci export');
    await page.getByLabel(/^Expires/).fill('2001-01-01');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.locator('form').getByRole('alert').waitFor();
    expect((await page.locator('form').getByRole('alert').textContent())?.length).toBeGreaterThan(0);
    await page.getByLabel(/^Expires/).fill('');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = await page.getByLabel('API key', { exact: true }).inputValue();
    expect(key).toMatch(/^stx_p_/);
    await page.getByRole('cell', { name: 'ci export', exact: true }).waitFor();
    const me = (await t.http.get('/api/v1/me').set(bearer(key)).expect(200)).body as { email: string };
    expect(me.email).toBe(viewer.email);
    expect(await seriousViolations(page)).toEqual([]);

    // Leaving and coming back, the key is listed but no longer shown; deleting it asks first.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('cell', { name: 'ci export', exact: true }).waitFor();
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
    await page.getByText('Your calendar feed is on', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Delete ci export' }).click();
    await page.getByRole('button', { name: 'Yes, delete ci export' }).click();
    await page.getByText('No API key.').waitFor();
    await t.http.get('/api/v1/me').set(bearer(key)).expect(401);

    // Turning the feed off ends its URL.
    await page.getByRole('button', { name: 'Turn the feed off' }).click();
    await page.getByText('Your calendar feed is off.').waitFor();
    await t.http.get(new URL(copied).pathname).expect(404);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lets a person change their password, which ends every session of theirs, this one too', async () => {
    const viewer = await createUser(t, 'viewer');
    await page.goto('/login');
    await signIn(page, viewer.email, viewer.password);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
    const form = page.getByRole('form', { name: 'Password' });
    await form.getByLabel('Current password').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The two new passwords differ: said here, nothing sent.
    await form.getByLabel('Current password').fill(viewer.password);
    await form.getByLabel(/^New password \(/).fill('a-new-password-1');
    await form.getByLabel('New password again').fill('a-new-password-2');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('The two new passwords differ.').waitFor();
    expect(await form.getByLabel('New password again').getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByLabel('New password again').getAttribute('aria-describedby')).toBe('own-password-repeated-error');
    await t.http.get('/api/v1/me').set(bearer(viewer.token)).expect(200);

    // Too short: the API's sentence by the new password.
    await form.getByLabel(/^New password \(/).fill('short');
    await form.getByLabel('New password again').fill('short');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText(/^password must be longer than or equal to 8 characters/).waitFor();
    expect(await form.getByLabel(/^New password \(/).getAttribute('aria-invalid')).toBe('true');

    // A wrong current password: the API's sentence by that field.
    await form.getByLabel(/^New password \(/).fill('a-new-password-1');
    await form.getByLabel('Current password').fill('not-the-password');
    await form.getByLabel('New password again').fill('a-new-password-1');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('currentPassword is not the current password').waitFor();
    expect(await form.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByText('The two new passwords differ.').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // The right one: to sign-in, saying why; the old password and every session of theirs are ended.
    await form.getByLabel('Current password').fill(viewer.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(/\/login$/);
    await page.getByRole('status').filter({ hasText: 'Your password was changed' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await t.http.get('/api/v1/me').set(bearer(viewer.token)).expect(401);
    await t.http.post('/api/v1/auth/login').send({ email: viewer.email, password: viewer.password }).expect(401);
    await signIn(page, viewer.email, 'a-new-password-1');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });
});
