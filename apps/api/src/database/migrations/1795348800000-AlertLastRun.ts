import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The result of the latest alert run, scheduled or on demand, on whichever replica: one row,
 * replaced at the end of every run, read by the dashboard's `alerting` block
 * (docs/api-contract.md section 11), so that it survives restarts and is the same on every replica.
 */
export class AlertLastRun1795348800000 implements MigrationInterface {
  name = 'AlertLastRun1795348800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "alert_last_run" (
        "id" smallint NOT NULL,
        "ran_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "alerts_sent" integer NOT NULL,
        "already_sent" integer NOT NULL,
        "failed" integer NOT NULL,
        CONSTRAINT "alert_last_run_one_row" CHECK (id = 1),
        CONSTRAINT "alert_last_run_pkey" PRIMARY KEY ("id")
      )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "alert_last_run"`);
  }
}
