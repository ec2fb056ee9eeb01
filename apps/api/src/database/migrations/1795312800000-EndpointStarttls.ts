import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Certificates behind STARTTLS (docs/api-contract.md section 13): the plain-text upgrade a host
 * endpoint's scans speak before the TLS handshake. Null, the default, is implicit TLS, so every
 * existing endpoint keeps being scanned as before. The CHECK lists the protocols the agent knows
 * (STARTTLS_PROTOCOLS in libs/domain); a new protocol needs a new migration.
 */
export class EndpointStarttls1795312800000 implements MigrationInterface {
  name = 'EndpointStarttls1795312800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "endpoints" ADD "starttls" text`);
    await queryRunner.query(
      `ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_starttls_check"
         CHECK (starttls IN ('smtp', 'imap', 'pop3', 'ftp', 'ldap', 'postgres', 'xmpp'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "endpoints" DROP CONSTRAINT "endpoints_starttls_check"`);
    await queryRunner.query(`ALTER TABLE "endpoints" DROP COLUMN "starttls"`);
  }
}
