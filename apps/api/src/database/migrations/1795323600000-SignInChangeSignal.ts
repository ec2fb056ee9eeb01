import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A NOTIFY on `certkeeper_sign_in` whenever a session ends or a user changes, on any replica or by
 * hand: every API process then forgets the session checks it cached (SessionUserCache,
 * docs/performance.md, "Sessions"). Statement-level, so a purge of a thousand sessions is one
 * notification; PostgreSQL delivers it at commit and folds repeats within a transaction.
 */
export class SignInChangeSignal1795323600000 implements MigrationInterface {
  name = 'SignInChangeSignal1795323600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE FUNCTION "notify_sign_in_change"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('certkeeper_sign_in', '');
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "sessions_sign_in_change" AFTER DELETE OR TRUNCATE ON "sessions"
         FOR EACH STATEMENT EXECUTE FUNCTION notify_sign_in_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "users_sign_in_change" AFTER UPDATE OR DELETE OR TRUNCATE ON "users"
         FOR EACH STATEMENT EXECUTE FUNCTION notify_sign_in_change()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "users_sign_in_change" ON "users"`);
    await queryRunner.query(`DROP TRIGGER "sessions_sign_in_change" ON "sessions"`);
    await queryRunner.query(`DROP FUNCTION "notify_sign_in_change"()`);
  }
}
