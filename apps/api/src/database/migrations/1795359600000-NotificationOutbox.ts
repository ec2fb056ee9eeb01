import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One outbox for every event type and recipient: `notification_deliveries`, keyed by (recipient,
 * event type, fingerprint, bucket), replaces `alert_records` (user, fingerprint, threshold). Every
 * alert already delivered carries over, as the user's e-mail recipient, with the event type its
 * threshold meant (0 was `cert_expired`), so nobody is alerted again for it after the upgrade.
 */
export class NotificationOutbox1795359600000 implements MigrationInterface {
  name = 'NotificationOutbox1795359600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "notification_deliveries" (
        "recipient" text COLLATE "C" NOT NULL,
        "event_type" text COLLATE "C" NOT NULL,
        "fingerprint" text COLLATE "C" NOT NULL,
        "bucket" integer NOT NULL,
        "user_id" uuid NOT NULL,
        "delivered_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "notification_deliveries_recipient_check" CHECK (recipient = 'user:' || user_id::text),
        CONSTRAINT "notification_deliveries_pkey" PRIMARY KEY ("recipient", "event_type", "fingerprint", "bucket"),
        CONSTRAINT "notification_deliveries_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`,
    );
    await queryRunner.query(`CREATE INDEX "notification_deliveries_fingerprint_idx" ON "notification_deliveries" ("fingerprint")`);
    await queryRunner.query(
      `INSERT INTO "notification_deliveries" (recipient, event_type, fingerprint, bucket, user_id, delivered_at)
       SELECT 'user:' || user_id::text, CASE WHEN threshold = 0 THEN 'cert_expired' ELSE 'cert_expiring' END, fingerprint, threshold, user_id, sent_at
         FROM "alert_records"`,
    );
    await queryRunner.query(`DROP TABLE "alert_records"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "alert_records" (
        "user_id" uuid NOT NULL,
        "fingerprint" text COLLATE "C" NOT NULL,
        "threshold" integer NOT NULL,
        "sent_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "alert_records_pkey" PRIMARY KEY ("user_id", "fingerprint", "threshold"),
        CONSTRAINT "alert_records_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`,
    );
    await queryRunner.query(`CREATE INDEX "alert_records_fingerprint_idx" ON "alert_records" ("fingerprint")`);
    // Only e-mail deliveries of the two expiry events existed before this migration.
    await queryRunner.query(
      `INSERT INTO "alert_records" (user_id, fingerprint, threshold, sent_at)
       SELECT user_id, fingerprint, bucket, delivered_at FROM "notification_deliveries"
        WHERE event_type IN ('cert_expiring', 'cert_expired') AND recipient LIKE 'user:%'`,
    );
    await queryRunner.query(`DROP TABLE "notification_deliveries"`);
  }
}
