import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Verified (certificate, issuer) signatures, kept so that trust re-evaluations skip the verification. */
export class TrustVerdicts1795287600000 implements MigrationInterface {
  name = 'TrustVerdicts1795287600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "certificates" ADD "verified_issuers" text array NOT NULL DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "certificates" DROP COLUMN "verified_issuers"`);
  }
}
