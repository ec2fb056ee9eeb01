import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Discovery sweeps and the inbox (docs/api-contract.md section 8).
 *
 * - At most one queued or running sweep per network: a partial unique index, so two replicas (or
 *   a cron tick racing a request) cannot both queue one.
 * - A sweep keeps the ranges and ports it probes, fixed when its agent claims it: findings are
 *   checked against what was swept, not against a network edited since.
 * - Report ids make a repeated report a no-op, as result ids do for scan results.
 * - An inbox row per (network, address, port). `disposition` is what a person decided (new,
 *   promoted, dismissed); `tracked` is derived when read, from the endpoints that exist then.
 */
export class DiscoverySweeps1795298400000 implements MigrationInterface {
  name = 'DiscoverySweeps1795298400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "discovery_networks" ADD "last_scheduled_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`
      CREATE TABLE "discovery_sweeps" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "network_id" uuid NOT NULL,
        "scanner_id" uuid,
        "status" text NOT NULL DEFAULT 'queued',
        "trigger" text NOT NULL,
        "ranges" text array,
        "ports" integer array,
        "requested_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "started_at" TIMESTAMP WITH TIME ZONE,
        "finished_at" TIMESTAMP WITH TIME ZONE,
        "last_report_at" TIMESTAMP WITH TIME ZONE,
        "addresses_total" integer NOT NULL,
        "addresses_probed" integer NOT NULL DEFAULT 0,
        "services_found" integer NOT NULL DEFAULT 0,
        "error" text,
        CONSTRAINT "discovery_sweeps_status_check" CHECK (status IN ('queued', 'running', 'completed', 'failed')),
        CONSTRAINT "discovery_sweeps_trigger_check" CHECK (trigger IN ('schedule', 'request')),
        CONSTRAINT "discovery_sweeps_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE INDEX "discovery_sweeps_network_requested_idx" ON "discovery_sweeps" ("network_id", "requested_at")`);
    await queryRunner.query(`CREATE INDEX "discovery_sweeps_scanner_id_idx" ON "discovery_sweeps" ("scanner_id")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "discovery_sweeps_one_active_key" ON "discovery_sweeps" ("network_id") WHERE status IN ('queued', 'running')`,
    );
    await queryRunner.query(`
      ALTER TABLE "discovery_sweeps" ADD CONSTRAINT "discovery_sweeps_network_id_fkey"
        FOREIGN KEY ("network_id") REFERENCES "discovery_networks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      ALTER TABLE "discovery_sweeps" ADD CONSTRAINT "discovery_sweeps_scanner_id_fkey"
        FOREIGN KEY ("scanner_id") REFERENCES "scanners"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);

    await queryRunner.query(`
      CREATE TABLE "discovery_sweep_reports" (
        "report_id" uuid NOT NULL,
        "sweep_id" uuid NOT NULL,
        "received_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "discovery_sweep_reports_pkey" PRIMARY KEY ("report_id")
      )`);
    await queryRunner.query(`CREATE INDEX "discovery_sweep_reports_sweep_id_idx" ON "discovery_sweep_reports" ("sweep_id")`);
    await queryRunner.query(`
      ALTER TABLE "discovery_sweep_reports" ADD CONSTRAINT "discovery_sweep_reports_sweep_id_fkey"
        FOREIGN KEY ("sweep_id") REFERENCES "discovery_sweeps"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);

    await queryRunner.query(`
      CREATE TABLE "discovery_inbox" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "network_id" uuid NOT NULL,
        "address" text NOT NULL,
        "port" integer NOT NULL,
        "reverse_name" text,
        "hostnames" text array NOT NULL DEFAULT '{}',
        "fingerprint" text COLLATE "C",
        "disposition" text NOT NULL DEFAULT 'new',
        "endpoint_id" uuid,
        "tracked_endpoint_id" uuid,
        "dismissed_fingerprint" text COLLATE "C",
        "first_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "last_sweep_id" uuid,
        CONSTRAINT "discovery_inbox_disposition_check" CHECK (disposition IN ('new', 'promoted', 'dismissed')),
        CONSTRAINT "discovery_inbox_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "discovery_inbox_service_key" ON "discovery_inbox" ("network_id", "address", "port")`);
    await queryRunner.query(`CREATE INDEX "discovery_inbox_last_seen_idx" ON "discovery_inbox" ("last_seen_at", "id")`);
    await queryRunner.query(`CREATE INDEX "discovery_inbox_fingerprint_idx" ON "discovery_inbox" ("fingerprint")`);
    await queryRunner.query(`CREATE INDEX "discovery_inbox_endpoint_id_idx" ON "discovery_inbox" ("endpoint_id")`);
    await queryRunner.query(`CREATE INDEX "discovery_inbox_tracked_endpoint_id_idx" ON "discovery_inbox" ("tracked_endpoint_id")`);
    for (const [column, target, onDelete] of [
      ['network_id', 'discovery_networks', 'CASCADE'],
      ['endpoint_id', 'endpoints', 'SET NULL'],
      ['tracked_endpoint_id', 'endpoints', 'SET NULL'],
      ['last_sweep_id', 'discovery_sweeps', 'SET NULL'],
    ]) {
      await queryRunner.query(`
        ALTER TABLE "discovery_inbox" ADD CONSTRAINT "discovery_inbox_${column}_fkey"
          FOREIGN KEY ("${column}") REFERENCES "${target}"("id") ON DELETE ${onDelete} ON UPDATE NO ACTION`);
    }
    // A discovered service is tracked when a host endpoint on its port names its address.
    await queryRunner.query(`CREATE INDEX "endpoints_ip_address_port_idx" ON "endpoints" ("ip_address", "port")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "endpoints_ip_address_port_idx"`);
    await queryRunner.query(`DROP TABLE "discovery_inbox"`);
    await queryRunner.query(`DROP TABLE "discovery_sweep_reports"`);
    await queryRunner.query(`DROP TABLE "discovery_sweeps"`);
    await queryRunner.query(`ALTER TABLE "discovery_networks" DROP COLUMN "last_scheduled_at"`);
  }
}
