import { NotificationOutbox1795359600000 } from '../src/database/migrations/1795359600000-NotificationOutbox';
import { AlertsRepository } from '../src/modules/alerts/alerts.repository';
import { databaseBeforeMigration } from './support/migration-database';

describe('the notification outbox migration', () => {
  // The schema as it was just before: later migrations build on the outbox.
  const database = databaseBeforeMigration('outbox_migration', NotificationOutbox1795359600000);

  it('carries every delivered alert over, so nobody is alerted again for it after the upgrade', async () => {
    const userId = await database.use(async (before) => {
      const [{ id }] = await before.query<{ id: string }[]>(
        `INSERT INTO users (email, name, role, notify) VALUES ('alerted@example.com', 'Alerted', 'viewer', true) RETURNING id`,
      );
      await before.query(
        `INSERT INTO alert_records (user_id, fingerprint, threshold, sent_at)
         VALUES ($1, 'aa', 14, '2026-05-01T00:00:00Z'), ($1, 'aa', 7, '2026-05-08T00:00:00Z'), ($1, 'bb', 0, '2026-05-09T00:00:00Z')`,
        [id],
      );
      return id;
    });

    await database.upgrade(async (after, applied) => {
      expect(applied[0]).toBe('NotificationOutbox1795359600000');
      const rows = await after.query<unknown[]>(
        `SELECT recipient, event_type AS "eventType", fingerprint, bucket, delivered_at AS "deliveredAt"
           FROM notification_deliveries ORDER BY fingerprint, bucket DESC`,
      );
      expect(rows).toEqual([
        {
          recipient: `user:${userId}`,
          eventType: 'cert_expiring',
          fingerprint: 'aa',
          bucket: 14,
          deliveredAt: new Date('2026-05-01T00:00:00Z'),
        },
        {
          recipient: `user:${userId}`,
          eventType: 'cert_expiring',
          fingerprint: 'aa',
          bucket: 7,
          deliveredAt: new Date('2026-05-08T00:00:00Z'),
        },
        {
          recipient: `user:${userId}`,
          eventType: 'cert_expired',
          fingerprint: 'bb',
          bucket: 0,
          deliveredAt: new Date('2026-05-09T00:00:00Z'),
        },
      ]);
      // The job asks the outbox this question before sending: only the bucket never delivered is due.
      const due = [
        { eventType: 'cert_expiring' as const, fingerprint: 'aa', bucket: 7 },
        { eventType: 'cert_expiring' as const, fingerprint: 'aa', bucket: 1 },
        { eventType: 'cert_expired' as const, fingerprint: 'bb', bucket: 0 },
      ];
      expect(await new AlertsRepository(after).undelivered([`user:${userId}`], due)).toEqual([
        { recipient: `user:${userId}`, eventType: 'cert_expiring', fingerprint: 'aa', bucket: 1 },
      ]);

      // Deleting the user deletes its deliveries, as it deleted its alert records.
      await after.query('DELETE FROM users WHERE id = $1', [userId]);
      expect(await after.query('SELECT * FROM notification_deliveries')).toEqual([]);
    });
  });
});
