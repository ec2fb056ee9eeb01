import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pruning asks, per certificate, whether any scan-history row still names it. Without an index a
 * plan built on statistics from before the nightly purge scans the whole history per certificate
 * (over 1,000,000 rows that outlived the statement timeout). The column takes the "C" collation
 * of every other fingerprint column, or the join to certificates could not use the index.
 */
export class ScanHistoryFingerprintIndex1795291200000 implements MigrationInterface {
  name = 'ScanHistoryFingerprintIndex1795291200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scan_history" ALTER COLUMN "fingerprint" TYPE text COLLATE "C"`);
    await queryRunner.query(`CREATE INDEX "scan_history_fingerprint_idx" ON "scan_history" ("fingerprint")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "scan_history_fingerprint_idx"`);
    await queryRunner.query(`ALTER TABLE "scan_history" ALTER COLUMN "fingerprint" TYPE text`);
  }
}
