import { EmailSender } from '../src/modules/alerts/senders/email.sender';
import type { Notification } from '../src/modules/alerts/senders/notification-sender';
import { startSmtpServer } from './support/smtp';
import { bearer, createTestApp, login } from './support/test-app';

/** The e-mail sender behind NotificationSender, against a real SMTP server (docs/architecture.md, "Alerts and calendar"). */
describe('the e-mail sender', () => {
  const notification: Notification = {
    recipient: {
      key: 'user:0e0f8d1c-7a55-4c1e-9a53-1b2a4f1b2c3d',
      channel: 'email',
      address: 'ops@example.com',
      tags: [],
      userId: '0e0f8d1c-7a55-4c1e-9a53-1b2a4f1b2c3d',
      channelId: null,
      events: null,
      digest: null,
    },
    eventType: 'cert_expiring',
    fingerprint: 'ab'.repeat(32),
    bucket: 7,
    values: {
      EndpointName: 'web',
      EndpointType: 'host',
      CommonName: 'web.example.com',
      NotAfter: '2026-06-08 12:00 UTC',
      DaysRemaining: '6',
      Fingerprint: 'ab'.repeat(32),
    },
    eventValues: {},
    certificate: { fingerprint: 'ab'.repeat(32), commonName: 'web.example.com', notAfter: new Date('2026-06-08T12:00:00Z'), endpoints: [] },
  };

  it('is off while mail is, resolves delivered once the relay accepted, failed when it refused, and sends nothing on an aborted signal', async () => {
    const t = await createTestApp();
    const smtp = await startSmtpServer();
    try {
      const sender = t.app.get(EmailSender);
      expect(await sender.open()).toBeNull();

      await t.http
        .put('/api/v1/settings/mail')
        .set(bearer(await login(t)))
        .send({ enabled: true, host: '127.0.0.1', port: smtp.port, tlsMode: 'none', auth: 'none', fromAddress: 'alerts@example.com' })
        .expect(200);
      const session = (await sender.open())!;
      try {
        const live = new AbortController().signal;
        expect(await session.send(notification, { signal: live })).toEqual({ status: 'delivered' });
        expect(smtp.messages.map((m) => [m.to, m.subject])).toEqual([
          ['ops@example.com', 'Certificate for web.example.com expires in 6 days'],
        ]);

        smtp.rejection = { code: 550, text: 'no such mailbox, secret relay detail' };
        expect(await session.send(notification, { signal: live })).toEqual({
          status: 'failed',
          failure: {
            reason: 'rejected',
            replyCode: 550,
            description: 'the relay rejected RCPT TO with reply code 550',
          },
        });
        smtp.rejection = null;

        const aborted = AbortSignal.abort();
        await expect(session.send(notification, { signal: aborted })).rejects.toThrow();
        expect(smtp.messages).toHaveLength(1);
      } finally {
        session.close();
      }
    } finally {
      await smtp.close();
      await t.close();
    }
  });
});
