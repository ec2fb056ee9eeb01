import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ACME renewal information (docs/api-contract.md section 15): the suggested window a CA gave for
 * each certificate and when to ask again, and which configured CA answers for each issuer key id
 * (or, for 24 hours, does not).
 */
export class RenewalInfo1795800000000 implements MigrationInterface {
  name = 'RenewalInfo1795800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "renewal_info" (
        "fingerprint" text COLLATE "C" NOT NULL,
        "ca_name" text NOT NULL,
        "window_start" TIMESTAMP WITH TIME ZONE NOT NULL,
        "window_end" TIMESTAMP WITH TIME ZONE NOT NULL,
        "explanation_url" text,
        "checked_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "next_check_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "renewal_info_pkey" PRIMARY KEY ("fingerprint"),
        CONSTRAINT "renewal_info_fingerprint_fkey" FOREIGN KEY ("fingerprint") REFERENCES "certificates"("fingerprint") ON DELETE CASCADE ON UPDATE NO ACTION
      )`,
    );
    // The alert job and the dashboard look for ended windows.
    await queryRunner.query(`CREATE INDEX "renewal_info_window_end_idx" ON "renewal_info" ("window_end")`);
    await queryRunner.query(
      `CREATE TABLE "renewal_info_issuers" (
        "authority_key_id" text COLLATE "C" NOT NULL,
        "ca_name" text NOT NULL,
        "answers" boolean NOT NULL,
        "checked_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "renewal_info_issuers_pkey" PRIMARY KEY ("authority_key_id", "ca_name")
      )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "renewal_info_issuers"`);
    await queryRunner.query(`DROP TABLE "renewal_info"`);
  }
}
