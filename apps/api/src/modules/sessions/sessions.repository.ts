import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, LessThanOrEqual } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import { UserEntity } from '../users/user.entity';
import { SessionEntity, type SignInMethod } from './session.entity';

@Injectable()
export class SessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(session: { userId: string; method: SignInMethod; createdAt: Date; expiresAt: Date }): Promise<string> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      'INSERT INTO sessions (user_id, method, created_at, expires_at) VALUES ($1, $2, $3, $4) RETURNING id',
      [session.userId, session.method, session.createdAt, session.expiresAt],
    );
    return rows[0].id;
  }

  /**
   * The user of a live session, in one primary-key lookup of each table: the revocation check
   * costs an index probe beside the user read every request makes anyway.
   */
  async findUserOfSession(sessionId: string, userId: string): Promise<UserEntity | null> {
    return this.dataSource
      .getRepository(UserEntity)
      .createQueryBuilder('user')
      .innerJoin(SessionEntity, 'session', 'session.id = :sessionId AND session.user_id = "user".id', { sessionId })
      .where('"user".id = :userId', { userId })
      .getOne();
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
