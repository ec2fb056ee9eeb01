import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Counts over stored findings join the count cache (docs/performance.md "Counts"): a NOTIFY on
 * `certkeeper_counts` with `endpoint_findings` whenever a row's codes change, on any replica or by
 * hand. Row triggers with conditions, since every host result upserts the row for its presented
 * chain: a row created or deleted without codes, and an update leaving the codes as they were, can
 * change no finding count, and notify nothing. PostgreSQL folds the repeats of one transaction (a
 * recomputation of every endpoint) into one notification at its commit.
 */
export class FindingCountChangeSignal1796607200000 implements MigrationInterface {
  name = 'FindingCountChangeSignal1796607200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_findings_count_change_insert" AFTER INSERT ON "endpoint_findings" FOR EACH ROW
         WHEN (NEW.codes <> '{}') EXECUTE FUNCTION notify_count_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_findings_count_change_update" AFTER UPDATE ON "endpoint_findings" FOR EACH ROW
         WHEN (OLD.codes IS DISTINCT FROM NEW.codes) EXECUTE FUNCTION notify_count_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_findings_count_change_delete" AFTER DELETE ON "endpoint_findings" FOR EACH ROW
         WHEN (OLD.codes <> '{}') EXECUTE FUNCTION notify_count_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_findings_count_change_truncate" AFTER TRUNCATE ON "endpoint_findings"
         FOR EACH STATEMENT EXECUTE FUNCTION notify_count_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const change of ['truncate', 'delete', 'update', 'insert'])
      await queryRunner.query(`DROP TRIGGER "endpoint_findings_count_change_${change}" ON "endpoint_findings"`);
  }
}
