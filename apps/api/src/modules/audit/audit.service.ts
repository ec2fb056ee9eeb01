import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../database/transaction';
import { type AuditFilter, AuditRepository } from './audit.repository';
import type { AuditEntryEntity } from './audit-entry.entity';

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
  constructor(private readonly audit: AuditRepository) {}

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

  list(filter: AuditFilter): Promise<{ rows: AuditEntryEntity[]; total: number }> {
    return this.audit.findPage(filter);
  }
}
