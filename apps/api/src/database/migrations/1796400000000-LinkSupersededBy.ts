import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each current link keeps the stored renewal superseding its certificate (docs/api-contract.md
 * section 16), so the lists, the `superseded` filter and the dashboard's count read it instead of
 * asking the rule of every link (docs/decisions/0026). Partial indexes hold the few such links.
 * Whether a link keeps one is a counted column (migration CountChangeSignal): the `superseded`
 * filter's count is cached like the list's others, and forgotten when a link starts or stops
 * keeping a renewal (or links are deleted).
 */
export class LinkSupersededBy1796400000000 implements MigrationInterface {
  name = 'LinkSupersededBy1796400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "endpoint_certificates" ADD "superseded_by" text COLLATE "C"`);
    await queryRunner.query(
      `ALTER TABLE "endpoint_certificates" ADD CONSTRAINT "endpoint_certificates_superseded_by_fkey"
         FOREIGN KEY ("superseded_by") REFERENCES "certificates"("fingerprint") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    // The time half of the rule as modules/renewals/superseded-by.ts had it when this migration
    // landed, at the database's clock and the stored alert policy (24 hours unless set).
    await queryRunner.query(
      `UPDATE endpoint_certificates t SET superseded_by = s.fingerprint
         FROM (SELECT l.id, superseding.fingerprint FROM endpoint_certificates l JOIN endpoints e ON e.id = l.endpoint_id
                CROSS JOIN LATERAL (
                  SELECT b.fingerprint FROM certificate_renewals r JOIN certificates b ON b.fingerprint = r.renewal
                   WHERE r.certificate = l.fingerprint AND b.not_after > now()
                     AND b.created_at <= now() - make_interval(hours => coalesce(
                           (SELECT (value->>'supersededAfterHours')::int FROM settings WHERE key = 'alert_policy'), 24))
                   ORDER BY b.not_before DESC, b.fingerprint LIMIT 1) superseding
               WHERE l.is_current AND l.cert_use = 'tls' AND e.type = 'host') s
        WHERE t.id = s.id`,
    );
    await queryRunner.query(
      `CREATE INDEX "endpoint_certificates_superseded_idx" ON "endpoint_certificates" ("endpoint_id") WHERE superseded_by IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "endpoint_certificates_superseded_by_idx" ON "endpoint_certificates" ("superseded_by") WHERE superseded_by IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_count_change_rows" AFTER DELETE OR TRUNCATE ON "endpoint_certificates"
         FOR EACH STATEMENT EXECUTE FUNCTION notify_count_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_count_change_update" AFTER UPDATE OF superseded_by ON "endpoint_certificates" FOR EACH ROW
         WHEN ((OLD.superseded_by IS NULL) <> (NEW.superseded_by IS NULL))
         EXECUTE FUNCTION notify_count_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_count_change_update" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_count_change_rows" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP INDEX "endpoint_certificates_superseded_by_idx"`);
    await queryRunner.query(`DROP INDEX "endpoint_certificates_superseded_idx"`);
    await queryRunner.query(`ALTER TABLE "endpoint_certificates" DROP CONSTRAINT "endpoint_certificates_superseded_by_fkey"`);
    await queryRunner.query(`ALTER TABLE "endpoint_certificates" DROP COLUMN "superseded_by"`);
  }
}
