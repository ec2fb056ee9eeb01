import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Until when an OCSP answer is reused instead of asking its responder again (docs/api-contract.md
 * section 18): its nextUpdate, at most a day after it was read. Null for CRL verdicts, which
 * follow their list, and for an answer that could not be used, which is asked for at the next run.
 */
export class OcspAnswerReuse1796600000000 implements MigrationInterface {
  name = 'OcspAnswerReuse1796600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "certificate_revocations" ADD "next_check_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "certificate_revocations" DROP COLUMN "next_check_at"`);
  }
}
