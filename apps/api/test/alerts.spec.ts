import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { MintedCertificate } from '@certkeeper/domain/testing';
import { Client } from 'pg';
import type { AppConfig } from '../src/config/app-config';
import { ALERT_JOB_LOCK_KEY } from '../src/database/advisory-lock-keys';
import { AdvisoryLockWaitExceeded } from '../src/database/advisory-lock';
import { AlertsScheduler } from '../src/modules/alerts/alerts.scheduler';
import { AlertsService } from '../src/modules/alerts/alerts.service';
import { type AlertFixtures, alertFixtures } from './support/alert-fixtures';
import { DAY } from './support/fake-clock';
import { startSmtpServer, type TestSmtpServer } from './support/smtp';
import { bearer, createTestApp, createUser, login, ADMIN_EMAIL, type TestApp } from './support/test-app';

/** One app, one SMTP server, mail configured; helpers to place certificates in time. */
async function alertWorld(overrides: Partial<AppConfig> = {}): Promise<
  AlertFixtures & {
    t: TestApp;
    admin: string;
    smtp: TestSmtpServer;
    close(): Promise<void>;
  }
> {
  const t = await createTestApp(overrides);
  const admin = await login(t);
  const smtp = await startSmtpServer();
  const mail = {
    enabled: true,
    host: '127.0.0.1',
    port: smtp.port,
    tlsMode: 'none',
    auth: 'none',
    fromAddress: 'alerts@example.com',
    fromName: 'Certkeeper',
  };
  await t.http.put('/api/v1/settings/mail').set(bearer(admin)).send(mail).expect(200);
  // The administrator created by the harness gets alerts too; keep the counts to the users a test makes.
  await t.http.put('/api/v1/me').set(bearer(admin)).send({ notify: false }).expect(200);
  return {
    t,
    admin,
    smtp,
    ...alertFixtures(t),
    close: async () => {
      await smtp.close();
      await t.close();
    },
  };
}

const fingerprintOf = (minted: MintedCertificate) => createHash('sha256').update(minted.der).digest('hex');

describe('the alert job', () => {
  it('sends the 14-day alert at 12 days, nothing more on the next run, and the 7-day alert once 7 days remain', async () => {
    const w = await alertWorld();
    try {
      const user = await createUser(w.t, 'viewer');
      await w.onEndpoint('web', await w.expiringIn(12, 'twelve.example.com'));
      expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
      expect(w.smtp.messages.map((m) => [m.to, m.subject])).toEqual([
        [user.email, 'Certificate for twelve.example.com expires in 12 days'],
      ]);
      expect(await w.run()).toEqual({ alertsSent: 0, alreadySent: 1, failed: 0, failures: [] });

      w.t.clock.advance(5 * DAY);
      expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
      expect(w.smtp.messages.map((m) => m.subject)).toEqual([
        'Certificate for twelve.example.com expires in 12 days',
        'Certificate for twelve.example.com expires in 7 days',
      ]);
      const records = await w.t.app
        .get(DataSource)
        .query<{ threshold: number }[]>('SELECT bucket AS threshold FROM notification_deliveries ORDER BY bucket DESC');
      expect(records.map((r) => r.threshold)).toEqual([14, 7]);
    } finally {
      await w.close();
    }
  });

  it('dedups per user, honours subscriptions, and skips notify=false and disabled users', async () => {
    const w = await alertWorld();
    try {
      const everything = await createUser(w.t, 'viewer');
      const prodOnly = await createUser(w.t, 'operator');
      const quiet = await createUser(w.t, 'viewer', { notify: false });
      const gone = await createUser(w.t, 'viewer');
      await w.t.http.put('/api/v1/me/tag-subscriptions').set(bearer(prodOnly.token)).send(['env:prod']).expect(200);
      await w.t.http.put(`/api/v1/users/${gone.id}`).set(bearer(w.admin)).send({ disabled: true }).expect(200);
      await w.onEndpoint('prod-api', await w.expiringIn(5, 'prod.example.com'), ['env:prod']);
      await w.onEndpoint('test-api', await w.expiringIn(5, 'test.example.com'), ['env:test']);

      expect(await w.run()).toEqual({ alertsSent: 3, alreadySent: 0, failed: 0, failures: [] });
      const byRecipient = (email: string) =>
        w.smtp.messages
          .filter((m) => m.to === email)
          .map((m) => m.subject)
          .sort();
      expect(byRecipient(everything.email)).toEqual([
        'Certificate for prod.example.com expires in 5 days',
        'Certificate for test.example.com expires in 5 days',
      ]);
      expect(byRecipient(prodOnly.email)).toEqual(['Certificate for prod.example.com expires in 5 days']);
      expect(byRecipient(quiet.email)).toEqual([]);
      expect(byRecipient(gone.email)).toEqual([]);
      expect(byRecipient(ADMIN_EMAIL)).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('sends cert_expired once per user for an expired certificate', async () => {
    const w = await alertWorld();
    try {
      const user = await createUser(w.t, 'viewer');
      await w.onEndpoint('old', await w.expiringIn(-3, 'expired.example.com'));
      expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
      w.t.clock.advance(2 * DAY);
      expect(await w.run()).toEqual({ alertsSent: 0, alreadySent: 1, failed: 0, failures: [] });
      expect(w.smtp.messages.map((m) => [m.to, m.subject])).toEqual([[user.email, 'Certificate for expired.example.com has expired']]);
      const records = await w.t.app
        .get(DataSource)
        .query<{ threshold: number }[]>('SELECT bucket AS threshold FROM notification_deliveries');
      expect(records).toEqual([{ threshold: 0 }]);
    } finally {
      await w.close();
    }
  });

  it('names every endpoint a certificate is current on, in one e-mail, with HTML escaping', async () => {
    const w = await alertWorld();
    try {
      await createUser(w.t, 'viewer');
      const minted = await w.expiringIn(3, 'shared <b>&</b> example.com');
      await w.onEndpoint('alpha', minted);
      await w.onEndpoint('beta', minted);
      expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
      const [message] = w.smtp.messages;
      expect(message.text).toContain('alpha, beta');
      expect(message.text).toContain(fingerprintOf(minted));
      expect(message.html).toContain('shared &lt;b&gt;&amp;&lt;/b&gt; example.com');
      expect(message.html).not.toContain('<b>&</b>');
    } finally {
      await w.close();
    }
  });

  it('retries an alert the SMTP server refused, delivering it exactly once after recovery', async () => {
    const w = await alertWorld();
    try {
      await createUser(w.t, 'viewer');
      await w.onEndpoint('web', await w.expiringIn(10, 'retry.example.com'));
      w.smtp.failing = true;
      expect(await w.run()).toEqual({
        alertsSent: 0,
        alreadySent: 0,
        failed: 1,
        failures: [{ reason: 'rejected', replyCode: 451, count: 1 }],
      });
      expect(await w.t.app.get(DataSource).query('SELECT * FROM notification_deliveries')).toEqual([]);
      w.smtp.failing = false;
      expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
      expect(await w.run()).toEqual({ alertsSent: 0, alreadySent: 1, failed: 0, failures: [] });
      expect(w.smtp.messages).toHaveLength(1);
    } finally {
      await w.close();
    }
  });

  it('says why the relay refused each alert, in the run result and one warning line per alert, never in its words', async () => {
    const w = await alertWorld();
    try {
      const [first, second] = await Promise.all([createUser(w.t, 'viewer'), createUser(w.t, 'viewer')]);
      await w.onEndpoint('web', await w.expiringIn(10, 'rejected.example.com'));
      await w.onEndpoint('api', await w.expiringIn(3, 'rejected-too.example.com'));
      const logsBefore = w.t.logs.length;
      w.smtp.rejection = { code: 550, text: 'secret-banner-text' };
      expect(await w.run()).toEqual({
        alertsSent: 0,
        alreadySent: 0,
        failed: 4,
        failures: [{ reason: 'rejected', replyCode: 550, count: 4 }],
      });

      const lines = w.t.logs.slice(logsBefore);
      const warnings = lines.filter((line) => line.level === 'warn' && String(line.msg).startsWith('Alert e-mail'));
      expect(warnings).toHaveLength(4);
      for (const warning of warnings) {
        expect(warning).toMatchObject({ reason: 'rejected', reply_code: 550 });
        expect(warning.msg).toMatch(
          /^Alert e-mail to user [0-9a-f-]{36} not sent, retried on the next run: the relay rejected RCPT TO with reply code 550$/,
        );
      }
      expect(warnings.map((warning) => warning.user_id).sort()).toEqual([first.id, first.id, second.id, second.id].sort());
      expect(lines.find((line) => line.msg === 'alert job finished')).toMatchObject({
        failed: 4,
        failures: [{ reason: 'rejected', replyCode: 550, count: 4 }],
      });
      expect(JSON.stringify(lines)).not.toContain('secret-banner-text');
      // Users are named by id in the log, as elsewhere, not by address.
      for (const user of [first, second]) expect(JSON.stringify(lines)).not.toContain(user.email);

      // The next run retries the four, and the relay now takes them.
      w.smtp.rejection = null;
      expect(await w.run()).toEqual({ alertsSent: 4, alreadySent: 0, failed: 0, failures: [] });
    } finally {
      await w.close();
    }
  });

  it('delivers after the SMTP server itself was down and came back', async () => {
    const w = await alertWorld();
    try {
      await createUser(w.t, 'viewer');
      await w.onEndpoint('web', await w.expiringIn(10, 'down.example.com'));
      const port = w.smtp.port;
      await w.smtp.close();
      expect(await w.run()).toEqual({
        alertsSent: 0,
        alreadySent: 0,
        failed: 1,
        failures: [{ reason: 'refused', replyCode: null, count: 1 }],
      });
      const revived = await startSmtpServer({ port });
      try {
        expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
        expect(revived.messages).toHaveLength(1);
      } finally {
        await revived.close();
      }
    } finally {
      await w.t.close();
    }
  });

  it('sends each alert once when two runs start together', async () => {
    const w = await alertWorld();
    try {
      await Promise.all([createUser(w.t, 'viewer'), createUser(w.t, 'viewer'), createUser(w.t, 'viewer')]);
      for (const n of [1, 2, 3, 4]) await w.onEndpoint(`web-${n}`, await w.expiringIn(n, `c${n}.example.com`));
      const [a, b] = await Promise.all([w.run(), w.run()]);
      expect(a.alertsSent + b.alertsSent).toBe(12);
      expect(a.failed + b.failed).toBe(0);
      expect(w.smtp.messages).toHaveLength(12);
      expect(new Set(w.smtp.messages.map((m) => `${m.to}/${m.subject}`)).size).toBe(12);
    } finally {
      await w.close();
    }
  });

  it('does not re-fire alerts delivered at thresholds that remain when the thresholds change', async () => {
    const w = await alertWorld();
    try {
      await createUser(w.t, 'viewer');
      await w.onEndpoint('web', await w.expiringIn(12, 'stable.example.com'));
      expect((await w.run()).alertsSent).toBe(1);
      await w.t.http.put('/api/v1/settings/alert-thresholds').set(bearer(w.admin)).send([60, 14, 10, 2]).expect(200);
      expect(await w.run()).toEqual({ alertsSent: 0, alreadySent: 1, failed: 0, failures: [] });
    } finally {
      await w.close();
    }
  });

  it('uses a saved template, and falls back to the plain-text default when one fails to render', async () => {
    const w = await alertWorld();
    try {
      await createUser(w.t, 'viewer');
      await w.t.http
        .put('/api/v1/notification-templates/cert_expiring/email')
        .set(bearer(w.admin))
        .send({ subject: 'Renew {{ .CommonName }} now', body: '<p>{{ .EndpointName }} has {{ .DaysRemaining }} days</p>' })
        .expect(200);
      await w.onEndpoint('custom', await w.expiringIn(6, 'custom.example.com'));
      await w.run();
      expect(w.smtp.messages[0]).toMatchObject({ subject: 'Renew custom.example.com now' });
      expect(w.smtp.messages[0].text).toContain('custom has 6 days');

      // A template the engine no longer accepts (stored before a change of rules).
      await w.t.app
        .get(DataSource)
        .query(`UPDATE notification_templates SET body = 'broken {{ .CommonName' WHERE event_type = 'cert_expiring'`);
      await w.onEndpoint('fallback', await w.expiringIn(4, 'fallback.example.com'));
      await w.run();
      const fallback = w.smtp.messages.find((m) => m.text.includes('fallback.example.com'));
      expect(fallback).toBeDefined();
      expect(w.t.logs.some((line) => line.level === 'error' && String(line.msg).includes('failed to render'))).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('sends a template written as plain text as text/plain with its lines, and an HTML one with a text alternative', async () => {
    const w = await alertWorld();
    try {
      await createUser(w.t, 'viewer');
      const plain = 'Hello,\n\n{{ .CommonName }} expires in {{ .DaysRemaining }} days.\n  - renew it\n  - deploy it';
      await w.t.http
        .put('/api/v1/notification-templates/cert_expiring/email')
        .set(bearer(w.admin))
        .send({ subject: 'Renew {{ .CommonName }}', body: plain })
        .expect(200);
      await w.onEndpoint('plain', await w.expiringIn(6, 'plain.example.com'));
      await w.run();
      const [message] = w.smtp.messages;
      expect(message.headers.get('content-type')).toMatchObject({ value: 'text/plain' });
      expect(message.html).toBe('');
      expect(message.text.trimEnd()).toBe('Hello,\n\nplain.example.com expires in 6 days.\n  - renew it\n  - deploy it');

      await w.t.http
        .put('/api/v1/notification-templates/cert_expiring/email')
        .set(bearer(w.admin))
        .send({ subject: 'Renew {{ .CommonName }}', body: '<p>{{ .CommonName }}</p><p>{{ .DaysRemaining }} days</p>' })
        .expect(200);
      await w.onEndpoint('html', await w.expiringIn(5, 'html.example.com'));
      await w.run();
      const html = w.smtp.messages.find((m) => m.subject === 'Renew html.example.com');
      expect(html?.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
      expect(html?.html).toContain('<p>html.example.com</p>');
      expect(html?.text).toMatch(/html\.example\.com\s+5 days/);
    } finally {
      await w.close();
    }
  });

  it('does nothing while mail is disabled, and needs settings:edit to run on demand', async () => {
    const w = await alertWorld();
    try {
      await createUser(w.t, 'viewer');
      await w.onEndpoint('web', await w.expiringIn(3, 'idle.example.com'));
      await w.t.http
        .put('/api/v1/settings/mail')
        .set(bearer(w.admin))
        .send({ enabled: false, host: '127.0.0.1', port: w.smtp.port, fromAddress: 'a@example.com' })
        .expect(200);
      expect(await w.run()).toEqual({ alertsSent: 0, alreadySent: 0, failed: 0, failures: [] });
      const operator = await createUser(w.t, 'operator');
      await w.t.http.post('/api/v1/alerts/run').set(bearer(operator.token)).expect(403);
      await w.t.http.post('/api/v1/alerts/run').expect(401);
    } finally {
      await w.close();
    }
  });

  it('gives every alert a Message-ID from (user, fingerprint, threshold), the same when a lost record makes it go again', async () => {
    const w = await alertWorld();
    try {
      const [alice, bob] = await Promise.all([createUser(w.t, 'viewer'), createUser(w.t, 'viewer')]);
      const minted = await w.expiringIn(10, 'resend.example.com');
      await w.onEndpoint('web', minted);
      expect((await w.run()).alertsSent).toBe(2);
      const expected = (userId: string) =>
        `<alert.${createHash('sha256')
          .update(`${userId}\n${fingerprintOf(minted)}\n14`)
          .digest('hex')
          .slice(0, 40)}@example.com>`;
      const messageIdOf = (email: string) => w.smtp.messages.filter((m) => m.to === email).map((m) => m.headers.get('message-id'));
      expect(messageIdOf(alice.email)).toEqual([expected(alice.id)]);
      expect(messageIdOf(bob.email)).toEqual([expected(bob.id)]);

      // As if the process had died after the server accepted Alice's alert, before its record committed.
      await w.t.app.get(DataSource).query('DELETE FROM notification_deliveries WHERE user_id = $1', [alice.id]);
      expect(await w.run()).toEqual({ alertsSent: 1, alreadySent: 1, failed: 0, failures: [] });
      expect(messageIdOf(alice.email)).toEqual([expected(alice.id), expected(alice.id)]);
      expect(messageIdOf(bob.email)).toEqual([expected(bob.id)]);
    } finally {
      await w.close();
    }
  });

  describe('while another replica holds the job', () => {
    // A second session holding the job's lock, as another replica's run in progress does.
    async function holdJobLock(t: TestApp): Promise<Client> {
      const client = new Client({ connectionString: t.config.databaseUrl });
      await client.connect();
      await client.query('SELECT pg_advisory_lock($1)', [ALERT_JOB_LOCK_KEY]);
      return client;
    }

    it('the route waits past the statement timeout for that run to end, then runs', async () => {
      // A one-second statement deadline: a lock wait that were one statement would fail after a second.
      const w = await alertWorld({ statementTimeoutMs: 1000 });
      const holder = await holdJobLock(w.t);
      try {
        await createUser(w.t, 'viewer');
        await w.onEndpoint('web', await w.expiringIn(10, 'waits.example.com'));
        const started = Date.now();
        const run = w.run();
        await new Promise((resolve) => setTimeout(resolve, 2500));
        expect(w.smtp.messages).toHaveLength(0);
        await holder.query('SELECT pg_advisory_unlock($1)', [ALERT_JOB_LOCK_KEY]);
        expect(await run).toEqual({ alertsSent: 1, alreadySent: 0, failed: 0, failures: [] });
        expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
        // The pool's connections kept their own deadline.
        await expect(w.t.app.get(DataSource).query('SELECT pg_sleep(1.5)')).rejects.toThrow(/statement timeout/);
      } finally {
        await holder.end();
        await w.close();
      }
    });

    it('an on-demand run gives up after its longest wait, and the hourly run skips quietly', async () => {
      const w = await alertWorld();
      const holder = await holdJobLock(w.t);
      try {
        await createUser(w.t, 'viewer');
        await w.onEndpoint('web', await w.expiringIn(10, 'skips.example.com'));
        await expect(w.t.app.get(AlertsService).runJob(300)).rejects.toBeInstanceOf(AdvisoryLockWaitExceeded);

        const errorsBefore = w.t.logs.filter((line) => line.level === 'error').length;
        const started = Date.now();
        await w.t.app.get(AlertsScheduler).runHourly();
        expect(Date.now() - started).toBeLessThan(5000);
        expect(w.t.logs.filter((line) => line.level === 'error')).toHaveLength(errorsBefore);
        expect(w.t.logs.some((line) => String(line.msg).includes('this hourly run is skipped'))).toBe(true);
        expect(w.smtp.messages).toHaveLength(0);

        await holder.query('SELECT pg_advisory_unlock($1)', [ALERT_JOB_LOCK_KEY]);
        await w.t.app.get(AlertsScheduler).runHourly();
        expect(w.smtp.messages).toHaveLength(1);
      } finally {
        await holder.end();
        await w.close();
      }
    });
  });
});
