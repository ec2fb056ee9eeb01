import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Binds each OIDC one-time code to the browser that started its sign-in: `flow_hash` is the
 * SHA-256 of that browser's flow state, which the exchange must present in the flow cookie
 * (docs/api-contract.md section 9). Codes live 60 seconds; those waiting at the upgrade have no
 * browser to match and are dropped (their sign-in starts again).
 */
export class OidcLoginCodeBrowser1795330800000 implements MigrationInterface {
  name = 'OidcLoginCodeBrowser1795330800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "oidc_login_codes"`);
    await queryRunner.query(`ALTER TABLE "oidc_login_codes" ADD "flow_hash" text NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oidc_login_codes" DROP COLUMN "flow_hash"`);
  }
}
