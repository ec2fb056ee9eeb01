import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { type HttpReceiver, startHttpReceiver } from '@certkeeper/net/testing';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/** A link of the main navigation, which a phone folds behind its Menu button. */
async function openFromMenu(page: Page, link: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
}

/** Signs the administrator in and opens Settings, Channels. */
async function openChannelsAsAdmin(page: Page): Promise<void> {
  await page.goto('/login');
  await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  await page
    .getByRole('button', { name: 'Menu' })
    .or(page.getByRole('navigation', { name: 'Main' }))
    .first()
    .waitFor();
  await openFromMenu(page, 'Settings');
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Channels', exact: true }).click();
  await page.getByRole('heading', { name: 'Notification channels', level: 1 }).waitFor();
}

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

/*
 * The Channels screen in headless Chromium against the real API and a local receiver, at a
 * desktop and a phone size: an admin adds a webhook and copies its signing secret shown once,
 * sends a test the receiver verifies, sees the deliveries with their errors, and the dashboard's
 * banner names the failing channel (docs/api-contract.md section 17).
 */
describeWithChromium('the Channels screen in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  let receiver: HttpReceiver;
  beforeAll(async () => {
    receiver = await startHttpReceiver();
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    ({ app: t, page } = session);
  });

  it.each(VIEWPORTS)(
    'adds a webhook, shows its secret once, sends a test, lists the deliveries and flags a failing channel ($name)',
    async (viewport) => {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      receiver.answer(() => ({ status: 200 }));
      receiver.requests.length = 0;
      await openChannelsAsAdmin(page);

      // The kind decides the fields: a Slack channel has no secret, PagerDuty asks for its routing key.
      const form = page.getByRole('form', { name: 'Add a channel' });
      await form.getByLabel('Kind').selectOption('slack');
      expect(await form.getByLabel('Routing key').count()).toBe(0);
      await form.getByLabel('Kind').selectOption('pagerduty');
      await form.getByLabel('Routing key').waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      const name = `hook-${viewport.name}`;
      await form.getByLabel('Kind').selectOption('webhook');
      await form.getByLabel('Name').fill(name);
      await form.getByLabel('Receiver URL').fill(`${receiver.url}/in/${viewport.name}`);
      await form.getByRole('button', { name: 'Add the channel' }).click();
      await form.getByRole('status').getByText(`Added ${name}.`).waitFor();
      const secretBox = page.getByLabel(`Signing secret of ${name}`);
      const secret = await secretBox.inputValue();
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'Copy the signing secret' }).click();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
      expect(await seriousViolations(page)).toEqual([]);

      // Send test: the receiver verifies the signature with the secret it was shown.
      const row = page.getByRole('row', { name: new RegExp(name) });
      await row.getByRole('button', { name: `Send test to ${name}` }).click();
      await row.getByRole('status').getByText('The receiver accepted the test message.').waitFor();
      const [test] = receiver.requests;
      expect(
        new Webhook(secret).verify(test.body, {
          'webhook-id': test.headers['webhook-id'] as string,
          'webhook-timestamp': test.headers['webhook-timestamp'] as string,
          'webhook-signature': test.headers['webhook-signature'] as string,
        }),
      ).toMatchObject({ type: 'test' });

      // A receiver that refuses: the error is shown beside the button, in the deliveries, and on the dashboard.
      receiver.answer(() => ({ status: 503 }));
      await row.getByRole('button', { name: `Send test to ${name}` }).click();
      await row
        .getByRole('alert')
        .getByText(/The test message failed: the receiver answered HTTP 503\./)
        .waitFor();
      await row.getByRole('button', { name: `Deliveries of ${name}` }).click();
      const deliveries = page.getByRole('region', { name: `Deliveries to ${name}` });
      await deliveries.getByRole('cell', { name: 'the receiver answered HTTP 503' }).waitFor();
      expect(await deliveries.getByRole('row').count()).toBe(3);
      expect(await seriousViolations(page)).toEqual([]);

      await openFromMenu(page, 'Dashboard');
      const banner = page.getByRole('region', { name: 'Alerts may not reach anyone' });
      await banner.getByText(`${name} (webhook: the receiver answered HTTP 503)`, { exact: false }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      // The secret never comes back from the API.
      const listed = await t.http
        .get('/api/v1/notification-channels')
        .set(bearer(await login(t)))
        .expect(200);
      expect(listed.text).not.toContain(secret.slice(6));
    },
  );
  it.each(VIEWPORTS)(
    'edits a channel, and asks again for its secret when its URL changes, at the field, before sending ($name)',
    async (viewport) => {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const admin = await login(t);
      const name = `pager-${viewport.name}`;
      const created = await t.http
        .post('/api/v1/notification-channels')
        .set(bearer(admin))
        .send({ name, kind: 'pagerduty', url: `${receiver.url}/pd/${viewport.name}`, secret: 'routing-key-1' })
        .expect(201);
      const path = `/api/v1/notification-channels/${(created.body as { id: string }).id}`;
      await openChannelsAsAdmin(page);

      await page
        .getByRole('row', { name: new RegExp(name) })
        .getByRole('button', { name: `Edit ${name}` })
        .click();
      const form = page.getByRole('form', { name: `Edit ${name}` });
      // The form starts from the channel's settings, and the focus is in it.
      expect(await form.getByLabel('Name').inputValue()).toBe(name);
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('channel-edit-name');
      expect(await form.getByLabel('Enabled: the alert job delivers to it').isChecked()).toBe(true);
      expect(await form.getByLabel('Kind').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);

      // A new URL with the stored routing key kept: asked for at the field, and nothing is sent.
      await form.getByLabel('Events API URL').fill(`${receiver.url}/moved/${viewport.name}`);
      await form.getByLabel('Tags').fill('env:prod, team:web');
      await form.getByRole('button', { name: 'Save the channel' }).click();
      const asked = form.getByText('Enter the routing key again for the new URL', { exact: false });
      await asked.waitFor();
      expect(await form.getByLabel('Routing key').getAttribute('aria-describedby')).toContain('channel-edit-secret-error');
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('channel-edit-secret');
      expect((await t.http.get(path).set(bearer(admin)).expect(200)).body).toMatchObject({
        tags: [],
        urlHost: expect.stringMatching(/^127\.0\.0\.1:/) as unknown,
      });
      expect(await seriousViolations(page)).toEqual([]);

      // The API's refusal is shown as it wrote it: a name another channel has.
      await t.http
        .post('/api/v1/notification-channels')
        .set(bearer(admin))
        .send({ name: `taken-${viewport.name}`, kind: 'slack', url: 'https://hooks.slack.example/x' })
        .expect(201);
      await form.getByLabel('Routing key').fill('routing-key-2');
      await form.getByLabel('Name').fill(`taken-${viewport.name}`);
      await form.getByRole('button', { name: 'Save the channel' }).click();
      await form.getByText('A notification channel with this name already exists.').waitFor();

      // Everything the kind has, changed at once: saved, the form closes and the list shows it.
      await form.getByLabel('Name').fill(`${name}-renamed`);
      await form.getByLabel('Routing key').fill('routing-key-2');
      await form.getByLabel('Certificate revoked').uncheck();
      await form.getByLabel('Enabled: the alert job delivers to it').uncheck();
      await form.getByRole('button', { name: 'Save the channel' }).click();
      await page.getByRole('status').getByText(`Saved ${name}-renamed.`).waitFor();
      expect(await page.getByRole('form', { name: /^Edit / }).count()).toBe(0);
      await page.getByRole('row', { name: new RegExp(`${name}-renamed \\(disabled\\)`) }).waitFor();
      const stored = (await t.http.get(path).set(bearer(admin)).expect(200)).body as Record<string, unknown>;
      expect(stored).toMatchObject({ name: `${name}-renamed`, enabled: false, tags: ['env:prod', 'team:web'], secretSet: true });
      expect(stored.events).not.toContain('cert_revoked');
      // The new routing key went with the new URL: the test event carries it there.
      receiver.requests.length = 0;
      receiver.answer(() => ({ status: 202 }));
      await t.http.post(`${path}/test`).set(bearer(admin)).expect(204);
      expect(receiver.requests[0]).toMatchObject({ path: `/moved/${viewport.name}` });
      expect(JSON.parse(receiver.requests[0].body)).toMatchObject({ routing_key: 'routing-key-2' });

      // A chat channel's mode and digest hour.
      const chat = `chat-${viewport.name}`;
      await t.http
        .post('/api/v1/notification-channels')
        .set(bearer(admin))
        .send({ name: chat, kind: 'slack', url: 'https://hooks.slack.example/services/T/B/c' })
        .expect(201);
      await page.reload();
      await page
        .getByRole('row', { name: new RegExp(chat) })
        .getByRole('button', { name: `Edit ${chat}` })
        .click();
      const chatForm = page.getByRole('form', { name: `Edit ${chat}` });
      expect(await chatForm.getByLabel('Incoming webhook URL').count()).toBe(1);
      expect(await chatForm.getByLabel('Routing key').count()).toBe(0);
      await chatForm.getByLabel('Gather the alerts into one daily digest').check();
      await chatForm.getByLabel('Digest hour (UTC)').selectOption('17');
      await chatForm.getByRole('button', { name: 'Save the channel' }).click();
      await page
        .getByRole('row', { name: new RegExp(chat) })
        .getByText('Daily digest at 17:00 UTC')
        .waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    },
  );
});
