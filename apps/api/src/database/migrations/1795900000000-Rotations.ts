import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rotations and renewals never deployed (docs/api-contract.md section 16): `rotations` records
 * each replacement of an endpoint's current certificate with what changed; `certificates.dns_names`
 * holds the DNS names among the SANs (lower case, no trailing dot), GIN-indexed, so that finding a
 * stored renewal whose names include a certificate's is an index lookup; `certificate_renewals`
 * holds each pair of certificate and renewal by the timeless half of section 16's rule.
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
    await queryRunner.query(
      `CREATE TABLE "certificate_renewals" (
        "certificate" text COLLATE "C" NOT NULL,
        "renewal" text COLLATE "C" NOT NULL,
        CONSTRAINT "certificate_renewals_pkey" PRIMARY KEY ("certificate", "renewal"),
        CONSTRAINT "certificate_renewals_certificate_fkey" FOREIGN KEY ("certificate") REFERENCES "certificates"("fingerprint") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "certificate_renewals_renewal_fkey" FOREIGN KEY ("renewal") REFERENCES "certificates"("fingerprint") ON DELETE CASCADE ON UPDATE NO ACTION
      )`,
    );
    await queryRunner.query(`CREATE INDEX "certificate_renewals_renewal_idx" ON "certificate_renewals" ("renewal")`);
    // The timeless half of the rule as modules/renewals/superseded-by.ts had it when this migration
    // landed, one GIN lookup per certificate (OFFSET 0 keeps the subquery from becoming a join that
    // compares every pair of a store whose certificates share an issuer).
    await queryRunner.query(`ANALYZE "certificates"`);
    await queryRunner.query(
      `INSERT INTO "certificate_renewals" (certificate, renewal)
       SELECT a.fingerprint, renewal.fingerprint FROM certificates a
        CROSS JOIN LATERAL (
          SELECT b.fingerprint FROM certificates b
           WHERE cardinality(a.dns_names) > 0 AND b.dns_names @> a.dns_names
             AND b.not_before >= a.not_before + interval '1 hour' AND b.key_algorithm = a.key_algorithm
             AND coalesce(b.issuer_organization, b.issuer) = coalesce(a.issuer_organization, a.issuer)
          OFFSET 0) renewal`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "certificate_renewals"`);
    await queryRunner.query(`DROP INDEX "certificates_dns_names_idx"`);
    await queryRunner.query(`ALTER TABLE "certificates" DROP COLUMN "dns_names"`);
    await queryRunner.query(`DROP TABLE "rotations"`);
  }
}
