import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { openRowStream, type RowStream, type SqlQuery } from '../../database/row-stream';
import type { Transaction } from '../../database/transaction';
import { AuditEntryEntity } from './audit-entry.entity';

export type NewAuditEntry = Pick<AuditEntryEntity, 'actor' | 'actorId' | 'action' | 'targetType' | 'targetId' | 'requestId' | 'details'>;

/** The audit list's filters, without a page window. */
export interface AuditCriteria {
  action?: string;
  targetId?: string;
}

export interface AuditFilter extends AuditCriteria {
  limit: number;
  offset: number;
}

/** An entry as the list reads it. */
export type AuditRow = Omit<AuditEntryEntity, 'actorId'>;

@Injectable()
export class AuditRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(entry: NewAuditEntry, transaction?: Transaction): Promise<void> {
    const repository = (transaction ?? this.dataSource.manager).getRepository(AuditEntryEntity);
    await repository.save(repository.create(entry));
  }

  /** Newest first; `id` breaks ties between entries of the same instant. */
  async findPage(filter: AuditFilter): Promise<{ rows: AuditRow[]; total: number }> {
    const { where, values } = matching(filter);
    const select = matchingQuery(filter);
    const [rows, counted] = await Promise.all([
      this.dataSource.query<AuditRow[]>(`${select.text} LIMIT $${values.length + 1} OFFSET $${values.length + 2}`, [
        ...select.values,
        filter.limit,
        filter.offset,
      ]),
      this.dataSource.query<{ total: number }[]>(`SELECT count(*)::int AS total FROM audit_log ${where}`, values),
    ]);
    return { rows, total: counted[0].total };
  }

  /** Every entry the list filters match, newest first, for an export. */
  streamMatching(criteria: AuditCriteria): Promise<RowStream<AuditRow>> {
    return openRowStream(this.dataSource, matchingQuery(criteria));
  }
}

function matching(criteria: AuditCriteria): { where: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  if (criteria.action) conditions.push(`action = $${values.push(criteria.action)}`);
  if (criteria.targetId) conditions.push(`target_id = $${values.push(criteria.targetId)}`);
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', values };
}

function matchingQuery(criteria: AuditCriteria): SqlQuery {
  const { where, values } = matching(criteria);
  return {
    text: `SELECT id, at, actor, action, target_type AS "targetType", target_id AS "targetId", request_id AS "requestId", details
             FROM audit_log ${where} ORDER BY at DESC, id DESC`,
    values,
  };
}
