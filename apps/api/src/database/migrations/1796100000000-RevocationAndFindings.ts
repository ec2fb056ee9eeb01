import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revocation and findings (docs/api-contract.md section 18): each certificate's latest revocation
 * check, the CRLs fetched with the serials they revoke (one CRL's rows replaced at a time, so a
 * check over many certificates is a join, never a CRL held in memory per certificate), and each
 * endpoint's findings, GIN-indexed so the list filters on them.
 */
export class RevocationAndFindings1796100000000 implements MigrationInterface {
  name = 'RevocationAndFindings1796100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "certificate_revocations" (
        "fingerprint" text COLLATE "C" NOT NULL,
        "status" text NOT NULL,
        "source" text NOT NULL,
        "revoked_at" TIMESTAMP WITH TIME ZONE,
        "reason" text,
        "checked_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "error" text,
        CONSTRAINT "certificate_revocations_status_check" CHECK (status IN ('good', 'revoked', 'unknown')),
        CONSTRAINT "certificate_revocations_source_check" CHECK (source IN ('crl', 'ocsp')),
        CONSTRAINT "certificate_revocations_pkey" PRIMARY KEY ("fingerprint"),
        CONSTRAINT "certificate_revocations_fingerprint_fkey" FOREIGN KEY ("fingerprint") REFERENCES "certificates"("fingerprint") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE "revocation_lists" (
        "url" text COLLATE "C" NOT NULL,
        "fetched_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "next_fetch_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "this_update" TIMESTAMP WITH TIME ZONE,
        "next_update" TIMESTAMP WITH TIME ZONE,
        "error" text,
        CONSTRAINT "revocation_lists_pkey" PRIMARY KEY ("url")
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE "revoked_serials" (
        "crl_url" text COLLATE "C" NOT NULL,
        "serial_number" text COLLATE "C" NOT NULL,
        "revoked_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "reason" text,
        CONSTRAINT "revoked_serials_pkey" PRIMARY KEY ("crl_url", "serial_number"),
        CONSTRAINT "revoked_serials_crl_url_fkey" FOREIGN KEY ("crl_url") REFERENCES "revocation_lists"("url") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE "endpoint_findings" (
        "endpoint_id" uuid NOT NULL,
        "codes" text array NOT NULL DEFAULT '{}',
        "ignored" text array NOT NULL DEFAULT '{}',
        "presented_chain" text array NOT NULL DEFAULT '{}',
        "computed_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "endpoint_findings_pkey" PRIMARY KEY ("endpoint_id"),
        CONSTRAINT "endpoint_findings_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE
      )`,
    );
    await queryRunner.query(`CREATE INDEX "endpoint_findings_codes_idx" ON "endpoint_findings" USING gin ("codes")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "endpoint_findings"`);
    await queryRunner.query(`DROP TABLE "revoked_serials"`);
    await queryRunner.query(`DROP TABLE "revocation_lists"`);
    await queryRunner.query(`DROP TABLE "certificate_revocations"`);
  }
}
