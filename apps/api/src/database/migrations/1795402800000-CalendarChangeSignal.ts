import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A NOTIFY on `certkeeper_calendar`, with the table's name, whenever a write could change what a
 * calendar feed shows (CalendarFeedCache, docs/performance.md "Calendar feeds"), on any replica
 * or by hand: a current link added or removed, a link made current or historical (or its
 * notAfter, endpoint or certificate changed), an endpoint's name, type or tags changed, a
 * certificate's common name or notAfter changed. Row triggers with conditions, so what every scan
 * writes (a re-sighting's last_seen_at, an upsert that inserts nothing) notifies nothing; deleting
 * an endpoint deletes its links, which notify. PostgreSQL delivers at commit and folds repeats
 * within a transaction. Users are not watched: the feed reads its owner on every request.
 */
export class CalendarChangeSignal1795402800000 implements MigrationInterface {
  name = 'CalendarChangeSignal1795402800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE FUNCTION "notify_calendar_change"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('certkeeper_calendar', TG_TABLE_NAME);
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_calendar_insert" AFTER INSERT ON "endpoint_certificates" FOR EACH ROW
         WHEN (NEW.is_current) EXECUTE FUNCTION notify_calendar_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_calendar_delete" AFTER DELETE ON "endpoint_certificates" FOR EACH ROW
         WHEN (OLD.is_current) EXECUTE FUNCTION notify_calendar_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_calendar_update" AFTER UPDATE ON "endpoint_certificates" FOR EACH ROW
         WHEN (OLD.is_current IS DISTINCT FROM NEW.is_current OR OLD.not_after IS DISTINCT FROM NEW.not_after
               OR OLD.endpoint_id IS DISTINCT FROM NEW.endpoint_id OR OLD.fingerprint IS DISTINCT FROM NEW.fingerprint)
         EXECUTE FUNCTION notify_calendar_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_calendar_truncate" AFTER TRUNCATE ON "endpoint_certificates"
         FOR EACH STATEMENT EXECUTE FUNCTION notify_calendar_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoints_calendar_update" AFTER UPDATE ON "endpoints" FOR EACH ROW
         WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.type IS DISTINCT FROM NEW.type OR OLD.tags IS DISTINCT FROM NEW.tags)
         EXECUTE FUNCTION notify_calendar_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "certificates_calendar_update" AFTER UPDATE ON "certificates" FOR EACH ROW
         WHEN (OLD.common_name IS DISTINCT FROM NEW.common_name OR OLD.not_after IS DISTINCT FROM NEW.not_after)
         EXECUTE FUNCTION notify_calendar_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "certificates_calendar_update" ON "certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoints_calendar_update" ON "endpoints"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_calendar_truncate" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_calendar_update" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_calendar_delete" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_calendar_insert" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP FUNCTION "notify_calendar_change"()`);
  }
}
