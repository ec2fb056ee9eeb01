import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../database/transaction';
import { Clock } from '../../common/clock';
import type { CsvExport } from '../../common/http/csv/csv-export';
import { AuditEntryResponseDto, toAuditEntryResponse } from './audit.dto';
import { type AuditCriteria, type AuditFilter, AuditRepository, type AuditRow } from './audit.repository';

/** Who did something, and in which request: taken from the HTTP request by `@Actor()`. */
export interface ActorContext {
  actor: string;
  actorId: string | null;
  requestId: string | null;
}

export interface AuditEvent {
  action: string;
  targetType: string;
  targetId: string | null;
  details?: Record<string, unknown>;
}

/** The audit writer every feature uses. Pass the change's transaction so both commit together. */
@Injectable()
export class AuditService {
  constructor(
    private readonly audit: AuditRepository,
    private readonly clock: Clock,
  ) {}

  record(context: ActorContext, event: AuditEvent, transaction?: Transaction): Promise<void> {
    return this.audit.insert(
      {
        actor: context.actor,
        actorId: context.actorId,
        requestId: context.requestId,
        action: event.action,
        targetType: event.targetType,
        targetId: event.targetId,
        details: event.details ?? {},
      },
      transaction,
    );
  }

  list(filter: AuditFilter): Promise<{ rows: AuditRow[]; total: number }> {
    return this.audit.findPage(filter);
  }

  /** Every entry the list filters match, streamed for an export. */
  exportEntries(criteria: AuditCriteria): CsvExport<AuditRow> {
    return {
      list: 'audit',
      item: AuditEntryResponseDto,
      open: () => this.audit.streamMatching(criteria),
      toItem: toAuditEntryResponse,
      now: this.clock.now(),
    };
  }
}
