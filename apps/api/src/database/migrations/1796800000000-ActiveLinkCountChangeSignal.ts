import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The active list's count joins the count cache (docs/performance.md "Counts"): at 100,000 current
 * links, counting them took PostgreSQL more CPU than the page itself, on every request. Its
 * columns become counted ones (migration CountChangeSignal): a NOTIFY on `certkeeper_counts` with
 * `endpoint_certificates` when a current link is created, when a link becomes current or
 * historical, and when a current link's use or endpoint changes. Deletes already notify (migration
 * LinkSupersededBy). Row triggers with conditions: every host result's sighting sets its links
 * current again, and a link that already was notifies nothing, so a steady fleet keeps the count
 * cached. PostgreSQL folds the repeats of one transaction into one notification at its commit.
 */
export class ActiveLinkCountChangeSignal1796800000000 implements MigrationInterface {
  name = 'ActiveLinkCountChangeSignal1796800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_count_change_insert" AFTER INSERT ON "endpoint_certificates" FOR EACH ROW
         WHEN (NEW.is_current) EXECUTE FUNCTION notify_count_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_count_change_current" AFTER UPDATE OF is_current, cert_use, endpoint_id
         ON "endpoint_certificates" FOR EACH ROW
         WHEN (OLD.is_current IS DISTINCT FROM NEW.is_current
               OR (NEW.is_current AND (OLD.cert_use IS DISTINCT FROM NEW.cert_use OR OLD.endpoint_id IS DISTINCT FROM NEW.endpoint_id)))
         EXECUTE FUNCTION notify_count_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_count_change_current" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_count_change_insert" ON "endpoint_certificates"`);
  }
}
