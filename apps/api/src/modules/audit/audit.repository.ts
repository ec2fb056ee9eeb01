import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../database/transaction';
import { AuditEntryEntity } from './audit-entry.entity';

export type NewAuditEntry = Pick<AuditEntryEntity, 'actor' | 'actorId' | 'action' | 'targetType' | 'targetId' | 'requestId' | 'details'>;

export interface AuditFilter {
  action?: string;
  targetId?: string;
  limit: number;
  offset: number;
}

@Injectable()
export class AuditRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(entry: NewAuditEntry, transaction?: Transaction): Promise<void> {
    const repository = (transaction ?? this.dataSource.manager).getRepository(AuditEntryEntity);
    await repository.save(repository.create(entry));
  }

  /** Newest first; `id` breaks ties between entries of the same instant. */
  async findPage(filter: AuditFilter): Promise<{ rows: AuditEntryEntity[]; total: number }> {
    const query = this.dataSource.getRepository(AuditEntryEntity).createQueryBuilder('entry');
    if (filter.action) query.andWhere('entry.action = :action', { action: filter.action });
    if (filter.targetId) query.andWhere('entry.target_id = :targetId', { targetId: filter.targetId });
    const [rows, total] = await query
      .orderBy('entry.at', 'DESC')
      .addOrderBy('entry.id', 'DESC')
      .take(filter.limit)
      .skip(filter.offset)
      .getManyAndCount();
    return { rows, total };
  }
}
