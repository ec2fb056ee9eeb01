import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A change version per counted table, for the exact count cache (docs/performance.md, "Counts").
 * A write that could change a cached count bumps the table's sequence, holding the advisory lock
 * COUNTED_WRITES_LOCK_KEY (7341400) shared until it commits: a reader that gets the lock
 * exclusively knows every bump it sees is committed. Inserts and deletes bump once per statement;
 * updates bump only when a counted column changes, so the ingest's every-scan updates (last scan
 * time, latest error text) leave the counts cached.
 *
 * Counted columns: endpoints (type, enabled, whether error_since is set, tags, starttls,
 * search_text); certificates (search_text, fingerprint). A new cached count over another column
 * must add it here in a new migration.
 */
export class CountVersions1795320000000 implements MigrationInterface {
  name = 'CountVersions1795320000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // setval marks each sequence called, so its first bump moves last_value (1 to 2) where readers see it.
    await queryRunner.query(`CREATE SEQUENCE "endpoints_count_version"`);
    await queryRunner.query(`CREATE SEQUENCE "certificates_count_version"`);
    await queryRunner.query(`SELECT setval('endpoints_count_version', 1), setval('certificates_count_version', 1)`);
    await queryRunner.query(
      `CREATE FUNCTION "bump_count_version"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_advisory_xact_lock_shared(7341400);
         PERFORM nextval(TG_ARGV[0]::regclass);
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoints_count_version_rows" AFTER INSERT OR DELETE OR TRUNCATE ON "endpoints"
         FOR EACH STATEMENT EXECUTE FUNCTION bump_count_version('endpoints_count_version')`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoints_count_version_update" AFTER UPDATE ON "endpoints" FOR EACH ROW
         WHEN (OLD.type IS DISTINCT FROM NEW.type OR OLD.enabled IS DISTINCT FROM NEW.enabled
               OR (OLD.error_since IS NULL) <> (NEW.error_since IS NULL) OR OLD.tags IS DISTINCT FROM NEW.tags
               OR OLD.starttls IS DISTINCT FROM NEW.starttls OR OLD.search_text IS DISTINCT FROM NEW.search_text)
         EXECUTE FUNCTION bump_count_version('endpoints_count_version')`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "certificates_count_version_rows" AFTER INSERT OR DELETE OR TRUNCATE ON "certificates"
         FOR EACH STATEMENT EXECUTE FUNCTION bump_count_version('certificates_count_version')`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "certificates_count_version_update" AFTER UPDATE ON "certificates" FOR EACH ROW
         WHEN (OLD.search_text IS DISTINCT FROM NEW.search_text OR OLD.fingerprint IS DISTINCT FROM NEW.fingerprint)
         EXECUTE FUNCTION bump_count_version('certificates_count_version')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "certificates_count_version_update" ON "certificates"`);
    await queryRunner.query(`DROP TRIGGER "certificates_count_version_rows" ON "certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoints_count_version_update" ON "endpoints"`);
    await queryRunner.query(`DROP TRIGGER "endpoints_count_version_rows" ON "endpoints"`);
    await queryRunner.query(`DROP FUNCTION "bump_count_version"()`);
    await queryRunner.query(`DROP SEQUENCE "certificates_count_version"`);
    await queryRunner.query(`DROP SEQUENCE "endpoints_count_version"`);
  }
}
