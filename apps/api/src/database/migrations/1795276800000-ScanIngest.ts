import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Scan ingestion: idempotent results, TLS profile history, SAML documents kept once by digest. */
export class ScanIngest1795276800000 implements MigrationInterface {
  name = 'ScanIngest1795276800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scan_history" ADD "result_id" uuid`);
    await queryRunner.query(`CREATE UNIQUE INDEX "scan_history_result_id_key" ON "scan_history" ("result_id")`);

    await queryRunner.query(`
      CREATE TABLE "endpoint_tls_profile_history" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "endpoint_id" uuid NOT NULL,
        "scanned_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "versions" jsonb NOT NULL,
        "negotiated_version" text,
        "negotiated_cipher_suite" text,
        CONSTRAINT "endpoint_tls_profile_history_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "endpoint_tls_profile_history_endpoint_idx" ON "endpoint_tls_profile_history" ("endpoint_id", "scanned_at")`,
    );
    await queryRunner.query(`
      ALTER TABLE "endpoint_tls_profile_history" ADD CONSTRAINT "endpoint_tls_profile_history_endpoint_id_fkey"
        FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);

    await queryRunner.query(`
      CREATE TABLE "saml_documents" (
        "digest" text COLLATE "C" NOT NULL,
        "document" text NOT NULL,
        "bytes" integer NOT NULL,
        "first_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "saml_documents_pkey" PRIMARY KEY ("digest")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "saml_documents"`);
    await queryRunner.query(`DROP TABLE "endpoint_tls_profile_history"`);
    await queryRunner.query(`DROP INDEX "scan_history_result_id_key"`);
    await queryRunner.query(`ALTER TABLE "scan_history" DROP COLUMN "result_id"`);
  }
}
