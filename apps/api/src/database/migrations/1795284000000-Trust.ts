import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The four root stores with their anchors, and the record of maintenance runs. */
export class Trust1795284000000 implements MigrationInterface {
  name = 'Trust1795284000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "root_stores" (
        "id" text NOT NULL,
        "name" text NOT NULL,
        "updated_at" TIMESTAMP WITH TIME ZONE,
        "source" text,
        CONSTRAINT "root_stores_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(`
      INSERT INTO "root_stores" ("id", "name") VALUES
        ('mozilla', 'Mozilla'), ('apple', 'Apple'), ('microsoft', 'Microsoft'), ('chrome', 'Google Chrome')`);
    await queryRunner.query(`
      CREATE TABLE "root_store_anchors" (
        "store_id" text NOT NULL,
        "fingerprint" text COLLATE "C" NOT NULL,
        CONSTRAINT "root_store_anchors_pkey" PRIMARY KEY ("store_id", "fingerprint")
      )`);
    await queryRunner.query(`CREATE INDEX "root_store_anchors_fingerprint_idx" ON "root_store_anchors" ("fingerprint")`);
    await queryRunner.query(`
      ALTER TABLE "root_store_anchors" ADD CONSTRAINT "root_store_anchors_store_id_fkey"
        FOREIGN KEY ("store_id") REFERENCES "root_stores"("id") ON DELETE CASCADE ON UPDATE NO ACTION`);
    await queryRunner.query(`
      ALTER TABLE "root_store_anchors" ADD CONSTRAINT "root_store_anchors_fingerprint_fkey"
        FOREIGN KEY ("fingerprint") REFERENCES "certificates"("fingerprint") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await queryRunner.query(`
      CREATE TABLE "maintenance_runs" (
        "task" text NOT NULL,
        "last_run_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "last_outcome" text NOT NULL,
        "last_counts" jsonb NOT NULL DEFAULT '{}',
        CONSTRAINT "maintenance_runs_pkey" PRIMARY KEY ("task")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "maintenance_runs"`);
    await queryRunner.query(`DROP TABLE "root_store_anchors"`);
    await queryRunner.query(`DROP TABLE "root_stores"`);
  }
}
