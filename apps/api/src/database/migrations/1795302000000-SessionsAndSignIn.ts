import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions that end when they should, sign-in throttling, and OIDC sign-in (docs/api-contract.md
 * sections 9 and 10).
 *
 * - A row per signed-in session; a JWT is accepted only while its row exists.
 * - Failed sign-ins per account and per client address, shared by every replica.
 * - A user's identity at the OIDC provider (issuer, subject), unique together.
 * - The one-time codes an OIDC sign-in ends with, and the states of finished callbacks (replays).
 */
export class SessionsAndSignIn1795302000000 implements MigrationInterface {
  name = 'SessionsAndSignIn1795302000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "sessions" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "method" text NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "sessions_method_check" CHECK (method IN ('password', 'oidc')),
        CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "sessions_user_id_idx" ON "sessions" ("user_id")`);
    await queryRunner.query(`CREATE INDEX "sessions_expires_at_idx" ON "sessions" ("expires_at")`);
    await queryRunner.query(`
      ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);

    await queryRunner.query(`
      CREATE TABLE "login_throttle" (
        "key" text NOT NULL,
        "window_started_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "attempts" integer NOT NULL,
        CONSTRAINT "login_throttle_pkey" PRIMARY KEY ("key")
      )`);

    await queryRunner.query(`ALTER TABLE "users" ADD "oidc_issuer" text`);
    await queryRunner.query(`ALTER TABLE "users" ADD "oidc_subject" text`);
    await queryRunner.query(`CREATE UNIQUE INDEX "users_oidc_identity_key" ON "users" ("oidc_issuer", "oidc_subject")`);

    await queryRunner.query(`
      CREATE TABLE "oidc_login_codes" (
        "code_hash" text NOT NULL,
        "user_id" uuid NOT NULL,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "oidc_login_codes_pkey" PRIMARY KEY ("code_hash")
      )`);
    await queryRunner.query(`
      ALTER TABLE "oidc_login_codes" ADD CONSTRAINT "oidc_login_codes_user_id_fkey"
        FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      CREATE TABLE "oidc_used_states" (
        "state_hash" text NOT NULL,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "oidc_used_states_pkey" PRIMARY KEY ("state_hash")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oidc_used_states"`);
    await queryRunner.query(`DROP TABLE "oidc_login_codes"`);
    await queryRunner.query(`DROP INDEX "users_oidc_identity_key"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "oidc_subject"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "oidc_issuer"`);
    await queryRunner.query(`DROP TABLE "login_throttle"`);
    await queryRunner.query(`DROP TABLE "sessions"`);
  }
}
