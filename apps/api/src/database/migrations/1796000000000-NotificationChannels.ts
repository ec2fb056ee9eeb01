import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notification channels (docs/api-contract.md section 17): webhooks, Slack, Teams, ntfy and
 * PagerDuty an administrator creates, their URL and secret sealed under ENCRYPTION_KEY; the log of
 * every attempt to deliver to them; the PagerDuty incidents resolved. The outbox takes a channel
 * as a recipient beside a user (`channel:<id>`), so that every channel keeps e-mail's
 * exactly-once rule, and deleting the channel deletes its rows.
 */
export class NotificationChannels1796000000000 implements MigrationInterface {
  name = 'NotificationChannels1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "notification_channels" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "kind" text NOT NULL,
        "enabled" boolean NOT NULL DEFAULT true,
        "sealed_url" text NOT NULL,
        "url_host" text NOT NULL,
        "sealed_secret" text,
        "tags" text array NOT NULL DEFAULT '{}',
        "events" text array NOT NULL,
        "mode" text NOT NULL DEFAULT 'immediate',
        "digest_hour" smallint NOT NULL DEFAULT 8,
        "last_digest_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_delivery_at" TIMESTAMP WITH TIME ZONE,
        "last_error" text,
        CONSTRAINT "notification_channels_kind_check" CHECK (kind IN ('webhook', 'slack', 'teams', 'ntfy', 'pagerduty')),
        CONSTRAINT "notification_channels_mode_check" CHECK (mode = 'immediate' OR (mode = 'daily' AND kind IN ('slack', 'teams', 'ntfy'))),
        CONSTRAINT "notification_channels_digest_hour_check" CHECK (digest_hour BETWEEN 0 AND 23),
        CONSTRAINT "notification_channels_pkey" PRIMARY KEY ("id")
      )`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "notification_channels_name_key" ON "notification_channels" ("name")`);
    await queryRunner.query(
      `CREATE TABLE "notification_channel_deliveries" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "seq" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
        "channel_id" uuid NOT NULL,
        "at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "event_type" text NOT NULL,
        "fingerprint" text COLLATE "C",
        "threshold" integer,
        "status" text NOT NULL,
        "http_status" integer,
        "error" text,
        CONSTRAINT "notification_channel_deliveries_status_check" CHECK (status IN ('delivered', 'failed', 'resolved')),
        CONSTRAINT "notification_channel_deliveries_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "notification_channel_deliveries_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX "notification_channel_deliveries_channel_id_seq_idx" ON "notification_channel_deliveries" ("channel_id", "seq")`,
    );
    await queryRunner.query(
      `CREATE TABLE "pagerduty_resolutions" (
        "channel_id" uuid NOT NULL,
        "fingerprint" text COLLATE "C" NOT NULL,
        "resolved_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "pagerduty_resolutions_pkey" PRIMARY KEY ("channel_id", "fingerprint"),
        CONSTRAINT "pagerduty_resolutions_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`,
    );
    await queryRunner.query(`ALTER TABLE "notification_deliveries" DROP CONSTRAINT "notification_deliveries_recipient_check"`);
    await queryRunner.query(`ALTER TABLE "notification_deliveries" ALTER COLUMN "user_id" DROP NOT NULL`);
    await queryRunner.query(`ALTER TABLE "notification_deliveries" ADD "channel_id" uuid`);
    await queryRunner.query(
      `ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_recipient_check" CHECK (
        (user_id IS NOT NULL AND channel_id IS NULL AND recipient = 'user:' || user_id::text)
        OR (channel_id IS NOT NULL AND user_id IS NULL AND recipient = 'channel:' || channel_id::text))`,
    );
    await queryRunner.query(
      `ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`CREATE INDEX "notification_deliveries_channel_id_idx" ON "notification_deliveries" ("channel_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "notification_deliveries" WHERE channel_id IS NOT NULL`);
    await queryRunner.query(`DROP INDEX "notification_deliveries_channel_id_idx"`);
    await queryRunner.query(`ALTER TABLE "notification_deliveries" DROP CONSTRAINT "notification_deliveries_channel_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "notification_deliveries" DROP CONSTRAINT "notification_deliveries_recipient_check"`);
    await queryRunner.query(`ALTER TABLE "notification_deliveries" DROP COLUMN "channel_id"`);
    await queryRunner.query(`ALTER TABLE "notification_deliveries" ALTER COLUMN "user_id" SET NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_recipient_check" CHECK (recipient = 'user:' || user_id::text)`,
    );
    await queryRunner.query(`DROP TABLE "pagerduty_resolutions"`);
    await queryRunner.query(`DROP TABLE "notification_channel_deliveries"`);
    await queryRunner.query(`DROP TABLE "notification_channels"`);
  }
}
