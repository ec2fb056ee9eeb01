import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each user last signed in (password or OIDC), for the Users screen: written with the session
 * row at every sign-in (SessionsRepository.insert). Null until the user's first sign-in after this
 * migration.
 */
export class UserLastSignIn1795327200000 implements MigrationInterface {
  name = 'UserLastSignIn1795327200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "last_sign_in_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "last_sign_in_at"`);
  }
}
