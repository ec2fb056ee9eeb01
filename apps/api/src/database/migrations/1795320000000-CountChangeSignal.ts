import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A NOTIFY on `certkeeper_counts`, with the table's name, whenever a write could change a count
 * the API caches (CountCache, docs/performance.md "Counts"), on any replica or by hand. Inserts
 * and deletes notify once per statement; updates only when a counted column changes, so what
 * every scan writes (the last scan time, the error text) leaves the counts cached. PostgreSQL
 * delivers at commit and folds repeats within a transaction.
 *
 * Counted columns: endpoints (type, enabled, whether error_since is set, tags, starttls,
 * search_text); certificates (search_text, fingerprint). A cached count over another column must
 * add it here in a new migration.
 */
export class CountChangeSignal1795320000000 implements MigrationInterface {
  name = 'CountChangeSignal1795320000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE FUNCTION "notify_count_change"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('certkeeper_counts', TG_TABLE_NAME);
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoints_count_change_rows" AFTER INSERT OR DELETE OR TRUNCATE ON "endpoints"
         FOR EACH STATEMENT EXECUTE FUNCTION notify_count_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoints_count_change_update" AFTER UPDATE ON "endpoints" FOR EACH ROW
         WHEN (OLD.type IS DISTINCT FROM NEW.type OR OLD.enabled IS DISTINCT FROM NEW.enabled
               OR (OLD.error_since IS NULL) <> (NEW.error_since IS NULL) OR OLD.tags IS DISTINCT FROM NEW.tags
               OR OLD.starttls IS DISTINCT FROM NEW.starttls OR OLD.search_text IS DISTINCT FROM NEW.search_text)
         EXECUTE FUNCTION notify_count_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "certificates_count_change_rows" AFTER INSERT OR DELETE OR TRUNCATE ON "certificates"
         FOR EACH STATEMENT EXECUTE FUNCTION notify_count_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "certificates_count_change_update" AFTER UPDATE ON "certificates" FOR EACH ROW
         WHEN (OLD.search_text IS DISTINCT FROM NEW.search_text OR OLD.fingerprint IS DISTINCT FROM NEW.fingerprint)
         EXECUTE FUNCTION notify_count_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "certificates_count_change_update" ON "certificates"`);
    await queryRunner.query(`DROP TRIGGER "certificates_count_change_rows" ON "certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoints_count_change_update" ON "endpoints"`);
    await queryRunner.query(`DROP TRIGGER "endpoints_count_change_rows" ON "endpoints"`);
    await queryRunner.query(`DROP FUNCTION "notify_count_change"()`);
  }
}
