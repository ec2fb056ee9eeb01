import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Discovery networks (docs/api-contract.md section 8). Deleting the assigned scanner sets
 * `scanner_id` to null: the network is then not swept until a scanner is assigned.
 */
export class DiscoveryNetworks1795294800000 implements MigrationInterface {
  name = 'DiscoveryNetworks1795294800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "discovery_networks" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" text NOT NULL,
        "ranges" text array NOT NULL,
        "ports" integer array NOT NULL,
        "scanner_id" uuid,
        "scan_cron_expression" text NOT NULL DEFAULT '0 2 * * *',
        "enabled" boolean NOT NULL DEFAULT true,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_sweep_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "discovery_networks_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "discovery_networks_name_key" ON "discovery_networks" ("name")`);
    await queryRunner.query(`CREATE INDEX "discovery_networks_scanner_id_idx" ON "discovery_networks" ("scanner_id")`);
    await queryRunner.query(`
      ALTER TABLE "discovery_networks" ADD CONSTRAINT "discovery_networks_scanner_id_fkey"
        FOREIGN KEY ("scanner_id") REFERENCES "scanners"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "discovery_networks"`);
  }
}
