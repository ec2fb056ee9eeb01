import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Audit log, endpoints with their scan history and TLS profile, certificates and their links. */
export class Inventory1795273200000 implements MigrationInterface {
  name = 'Inventory1795273200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Trigram indexes for substring search. pg_trgm is a trusted extension: a database owner may create it.
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);

    // Exactly one default scanner whenever any scanner exists. The partial unique index of the
    // first migration forbids two; this deferred check forbids none, at commit, so a transaction
    // may move the flag in two steps.
    await queryRunner.query(`
      CREATE FUNCTION scanners_check_single_default() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM scanners) AND NOT EXISTS (SELECT 1 FROM scanners WHERE is_default) THEN
          RAISE EXCEPTION 'exactly one scanner must be the default' USING ERRCODE = 'check_violation', CONSTRAINT = 'scanners_single_default_check';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER scanners_single_default_check
        AFTER INSERT OR UPDATE OF is_default OR DELETE ON scanners
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION scanners_check_single_default()`);

    await queryRunner.query(`
      CREATE TABLE "audit_log" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "actor" text NOT NULL,
        "actor_id" uuid,
        "action" text NOT NULL,
        "target_type" text NOT NULL,
        "target_id" text,
        "request_id" text,
        "details" jsonb NOT NULL DEFAULT '{}',
        CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "audit_log_at_idx" ON "audit_log" ("at")`);
    await queryRunner.query(`CREATE INDEX "audit_log_action_idx" ON "audit_log" ("action")`);
    await queryRunner.query(`CREATE INDEX "audit_log_target_id_idx" ON "audit_log" ("target_id")`);

    await queryRunner.query(`
      CREATE TABLE "endpoints" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "type" text NOT NULL,
        "enabled" boolean NOT NULL DEFAULT true,
        "scan_exempt" boolean NOT NULL DEFAULT false,
        "scanner_id" uuid,
        "notes" text NOT NULL DEFAULT '',
        "tags" text array NOT NULL DEFAULT '{}',
        "dns_name" text,
        "port" integer,
        "ip_address" text,
        "metadata_url" text,
        "search_text" text NOT NULL DEFAULT '',
        "saml_metadata" jsonb,
        "error_since" TIMESTAMP WITH TIME ZONE,
        "last_scanned_at" TIMESTAMP WITH TIME ZONE,
        "last_scan_error" text,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "endpoints_port_check" CHECK (port BETWEEN 1 AND 65535),
        CONSTRAINT "endpoints_type_check" CHECK (type IN ('host', 'saml', 'manual')),
        CONSTRAINT "endpoints_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "endpoints_name_idx" ON "endpoints" ("name", "id")`);
    await queryRunner.query(`CREATE INDEX "endpoints_host_identity_idx" ON "endpoints" ("dns_name", "port")`);
    await queryRunner.query(`CREATE INDEX "endpoints_metadata_url_idx" ON "endpoints" ("metadata_url")`);
    await queryRunner.query(`CREATE INDEX "endpoints_scanner_id_idx" ON "endpoints" ("scanner_id")`);
    await queryRunner.query(`CREATE INDEX "endpoints_tags_idx" ON "endpoints" USING gin ("tags")`);
    await queryRunner.query(`CREATE INDEX "endpoints_search_text_trgm_idx" ON "endpoints" USING gin ("search_text" gin_trgm_ops)`);
    await queryRunner.query(`
      ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_scanner_id_fkey"
        FOREIGN KEY ("scanner_id") REFERENCES "scanners"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);

    await queryRunner.query(`
      CREATE TABLE "scan_history" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "endpoint_id" uuid NOT NULL,
        "scanned_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "success" boolean NOT NULL,
        "error" text,
        "resolved_ip" text,
        "fingerprint" text,
        "tls_version" text,
        "chain_complete" boolean,
        "scanner_id" uuid,
        CONSTRAINT "scan_history_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "scan_history_endpoint_scanned_at_idx" ON "scan_history" ("endpoint_id", "scanned_at")`);
    await queryRunner.query(`
      ALTER TABLE "scan_history" ADD CONSTRAINT "scan_history_endpoint_id_fkey"
        FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);

    await queryRunner.query(`
      CREATE TABLE "endpoint_tls_profiles" (
        "endpoint_id" uuid NOT NULL,
        "scanned_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "versions" jsonb NOT NULL,
        "negotiated_version" text,
        "negotiated_cipher_suite" text,
        CONSTRAINT "endpoint_tls_profiles_pkey" PRIMARY KEY ("endpoint_id")
      )`);
    await queryRunner.query(`
      ALTER TABLE "endpoint_tls_profiles" ADD CONSTRAINT "endpoint_tls_profiles_endpoint_id_fkey"
        FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);

    await queryRunner.query(`
      CREATE TABLE "certificates" (
        "fingerprint" text COLLATE "C" NOT NULL,
        "sha1_fingerprint" text COLLATE "C" NOT NULL,
        "der" bytea NOT NULL,
        "serial_number" text NOT NULL,
        "subject" text NOT NULL,
        "issuer" text NOT NULL,
        "subject_dn_hash" text,
        "issuer_dn_hash" text,
        "common_name" text,
        "subject_organization" text,
        "subject_organizational_unit" text,
        "issuer_common_name" text,
        "issuer_organization" text,
        "sans" text array NOT NULL DEFAULT '{}',
        "search_text" text NOT NULL DEFAULT '',
        "not_before" TIMESTAMP WITH TIME ZONE NOT NULL,
        "not_after" TIMESTAMP WITH TIME ZONE NOT NULL,
        "key_algorithm" text NOT NULL,
        "key_size" integer,
        "key_curve" text,
        "signature_algorithm" text NOT NULL,
        "key_usage" text array NOT NULL DEFAULT '{}',
        "extended_key_usage" text array NOT NULL DEFAULT '{}',
        "ocsp_urls" text array NOT NULL DEFAULT '{}',
        "ca_issuers_urls" text array NOT NULL DEFAULT '{}',
        "crl_distribution_points" text array NOT NULL DEFAULT '{}',
        "subject_key_id" text,
        "authority_key_id" text,
        "is_ca" boolean NOT NULL,
        "path_length" integer,
        "self_signed" boolean NOT NULL,
        "trusted_by" text array NOT NULL DEFAULT '{}',
        "is_trust_anchor" boolean NOT NULL DEFAULT false,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "certificates_pkey" PRIMARY KEY ("fingerprint")
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "certificates_sha1_fingerprint_key" ON "certificates" ("sha1_fingerprint")`);
    await queryRunner.query(`CREATE INDEX "certificates_not_after_idx" ON "certificates" ("not_after")`);
    await queryRunner.query(`CREATE INDEX "certificates_serial_number_idx" ON "certificates" ("serial_number")`);
    await queryRunner.query(`CREATE INDEX "certificates_subject_key_id_idx" ON "certificates" ("subject_key_id")`);
    await queryRunner.query(`CREATE INDEX "certificates_subject_dn_hash_idx" ON "certificates" ("subject_dn_hash")`);
    await queryRunner.query(`CREATE INDEX "certificates_common_name_idx" ON "certificates" ("common_name")`);
    await queryRunner.query(`CREATE INDEX "certificates_sans_idx" ON "certificates" USING gin ("sans")`);
    await queryRunner.query(`CREATE INDEX "certificates_search_text_trgm_idx" ON "certificates" USING gin ("search_text" gin_trgm_ops)`);

    await queryRunner.query(`
      CREATE TABLE "endpoint_certificates" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "endpoint_id" uuid NOT NULL,
        "fingerprint" text COLLATE "C" NOT NULL,
        "cert_use" text NOT NULL,
        "is_current" boolean NOT NULL,
        "not_after" TIMESTAMP WITH TIME ZONE NOT NULL,
        "first_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "endpoint_certificates_cert_use_check" CHECK (cert_use IN ('tls', 'signing', 'encryption', 'manual')),
        CONSTRAINT "endpoint_certificates_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "endpoint_certificates_link_key" ON "endpoint_certificates" ("endpoint_id", "fingerprint", "cert_use")`,
    );
    await queryRunner.query(`CREATE INDEX "endpoint_certificates_fingerprint_idx" ON "endpoint_certificates" ("fingerprint")`);
    await queryRunner.query(
      `CREATE INDEX "endpoint_certificates_current_idx" ON "endpoint_certificates" ("endpoint_id", "cert_use") WHERE is_current`,
    );
    await queryRunner.query(
      `CREATE INDEX "endpoint_certificates_current_not_after_idx" ON "endpoint_certificates" ("not_after", "id") WHERE is_current`,
    );
    await queryRunner.query(`
      ALTER TABLE "endpoint_certificates" ADD CONSTRAINT "endpoint_certificates_endpoint_id_fkey"
        FOREIGN KEY ("endpoint_id") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      ALTER TABLE "endpoint_certificates" ADD CONSTRAINT "endpoint_certificates_fingerprint_fkey"
        FOREIGN KEY ("fingerprint") REFERENCES "certificates"("fingerprint") ON DELETE RESTRICT ON UPDATE NO ACTION`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "endpoint_certificates"`);
    await queryRunner.query(`DROP TABLE "certificates"`);
    await queryRunner.query(`DROP TABLE "endpoint_tls_profiles"`);
    await queryRunner.query(`DROP TABLE "scan_history"`);
    await queryRunner.query(`DROP TABLE "endpoints"`);
    await queryRunner.query(`DROP TABLE "audit_log"`);
    await queryRunner.query(`DROP TRIGGER scanners_single_default_check ON scanners`);
    await queryRunner.query(`DROP FUNCTION scanners_check_single_default()`);
  }
}
