import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rotations and renewals never deployed (docs/api-contract.md section 16): `rotations` records
 * each replacement of an endpoint's current certificate with what changed; `certificates.dns_names`
 * holds the DNS names among the SANs (lower case, no trailing dot), GIN-indexed, so that finding a
 * stored renewal whose names include a deployed certificate's is an index lookup.
 */
export class Rotations1795900000000 implements MigrationInterface {
  name = 'Rotations1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "rotations" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "endpoint_id" uuid NOT NULL,
        "cert_use" text NOT NULL,
        "at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "from_fingerprint" text COLLATE "C" NOT NULL,
        "to_fingerprint" text COLLATE "C" NOT NULL,
        "changes" jsonb NOT NULL,
        "regressions" text array NOT NULL,
        CONSTRAINT "rotations_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "rotations_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`,
    );
    await queryRunner.query(`CREATE INDEX "rotations_endpoint_at_idx" ON "rotations" ("endpoint_id", "at", "id")`);
    await queryRunner.query(`CREATE INDEX "rotations_regressed_idx" ON "rotations" ("to_fingerprint") WHERE cardinality(regressions) > 0`);
    await queryRunner.query(`ALTER TABLE "certificates" ADD "dns_names" text array NOT NULL DEFAULT '{}'`);
    // The rule of dnsNamesOf (libs/domain): no ':', '@' or '/' (IPv6, e-mail, URI) and not an IPv4 address.
    await queryRunner.query(
      `UPDATE "certificates" SET dns_names = ARRAY(
         SELECT DISTINCT lower(regexp_replace(san, '\\.$', '')) FROM unnest(sans) AS san
          WHERE san !~ '[:@/]' AND san !~ '^[0-9]+(\\.[0-9]+){3}$' ORDER BY 1)
        WHERE cardinality(sans) > 0`,
    );
    await queryRunner.query(`CREATE INDEX "certificates_dns_names_idx" ON "certificates" USING gin ("dns_names")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "certificates_dns_names_idx"`);
    await queryRunner.query(`ALTER TABLE "certificates" DROP COLUMN "dns_names"`);
    await queryRunner.query(`DROP TABLE "rotations"`);
  }
}
