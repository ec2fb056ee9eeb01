import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The endpoint list's sorts and expiry filter (docs/api-contract.md section 4):
 * - `endpoints.soonest_not_after`, the notAfter of the endpoint's current certificate that expires
 *   first (null without one), kept by triggers on endpoint_certificates whoever changes a link
 *   (ingest, upload, a rotation moving a link to history, a cascade), so sorting 100,000
 *   endpoints by it, or filtering on it, is an index range rather than an aggregate per endpoint.
 *   The trigger locks the endpoint row before it reads the links: under READ COMMITTED its next
 *   statement then sees what a concurrent writer of the same endpoint committed, so two
 *   transactions changing one endpoint's links cannot leave the value of either one's snapshot.
 * - `certkeeper_natural`, a case-insensitive ICU collation with numeric ordering ("app 2" before
 *   "app 10"), and the name index over it, which replaces the plain name index (only the list
 *   read it).
 * - Indexes for every sort in both directions. Endpoints without a value (no certificate, never
 *   scanned) come last either way, hence a descending NULLS LAST index beside each ascending one;
 *   created_at is never null, so one index serves both directions.
 */
export class EndpointListSorts1795345200000 implements MigrationInterface {
  name = 'EndpointListSorts1795345200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE COLLATION "certkeeper_natural" (provider = icu, locale = 'und-u-kn-true-ks-level2', deterministic = false)`,
    );
    await queryRunner.query(`ALTER TABLE "endpoints" ADD "soonest_not_after" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `UPDATE "endpoints" e SET "soonest_not_after" = s.not_after
         FROM (SELECT endpoint_id, min(not_after) AS not_after FROM endpoint_certificates WHERE is_current GROUP BY endpoint_id) s
        WHERE s.endpoint_id = e.id`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "refresh_endpoint_soonest_not_after"(endpoint uuid) RETURNS void LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM 1 FROM endpoints WHERE id = endpoint FOR UPDATE;
         UPDATE endpoints e SET soonest_not_after = s.not_after
           FROM (SELECT min(l.not_after) AS not_after FROM endpoint_certificates l WHERE l.endpoint_id = endpoint AND l.is_current) s
          WHERE e.id = endpoint AND e.soonest_not_after IS DISTINCT FROM s.not_after;
       END $$`,
    );
    await queryRunner.query(
      `CREATE FUNCTION "endpoint_link_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP <> 'INSERT' THEN PERFORM refresh_endpoint_soonest_not_after(OLD.endpoint_id); END IF;
         IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.endpoint_id IS DISTINCT FROM OLD.endpoint_id) THEN
           PERFORM refresh_endpoint_soonest_not_after(NEW.endpoint_id);
         END IF;
         RETURN NULL;
       END $$`,
    );
    // Only what can move the soonest expiry: a current link added or removed, a link becoming
    // current or historical. A re-sighting (last_seen_at) fires nothing.
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_soonest_insert" AFTER INSERT ON "endpoint_certificates" FOR EACH ROW
         WHEN (NEW.is_current) EXECUTE FUNCTION endpoint_link_changed()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_soonest_delete" AFTER DELETE ON "endpoint_certificates" FOR EACH ROW
         WHEN (OLD.is_current) EXECUTE FUNCTION endpoint_link_changed()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_soonest_update" AFTER UPDATE ON "endpoint_certificates" FOR EACH ROW
         WHEN (OLD.is_current IS DISTINCT FROM NEW.is_current OR OLD.not_after IS DISTINCT FROM NEW.not_after
               OR OLD.endpoint_id IS DISTINCT FROM NEW.endpoint_id)
         EXECUTE FUNCTION endpoint_link_changed()`,
    );
    await queryRunner.query(`DROP INDEX "endpoints_name_idx"`);
    await queryRunner.query(`CREATE INDEX "endpoints_name_natural_idx" ON "endpoints" (("name" COLLATE "certkeeper_natural"), "id")`);
    await queryRunner.query(`CREATE INDEX "endpoints_soonest_not_after_idx" ON "endpoints" ("soonest_not_after", "id")`);
    await queryRunner.query(
      `CREATE INDEX "endpoints_soonest_not_after_desc_idx" ON "endpoints" ("soonest_not_after" DESC NULLS LAST, "id" DESC)`,
    );
    await queryRunner.query(`CREATE INDEX "endpoints_last_scanned_at_idx" ON "endpoints" ("last_scanned_at", "id")`);
    await queryRunner.query(
      `CREATE INDEX "endpoints_last_scanned_at_desc_idx" ON "endpoints" ("last_scanned_at" DESC NULLS LAST, "id" DESC)`,
    );
    await queryRunner.query(`CREATE INDEX "endpoints_created_at_idx" ON "endpoints" ("created_at", "id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "endpoints_created_at_idx"`);
    await queryRunner.query(`DROP INDEX "endpoints_last_scanned_at_desc_idx"`);
    await queryRunner.query(`DROP INDEX "endpoints_last_scanned_at_idx"`);
    await queryRunner.query(`DROP INDEX "endpoints_soonest_not_after_desc_idx"`);
    await queryRunner.query(`DROP INDEX "endpoints_soonest_not_after_idx"`);
    await queryRunner.query(`DROP INDEX "endpoints_name_natural_idx"`);
    await queryRunner.query(`CREATE INDEX "endpoints_name_idx" ON "endpoints" ("name", "id")`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_update" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_delete" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_insert" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP FUNCTION "endpoint_link_changed"()`);
    await queryRunner.query(`DROP FUNCTION "refresh_endpoint_soonest_not_after"(uuid)`);
    await queryRunner.query(`ALTER TABLE "endpoints" DROP COLUMN "soonest_not_after"`);
    await queryRunner.query(`DROP COLLATION "certkeeper_natural"`);
  }
}
