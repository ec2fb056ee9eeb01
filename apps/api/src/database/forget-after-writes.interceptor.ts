import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { finalize, type Observable } from 'rxjs';
import type { Principal } from '../common/auth/principal';
import { DatabaseNotifications } from './notifications';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The cache rule (docs/decisions/0024-database-access.md): a request may have written unless it is
 * a GET, HEAD or OPTIONS, whether or not it succeeded, so every other one clears this process's
 * caches built on notifications (CountCache, SessionUserCache, CalendarFeedCache: whatever
 * registered with DatabaseNotifications.forgetAfterWrites).
 */
export function mayHaveWritten(method: string): boolean {
  return !READS.has(method);
}

/**
 * Applies the cache rule before the response goes out: the client's very next request sees its
 * own change, without waiting for the notification of its commit, which also tells the other
 * replicas (docs/performance.md, "Sessions" and "Counts"). A scanner agent is the exception: it
 * reads nothing these caches hold, so its posts, a steady stream of them, leave them alone, and
 * what they change reaches every process as any replica's writes do, by notification.
 */
@Injectable()
export class ForgetAfterWrites implements NestInterceptor {
  constructor(private readonly notifications: DatabaseNotifications) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!mayHaveWritten(request.method) || (request.user as Principal | undefined)?.kind === 'scanner') return next.handle();
    return next.handle().pipe(finalize(() => this.notifications.wroteHere()));
  }
}
