import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, LessThanOrEqual } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import { UserEntity } from '../users/user.entity';
import { SessionEntity, type SignInMethod } from './session.entity';

/** What a request's principal needs of the user behind a session. */
export type SessionUser = Pick<UserEntity, 'id' | 'email' | 'role' | 'disabled'>;

@Injectable()
export class SessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Starts a session and records the sign-in on its user, in one statement. The users row changing
   * makes every replica forget its cached session checks once (migration 1795323600000): a
   * sign-in is rare next to the requests that read the cache.
   */
  async insert(session: { userId: string; method: SignInMethod; createdAt: Date; expiresAt: Date }): Promise<string> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `WITH signed_in AS (UPDATE users SET last_sign_in_at = $3 WHERE id = $1)
       INSERT INTO sessions (user_id, method, created_at, expires_at) VALUES ($1, $2, $3, $4) RETURNING id`,
      [session.userId, session.method, session.createdAt, session.expiresAt],
    );
    return rows[0].id;
  }

  /**
   * The user of a live session, in one primary-key lookup of each table: the revocation check
   * costs an index probe beside the user read every request makes anyway.
   */
  async findUserOfSession(sessionId: string, userId: string): Promise<SessionUser | null> {
    // Plain SQL and only what a principal needs: every authenticated request runs it, and
    // hydrating a whole entity through the query builder costs more than the query itself.
    const rows = await this.dataSource.query<SessionUser[]>(
      `SELECT u.id, u.email, u.role, u.disabled FROM users u JOIN sessions s ON s.user_id = u.id WHERE s.id = $1 AND u.id = $2`,
      [sessionId, userId],
    );
    return rows[0] ?? null;
  }

  /** True when the session existed (and has now ended). */
  async delete(sessionId: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(SessionEntity).delete({ id: sessionId });
    return (result.affected ?? 0) > 0;
  }

  /** Ends every session of the user, in the transaction of the change that calls for it. */
  async deleteAllForUser(userId: string, transaction: Transaction = this.dataSource.manager): Promise<number> {
    const result = await transaction.getRepository(SessionEntity).delete({ userId });
    return result.affected ?? 0;
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.dataSource.getRepository(SessionEntity).delete({ expiresAt: LessThanOrEqual(now) });
    return result.affected ?? 0;
  }
}
