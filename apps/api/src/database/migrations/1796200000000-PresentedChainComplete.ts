import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether the chain a host's latest successful scan presented was complete, kept beside that
 * chain: the findings read it there (chain_incomplete), and a scan that presents the same chain,
 * as complete as before, changes nothing and recomputes nothing. Filled from the scan history.
 */
export class PresentedChainComplete1796200000000 implements MigrationInterface {
  name = 'PresentedChainComplete1796200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "endpoint_findings" ADD "presented_chain_complete" boolean`);
    await queryRunner.query(
      `UPDATE endpoint_findings f SET presented_chain_complete = latest.chain_complete
         FROM endpoints e
         CROSS JOIN LATERAL (
           SELECT h.chain_complete FROM scan_history h
            WHERE h.endpoint_id = e.id AND h.success ORDER BY h.scanned_at DESC LIMIT 1
         ) latest
        WHERE e.id = f.endpoint_id AND e.type = 'host'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "endpoint_findings" DROP COLUMN "presented_chain_complete"`);
  }
}
