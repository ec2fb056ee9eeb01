import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, their API keys and scanners: what authentication needs. */
export class InitialSchema1795269600000 implements MigrationInterface {
  name = 'InitialSchema1795269600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "users" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "email" text NOT NULL,
        "name" text NOT NULL DEFAULT '',
        "role" text NOT NULL,
        "password_hash" text,
        "disabled" boolean NOT NULL DEFAULT false,
        "notify" boolean NOT NULL DEFAULT true,
        "tag_subscriptions" text array NOT NULL DEFAULT '{}',
        "calendar_token_hash" text,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "users_role_check" CHECK (role IN ('viewer', 'operator', 'admin')),
        CONSTRAINT "users_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "users_email_key" ON "users" ("email")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "users_calendar_token_hash_key" ON "users" ("calendar_token_hash")`);

    await queryRunner.query(`
      CREATE TABLE "api_keys" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "name" text NOT NULL,
        "key_id" text NOT NULL,
        "secret_hash" text NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "expires_at" TIMESTAMP WITH TIME ZONE,
        "last_used_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "api_keys_user_id_idx" ON "api_keys" ("user_id")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "api_keys_key_id_key" ON "api_keys" ("key_id")`);
    await queryRunner.query(`
      ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_fkey"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);

    await queryRunner.query(`
      CREATE TABLE "scanners" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "is_default" boolean NOT NULL DEFAULT false,
        "token_hash" text NOT NULL,
        "scan_cron_expression" text NOT NULL DEFAULT '0 * * * *',
        "scan_concurrency" integer NOT NULL DEFAULT '5',
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_used_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "scanners_scan_concurrency_check" CHECK (scan_concurrency BETWEEN 1 AND 256),
        CONSTRAINT "scanners_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "scanners_name_key" ON "scanners" ("name")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "scanners_token_hash_key" ON "scanners" ("token_hash")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "scanners_single_default_idx" ON "scanners" ("is_default") WHERE is_default`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "scanners"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
    await queryRunner.query(`DROP TABLE "users"`);
  }
}
