import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import { UserEntity } from '../users/user.entity';
import { ApiKeyEntity } from './api-key.entity';

export interface NewApiKey {
  userId: string;
  name: string;
  keyId: string;
  secretHash: string;
  expiresAt: Date | null;
}

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get keys() {
    return this.dataSource.getRepository(ApiKeyEntity);
  }

  insert(key: NewApiKey): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create(key));
  }

  listForUser(userId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { userId }, order: { createdAt: 'DESC' } });
  }

  async deleteForUser(userId: string, id: string): Promise<boolean> {
    const result = await this.keys.delete({ id, userId });
    return (result.affected ?? 0) > 0;
  }

  async deleteAllForUser(userId: string, transaction: Transaction = this.dataSource.manager): Promise<number> {
    const result = await transaction.getRepository(ApiKeyEntity).delete({ userId });
    return result.affected ?? 0;
  }

  /** The key with its owner, for authentication: one query per request. */
  findWithOwnerByKeyId(keyId: string): Promise<(ApiKeyEntity & { user: UserEntity }) | null> {
    return this.keys.findOne({ where: { keyId }, relations: { user: true } }) as Promise<(ApiKeyEntity & { user: UserEntity }) | null>;
  }

  /** Coarse: at most one write per key per minute, so authentication does not write per request. */
  async touchLastUsed(id: string, now: Date): Promise<void> {
    await this.keys
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: now })
      .where('id = :id AND (last_used_at IS NULL OR last_used_at < :threshold)', { id, threshold: new Date(now.getTime() - 60_000) })
      .execute();
  }
}
