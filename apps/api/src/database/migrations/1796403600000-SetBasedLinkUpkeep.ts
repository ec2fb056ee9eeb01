import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a rotation costs PostgreSQL (docs/performance.md, "Rotations and renewals not deployed"):
 * - `endpoints.soonest_not_after` (migration EndpointListSorts) is kept by statement-level
 *   triggers reading the statement's transition tables: one set-based update of the endpoints
 *   whose current links changed, instead of a PL/pgSQL call, a row lock and an update per link.
 *   Every post where each host rotates paid two of those per result. The endpoints are still
 *   locked before their links are read, now in id order, as the ingest locks them.
 * - scan_history's fingerprint index gains the endpoint and the scan time, so "the chain the
 *   endpoint last presented with this certificate" (a rotation's chainComplete) is one index
 *   probe, however many endpoints present that certificate. It still serves every lookup by
 *   fingerprint alone.
 */
export class SetBasedLinkUpkeep1796403600000 implements MigrationInterface {
  name = 'SetBasedLinkUpkeep1796403600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_update" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_delete" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_insert" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP FUNCTION "endpoint_link_changed"()`);
    await queryRunner.query(`DROP FUNCTION "refresh_endpoint_soonest_not_after"(uuid)`);
    await queryRunner.query(
      `CREATE FUNCTION "refresh_endpoints_soonest_not_after"(endpoint_ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM 1 FROM endpoints WHERE id = ANY(endpoint_ids) ORDER BY id FOR UPDATE;
         UPDATE endpoints e SET soonest_not_after = s.not_after
           FROM (SELECT x.id, (SELECT min(l.not_after) FROM endpoint_certificates l WHERE l.endpoint_id = x.id AND l.is_current) AS not_after
                   FROM unnest(endpoint_ids) AS x(id)) s
          WHERE e.id = s.id AND e.soonest_not_after IS DISTINCT FROM s.not_after;
       END $$`,
    );
    // Only what can move the soonest expiry: a current link added or removed, a link becoming
    // current or historical, its notAfter or endpoint changed. A re-sighting (last_seen_at) names none.
    await queryRunner.query(
      `CREATE FUNCTION "endpoint_links_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         endpoint_ids uuid[];
       BEGIN
         IF TG_OP = 'INSERT' THEN
           SELECT array_agg(DISTINCT endpoint_id) INTO endpoint_ids FROM new_links WHERE is_current;
         ELSIF TG_OP = 'DELETE' THEN
           SELECT array_agg(DISTINCT endpoint_id) INTO endpoint_ids FROM old_links WHERE is_current;
         ELSE
           -- A link whose endpoint, currency or notAfter changed is in one table and not the other,
           -- either way; EXCEPT hashes (a join of the statistics-less transition tables loops).
           SELECT array_agg(DISTINCT endpoint_id) INTO endpoint_ids FROM (
             (SELECT id, endpoint_id, is_current, not_after FROM old_links EXCEPT SELECT id, endpoint_id, is_current, not_after FROM new_links)
             UNION ALL
             (SELECT id, endpoint_id, is_current, not_after FROM new_links EXCEPT SELECT id, endpoint_id, is_current, not_after FROM old_links)
           ) changed;
         END IF;
         IF endpoint_ids IS NOT NULL THEN PERFORM refresh_endpoints_soonest_not_after(endpoint_ids); END IF;
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_soonest_insert" AFTER INSERT ON "endpoint_certificates"
         REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION endpoint_links_changed()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_soonest_delete" AFTER DELETE ON "endpoint_certificates"
         REFERENCING OLD TABLE AS old_links FOR EACH STATEMENT EXECUTE FUNCTION endpoint_links_changed()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "endpoint_certificates_soonest_update" AFTER UPDATE ON "endpoint_certificates"
         REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION endpoint_links_changed()`,
    );
    await queryRunner.query(
      `CREATE INDEX "scan_history_fingerprint_endpoint_idx" ON "scan_history" ("fingerprint", "endpoint_id", "scanned_at")`,
    );
    await queryRunner.query(`DROP INDEX "scan_history_fingerprint_idx"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "scan_history_fingerprint_idx" ON "scan_history" ("fingerprint")`);
    await queryRunner.query(`DROP INDEX "scan_history_fingerprint_endpoint_idx"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_update" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_delete" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP TRIGGER "endpoint_certificates_soonest_insert" ON "endpoint_certificates"`);
    await queryRunner.query(`DROP FUNCTION "endpoint_links_changed"()`);
    await queryRunner.query(`DROP FUNCTION "refresh_endpoints_soonest_not_after"(uuid[])`);
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
  }
}
