import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Settings, notification template overrides and the alert dedup records. */
export class Notifications1795280400000 implements MigrationInterface {
  name = 'Notifications1795280400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "settings" (
        "key" text NOT NULL,
        "value" jsonb NOT NULL,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "settings_pkey" PRIMARY KEY ("key")
      )`);
    await queryRunner.query(`
      CREATE TABLE "notification_templates" (
        "event_type" text NOT NULL,
        "channel" text NOT NULL,
        "subject" text NOT NULL,
        "body" text NOT NULL,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "notification_templates_pkey" PRIMARY KEY ("event_type", "channel")
      )`);
    await queryRunner.query(`
      CREATE TABLE "alert_records" (
        "user_id" uuid NOT NULL,
        "fingerprint" text COLLATE "C" NOT NULL,
        "threshold" integer NOT NULL,
        "sent_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "alert_records_pkey" PRIMARY KEY ("user_id", "fingerprint", "threshold")
      )`);
    await queryRunner.query(`CREATE INDEX "alert_records_fingerprint_idx" ON "alert_records" ("fingerprint")`);
    await queryRunner.query(`
      ALTER TABLE "alert_records" ADD CONSTRAINT "alert_records_user_id_fkey"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "alert_records"`);
    await queryRunner.query(`DROP TABLE "notification_templates"`);
    await queryRunner.query(`DROP TABLE "settings"`);
  }
}
