import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scan now (docs/decisions/0012-scan-now.md): when `POST /endpoints/{id}/scan` last asked for a
 * scan that no ingested result has answered yet. The partial index keeps the agents' long-poll
 * for due work (never scanned, or requested) an index lookup however many endpoints there are.
 */
export class ScanRequests1795309200000 implements MigrationInterface {
  name = 'ScanRequests1795309200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "endpoints" ADD "scan_requested_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "endpoints_scan_due_idx" ON "endpoints" ("scanner_id")
         WHERE ("last_scanned_at" IS NULL OR "scan_requested_at" IS NOT NULL) AND "enabled" AND NOT "scan_exempt" AND "type" IN ('host', 'saml')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "endpoints_scan_due_idx"`);
    await queryRunner.query(`ALTER TABLE "endpoints" DROP COLUMN "scan_requested_at"`);
  }
}
