import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A NOTIFY on `certkeeper_settings` whenever the settings table changes, on any replica or by
 * hand, so each process's SettingsCache forgets what it read (docs/decisions/0024-database-access.md).
 * Once per statement: settings are few and rarely written, so every cached one is forgotten.
 */
export class SettingsChangeSignal1796603600000 implements MigrationInterface {
  name = 'SettingsChangeSignal1796603600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE FUNCTION "notify_settings_change"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('certkeeper_settings', TG_TABLE_NAME);
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "settings_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "settings"
         FOR EACH STATEMENT EXECUTE FUNCTION notify_settings_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "settings_change" ON "settings"`);
    await queryRunner.query(`DROP FUNCTION "notify_settings_change"()`);
  }
}
