import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * The one-time codes sign-ins end with and the states of finished callbacks. Both are claimed
 * by a single statement, so two replicas can never both win the same row. Expired rows are
 * deleted whenever a new one is written: the tables hold at most the last minutes of sign-ins.
 */
@Injectable()
export class OidcCodesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Records a finished callback's state; false when it was already recorded (a replay). */
  async claimState(stateHash: string, expiresAt: Date, now: Date): Promise<boolean> {
    await this.dataSource.query('DELETE FROM oidc_used_states WHERE expires_at < $1', [now]);
    const rows = await this.dataSource.query<unknown[]>(
      'INSERT INTO oidc_used_states (state_hash, expires_at) VALUES ($1, $2) ON CONFLICT (state_hash) DO NOTHING RETURNING state_hash',
      [stateHash, expiresAt],
    );
    return rows.length === 1;
  }

  async insertLoginCode(code: { codeHash: string; flowHash: string; userId: string; expiresAt: Date }, now: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM oidc_login_codes WHERE expires_at < $1', [now]);
    await this.dataSource.query('INSERT INTO oidc_login_codes (code_hash, flow_hash, user_id, expires_at) VALUES ($1, $2, $3, $4)', [
      code.codeHash,
      code.flowHash,
      code.userId,
      code.expiresAt,
    ]);
  }

  /**
   * Deletes the code, whoever presents it, and answers its user when it had not expired by `now`
   * and was issued to the browser whose flow hashes to `flowHash`; null otherwise. A code tried in
   * another browser is gone: it was seen where it should not have been.
   */
  async consumeLoginCode(codeHash: string, flowHash: string | null, now: Date): Promise<string | null> {
    // DELETE ... RETURNING answers [rows, affected count] through TypeORM's PostgreSQL driver.
    const [rows] = await this.dataSource.query<[{ user_id: string; expires_at: Date; flow_hash: string }[], number]>(
      'DELETE FROM oidc_login_codes WHERE code_hash = $1 RETURNING user_id, expires_at, flow_hash',
      [codeHash],
    );
    const row = rows[0];
    if (row === undefined || row.expires_at.getTime() <= now.getTime()) return null;
    return row.flow_hash === flowHash ? row.user_id : null;
  }
}
